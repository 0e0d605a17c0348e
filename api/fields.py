"""Serializer fields shared by the API's resources."""

from __future__ import annotations

from typing import Any

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


class BoundedListField(serializers.ListField):
    """A request list whose length is checked before its items: DRF's ListField validates
    every item first and only then its max_length, so a list of a million ids costs a
    million validations before the 400."""

    def to_internal_value(self, data: Any) -> list:
        limit = self.max_length
        if limit is not None and isinstance(data, list | tuple) and len(data) > limit:
            self.fail("max_length", max_length=limit)
        return super().to_internal_value(data)
