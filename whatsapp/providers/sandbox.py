"""Sandbox WhatsApp backend for embedded mode and demos: records sends, sends nothing.

Responses are shaped like TimelinesAI's (`{"status": "ok", "data": {"message_uid": …}}`).
"""

from __future__ import annotations

import threading
import uuid
from dataclasses import dataclass
from typing import Any

from cerniq.provider_errors import PermanentProviderError, SendResult
from whatsapp.providers.base import WhatsAppBackend

MAX_TEXT = 2000  # TimelinesAI's limit for `text`


@dataclass(frozen=True)
class SandboxSend:
    account_phone: str
    to: str
    chat_id: str
    text: str
    message_uid: str


class SandboxWhatsApp(WhatsAppBackend):
    def __init__(self, **options: Any) -> None:
        self.options = options
        self.outbox: list[SandboxSend] = []
        self._lock = threading.Lock()
        self._chats: dict[tuple[str, str], str] = {}

    def _record(self, account_phone: str, to: str, chat_id: str, text: str) -> SendResult:
        if not text or len(text) > MAX_TEXT:
            raise PermanentProviderError(f"text must be 1..{MAX_TEXT} characters")
        uid = str(uuid.uuid4())
        with self._lock:
            self.outbox.append(SandboxSend(account_phone, to, chat_id, text, uid))
        return SendResult(uid, {"status": "ok", "data": {"message_uid": uid}}, thread_id=chat_id)

    def send_to_phone(self, *, account_phone: str, to: str, text: str) -> SendResult:
        if not to.startswith("+"):
            raise PermanentProviderError(f'Wrong phone number "{to}"')
        with self._lock:
            chat_id = self._chats.setdefault((account_phone, to), str(100000 + len(self._chats)))
        return self._record(account_phone, to, chat_id, text)

    def send_to_chat(self, *, chat_id: str, text: str) -> SendResult:
        with self._lock:
            known = {c: key for key, c in self._chats.items()}
        if chat_id not in known:
            raise PermanentProviderError(f"Whatsapp chat_id {chat_id} not found")
        account_phone, to = known[chat_id]
        return self._record(account_phone, to, chat_id, text)
