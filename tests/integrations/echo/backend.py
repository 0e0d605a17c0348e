"""Echo's WhatsApp backend: remembers what it was asked to send."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from cerniq.provider_errors import SendResult
from whatsapp.backends import WhatsAppBackend


class EchoWhatsApp(WhatsAppBackend):
    def __init__(self, *, api_token: str) -> None:
        self.api_token = api_token
        self.sent: list[dict[str, str]] = []

    def send_to_phone(self, *, account_phone: str, to: str, text: str) -> SendResult:
        self.sent.append({"from": account_phone, "to": to, "text": text})
        uid = f"echo-{len(self.sent)}"
        return SendResult(uid, {"id": uid}, thread_id=f"chat-{to}")

    def send_to_chat(self, *, chat_id: str, text: str) -> SendResult:
        self.sent.append({"chat": chat_id, "text": text})
        uid = f"echo-{len(self.sent)}"
        return SendResult(uid, {"id": uid}, thread_id=chat_id)

    def find_chat(self, *, to: str, account_id: str = "") -> dict[str, Any] | None:
        return None

    def find_sent(
        self, *, to: str, text: str, since: datetime, account_id: str = "", reference: str = ""
    ) -> SendResult | None:
        return None

    def list_accounts(self) -> list[dict[str, Any]]:
        return []

    def account_status(self, account_phone: str) -> str | None:
        return "active"
