"""The interface of a WhatsApp sending backend."""

from __future__ import annotations

from cerniq.provider_errors import SendResult


class WhatsAppBackend:
    def send_to_phone(self, *, account_phone: str, to: str, text: str) -> SendResult:
        """First message to a number, from the given sending account."""
        raise NotImplementedError

    def send_to_chat(self, *, chat_id: str, text: str) -> SendResult:
        """A follow-up into an existing chat (the chat's account sends it)."""
        raise NotImplementedError
