"""Serializer fields shared by the API's resources."""

from __future__ import annotations

from rest_framework import serializers

from cerniq import reasons


class ReasonField(serializers.CharField):
    """A stored reason (cerniq.reasons) in the request's language (Accept-Language), read
    only. Integrators who branch on it read the sibling `*_code` field where one is given."""

    def __init__(self, **kwargs):
        kwargs.setdefault("read_only", True)
        super().__init__(**kwargs)

    def to_representation(self, value: str) -> str:
        return reasons.render(value)


def reason_code(stored: str | None) -> str:
    """The code of a stored reason ('' for legacy text), for a machine-readable field."""
    parsed = reasons.parse(stored or "")
    return parsed[0] if parsed else ""
