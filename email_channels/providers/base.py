"""The interface of an email sending backend."""

from __future__ import annotations

from cerniq.provider_errors import SendResult


class EmailBackend:
    def send(
        self,
        *,
        to: str,
        subject: str,
        text: str,
        idempotency_key: str,
        headers: dict[str, str] | None = None,
    ) -> SendResult:
        raise NotImplementedError
