"""The interface every email backend implements: each method the core calls on one."""

from __future__ import annotations

from abc import ABC, abstractmethod
from datetime import datetime

from cerniq.provider_errors import SendResult


class EmailBackend(ABC):
    needs_credentials: bool = True
    is_sandbox: bool = False

    @abstractmethod
    def send(
        self,
        *,
        to: str,
        subject: str,
        text: str,
        idempotency_key: str,
        headers: dict[str, str] | None = None,
    ) -> SendResult:
        """Send one email. The same `idempotency_key` must never send a second email:
        the provider answers the first send instead."""

    @abstractmethod
    def find_sent(self, *, idempotency_key: str, to: str, since: datetime) -> SendResult | None:
        """The send made with this key, if the provider has it (reconciliation of an
        attempt whose worker died), else None."""
