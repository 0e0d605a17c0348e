"""The interface every WhatsApp backend implements: each method the core calls on one.

Backends raise `cerniq.provider_errors` classes (never their HTTP library's), so the send
path applies one retry table to every provider.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from datetime import datetime
from typing import Any

from cerniq.provider_errors import SendResult

# The longest WhatsApp text we send: the smallest limit of the providers we use
# (TimelinesAI's `text` takes 2,000 characters). Templates, manual messages, AI replies
# and every backend's own check use this one number.
MAX_TEXT = 2000


class WhatsAppBackend(ABC):
    # False for backends that talk to nobody (the sandbox): no credentials to check.
    needs_credentials: bool = True
    # True for backends that only pretend to send (refused in production, see cerniq.checks).
    is_sandbox: bool = False
    # False for backends whose sends never get a delivered tick (the sandbox): the health
    # guard (outreach.phone_health) then ignores the share of undelivered first messages.
    reports_delivery: bool = True

    @abstractmethod
    def send_to_phone(self, *, account_phone: str, to: str, text: str) -> SendResult:
        """First message to a number, from the given sending account."""

    @abstractmethod
    def send_to_chat(self, *, chat_id: str, text: str) -> SendResult:
        """A follow-up into an existing chat (the chat's account sends it)."""

    @abstractmethod
    def find_chat(self, *, to: str, account_id: str = "") -> dict[str, Any] | None:
        """The chat with `to` on the given account (`{"id": …}`), or None."""

    @abstractmethod
    def find_sent(
        self, *, to: str, text: str, since: datetime, account_id: str = ""
    ) -> SendResult | None:
        """An outbound message with this text to `to` sent at or after `since`, or None.
        The send path's reconciliation: it decides whether a lost attempt went out."""

    @abstractmethod
    def list_accounts(self) -> list[dict[str, Any]]:
        """The provider's sending accounts: `{"id", "phone", "status"}` each."""

    @abstractmethod
    def account_status(self, account_phone: str) -> str | None:
        """ "active", "disconnected", … for one account; None when the provider has none."""
