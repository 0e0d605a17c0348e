"""Sandbox WhatsApp backend for embedded mode and demos: records sends, sends nothing.

It answers like TimelinesAI (`{"status": "ok", "data": {"message_uid": …}}`), raises the
same error classes for the same mistakes, and can simulate a disconnected, a restricted or
a banned account (the last two as the WhatsApp Cloud API reports them).
"""

from __future__ import annotations

import re
import threading
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone

from cerniq.provider_errors import (
    AccountBanned,
    AccountDisconnected,
    AccountRestricted,
    InvalidRecipient,
    RejectedRequest,
    SendResult,
)
from whatsapp.backends import MAX_TEXT, WhatsAppBackend

CLOCK_DRIFT = timedelta(minutes=5)
_E164 = re.compile(r"^\+[1-9][0-9]{6,14}$")


@dataclass(frozen=True)
class SandboxSend:
    account_phone: str
    to: str
    chat_id: str
    text: str
    message_uid: str
    sent_at: datetime
    media_id: str = ""  # the file sent with it (`upload_media`)


class SandboxWhatsApp(WhatsAppBackend):
    needs_credentials = False  # records sends; talks to nobody
    is_sandbox = True
    reports_delivery = False  # nothing is ever delivered

    def __init__(self, **options: Any) -> None:
        self.options = options
        self.outbox: list[SandboxSend] = []
        self.disconnected: set[str] = set()  # account phones to treat as disconnected
        self.restricted: set[str] = set()  # … as restricted for spam (Cloud API 131048)
        self.banned: set[str] = set()  # … as banned for policy (Cloud API 368)
        self._lock = threading.Lock()
        self._chats: dict[tuple[str, str], str] = {}

    def _record(
        self, account_phone: str, to: str, chat_id: str, text: str, media_id: str = ""
    ) -> SendResult:
        if not text or len(text) > MAX_TEXT or "\x00" in text:
            raise RejectedRequest(f"text must be 1..{MAX_TEXT} characters without NUL")
        if account_phone in self.disconnected:
            raise AccountDisconnected(f"No connected WhatsApp account {account_phone}")
        if account_phone in self.banned:
            raise AccountBanned(
                "(#368) Temporarily blocked for policies violations", error_code="368"
            )
        if account_phone in self.restricted:
            raise AccountRestricted(
                "(#131048) Spam rate limit hit: too many previous messages were blocked or "
                "flagged as spam",
                error_code="131048",
            )
        uid = str(uuid.uuid4())
        with self._lock:
            sent = SandboxSend(account_phone, to, chat_id, text, uid, timezone.now(), media_id)
            self.outbox.append(sent)
        return SendResult(uid, {"status": "ok", "data": {"message_uid": uid}}, thread_id=chat_id)

    def send_to_phone(self, *, account_phone: str, to: str, text: str) -> SendResult:
        if not _E164.match(to):
            raise InvalidRecipient(f'Wrong phone number "{to}"', status_code=400)
        with self._lock:
            chat_id = self._chats.setdefault((account_phone, to), str(100000 + len(self._chats)))
        result = self._record(account_phone, to, chat_id, text)
        _maybe_reply(account_phone, to, chat_id)
        return result

    def send_to_chat(self, *, chat_id: str, text: str) -> SendResult:
        with self._lock:
            known = {c: key for key, c in self._chats.items()}
        if chat_id not in known:
            raise RejectedRequest(f"Whatsapp chat_id {chat_id} not found", status_code=404)
        account_phone, to = known[chat_id]
        return self._record(account_phone, to, chat_id, text)

    def upload_media(
        self, *, account_id: str, content: bytes, filename: str, content_type: str
    ) -> str:
        if not content:
            raise RejectedRequest("the file is empty")
        return f"sandbox-file-{uuid.uuid4()}"

    def send_media(
        self, *, account_phone: str, chat_id: str, to: str, text: str, media_id: str
    ) -> SendResult:
        if not media_id.startswith("sandbox-file-"):
            raise RejectedRequest(f"no file {media_id[:60]!r} was uploaded here")
        if chat_id:
            with self._lock:
                known = {c: key for key, c in self._chats.items()}
            if chat_id not in known:
                raise RejectedRequest(f"Whatsapp chat_id {chat_id} not found", status_code=404)
            account_phone, to = known[chat_id]
        elif not _E164.match(to):
            raise InvalidRecipient(f'Wrong phone number "{to}"', status_code=400)
        else:
            with self._lock:
                chat_id = self._chats.setdefault(
                    (account_phone, to), str(100000 + len(self._chats))
                )
        return self._record(account_phone, to, chat_id, text, media_id)

    def find_chat(self, *, to: str, account_id: str = "") -> dict[str, Any] | None:
        with self._lock:
            for (account_phone, phone), chat_id in self._chats.items():
                if phone == to and (not account_id or _jid(account_phone) == account_id):
                    return {"id": int(chat_id), "phone": to, "whatsapp_account_id": account_id}
        return None

    def find_sent(
        self, *, to: str, text: str, since: datetime, account_id: str = "", reference: str = ""
    ) -> SendResult | None:
        if timezone.is_naive(since):
            raise ValueError("since must be timezone-aware")
        with self._lock:
            for sent in reversed(self.outbox):
                recent = sent.sent_at >= since - CLOCK_DRIFT
                if sent.to == to and sent.text.strip() == text.strip() and recent:
                    raw = {"uid": sent.message_uid, "chat_id": int(sent.chat_id), "text": sent.text}
                    return SendResult(sent.message_uid, raw, thread_id=sent.chat_id)
        return None

    def list_accounts(self) -> list[dict[str, Any]]:
        with self._lock:
            phones = sorted({account for account, _ in self._chats} | self.disconnected)
        return [
            {
                "id": _jid(p),
                "phone": p,
                "status": "disconnected" if p in self.disconnected else "active",
            }
            for p in phones
        ]

    def account_status(self, account_phone: str) -> str | None:
        if account_phone in self.disconnected:
            return "disconnected"
        return "active"


def _maybe_reply(account_phone: str, to: str, chat_id: str) -> None:
    from integrations.sandbox.demo_replies import maybe_schedule_reply

    maybe_schedule_reply(account_phone, to, chat_id)


def _jid(phone: str) -> str:
    return f"{phone.lstrip('+')}@s.whatsapp.net"
