"""A chat's earlier messages from TimelinesAI (`GET /chats/{id}/messages`, docs/providers.md
§1.3): each `MessageInfo` as the core's `PastMessage`, and the request budget the backfill
keeps (hitl.chat_backfill stores them, docs/chat-history.md).

What is a chat message. `message_type` is `whatsapp` for what was written in the chat;
`note` (a team note inside TimelinesAI), `whatsapp_call`, `email` and `summary` are not
part of the conversation with the person and are left out. An entry without a `uid` or a
readable `from_me` is left out too (counted as seen, never stored).

The budget. TimelinesAI allows 30 requests a second per IP address (+10 queued), then
answers 429 (docs/providers.md §1.6), and every call we make counts: sends, status polls,
look-ups. A backfill is the only bulk reader, so it alone is held to
`TIMELINESAI_HISTORY_REQUESTS_PER_SECOND` (5 by default) for the workspace (one API
token), counted in Dramatiq's rate limiter backend (Redis in production) so every worker
shares it. After a 429 every backfill of the workspace waits for Retry-After
(`back_off`, in the Django cache), as Instantly's limiter does.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from cerniq.provider_limits import SharedRequestLimiter
from whatsapp.backends import PastMessage

DEFAULT_PER_SECOND = 5  # of the 30 a second TimelinesAI allows per IP address
MAX_WAIT = 2.0  # seconds a page may wait for a request slot before it raises RateLimited
CHAT_TYPES = frozenset({"whatsapp"})  # message_type values that are the conversation
_MAX_ID = 255  # Message.provider_message_id


def parse_timestamp(value: object) -> datetime | None:
    """TimelinesAI's `"2026-05-18 10:44:21 +0300"` (or ISO 8601); None when unreadable."""
    if not isinstance(value, str) or not value.strip():
        return None
    for parse in (
        lambda v: datetime.strptime(v, "%Y-%m-%d %H:%M:%S %z"),
        lambda v: datetime.fromisoformat(v.replace("Z", "+00:00")),
    ):
        try:
            parsed = parse(value.strip())
        except ValueError:
            continue
        if parsed.tzinfo is not None:
            return parsed
    return None


def past_message(raw: object, chat_id: str) -> PastMessage | None:
    """One `MessageInfo` as a `PastMessage`; None for what is not a chat message."""
    if not isinstance(raw, dict):
        return None
    uid, from_me = raw.get("uid"), raw.get("from_me")
    if not isinstance(uid, str) or not uid.strip() or len(uid) > _MAX_ID:
        return None
    if not isinstance(from_me, bool):
        return None
    kind = raw.get("message_type")
    if kind is not None and str(kind).strip().lower() not in CHAT_TYPES:
        return None
    sender, recipient = _text(raw.get("sender_phone")), _text(raw.get("recipient_phone"))
    return PastMessage(
        provider_message_id=uid.strip(),
        chat_id=chat_id,
        from_me=from_me,
        text=_text(raw.get("text")),
        sent_at=parse_timestamp(raw.get("timestamp"))
        or parse_timestamp(raw.get("received_timestamp")),
        our_number=sender if from_me else recipient,
        contact_phone=recipient if from_me else sender,
        status=_text(raw.get("status")) if from_me else "",
        origin=_text(raw.get("origin")),
        attachments=_attachments(raw),
    )


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _attachments(raw: dict[str, Any]) -> tuple[dict, ...]:
    """The file's name only: `attachment_url` may be a link that grants access to it."""
    if not raw.get("has_attachment") and not raw.get("attachment_filename"):
        return ()
    return ({"filename": _text(raw.get("attachment_filename"))[:255]},)


def workspace_key(token: str) -> str:
    """A name for the workspace's counters that does not reveal its token."""
    return "timelinesai:" + hashlib.sha256(token.encode()).hexdigest()[:16] + ":history"


class HistoryLimiter(SharedRequestLimiter):
    """One slot per history page: `acquire()` before each request, `back_off()` after a
    429 (cerniq.provider_limits)."""

    def __init__(
        self,
        token: str,
        *,
        per_second: int | None = None,
        max_wait: float = MAX_WAIT,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        rate = per_second or _configured_rate()
        super().__init__(
            workspace_key(token),
            per_second=rate,
            max_wait=max_wait,
            label="TimelinesAI history",
            budget=f"{rate}/s for the workspace's backfills",
            clock=clock,
            sleep=sleep,
        )


def _configured_rate() -> int:
    value = getattr(settings, "TIMELINESAI_HISTORY_REQUESTS_PER_SECOND", DEFAULT_PER_SECOND)
    if not isinstance(value, int) or not 1 <= value <= 25:
        raise ImproperlyConfigured(
            "TIMELINESAI_HISTORY_REQUESTS_PER_SECOND must be a whole number from 1 to 25 "
            f"(TimelinesAI allows 30 a second for everything), got {value!r}"
        )
    return value
