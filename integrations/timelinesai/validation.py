"""What the TimelinesAI client checks before any HTTP call (a bad argument raises
`RejectedRequest` with `status_code=None`, naming the argument), and how it writes the
values it sends."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from urllib.parse import quote

from cerniq.logging import mask_pii
from cerniq.provider_errors import RejectedRequest
from whatsapp.backends import MAX_TEXT

# `after` is widened by the largest UTC offset, because TimelinesAI's docs do not say in which
# time zone a datetime without offset is read; the exact cut is then made on our side.
AFTER_MARGIN = timedelta(hours=14)

_E164 = re.compile(r"\+[1-9][0-9]{6,14}")
CHAT_ID = re.compile(r"[0-9]{1,20}")
_MESSAGE_UID = re.compile(r"[A-Za-z0-9_-]{1,128}")


def check_phone(value: str, name: str) -> None:
    if not isinstance(value, str) or not _E164.fullmatch(value):
        shown = mask_pii(str(value))[:40]
        raise RejectedRequest(f"{name} must be an E.164 number like +40722000111, got {shown!r}")


def check_text(text: str, *, may_be_empty: bool = False) -> None:
    if not isinstance(text, str) or (not text.strip() and not may_be_empty):
        raise RejectedRequest("text is empty")
    if len(text) > MAX_TEXT:
        raise RejectedRequest(f"text is {len(text)} characters; TimelinesAI accepts {MAX_TEXT}")
    if "\x00" in text:
        raise RejectedRequest("text contains a NUL character")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise RejectedRequest("text is not valid Unicode (lone surrogate)") from None


def check_file_uid(uid: str) -> str:
    if not isinstance(uid, str) or not _MESSAGE_UID.fullmatch(uid):
        raise RejectedRequest(f"not a TimelinesAI file uid: {str(uid)[:60]!r}")
    return uid


def check_chat_id(chat_id: str | int) -> str:
    value = str(chat_id).strip() if isinstance(chat_id, str | int) else ""
    if not CHAT_ID.fullmatch(value):
        raise RejectedRequest(f"chat_id must be a TimelinesAI chat number, got {chat_id!r}")
    return value


def check_uid(uid: str) -> str:
    if not isinstance(uid, str) or not _MESSAGE_UID.fullmatch(uid):
        raise RejectedRequest(f"not a TimelinesAI message uid: {uid!r}")
    return quote(uid, safe="")


def digits(value: object) -> str:
    return "".join(ch for ch in str(value or "") if ch in "0123456789")


def after(since: datetime) -> str:
    """The `after` parameter for messages from `since` on (widened by AFTER_MARGIN)."""
    if since.tzinfo is None or since.utcoffset() is None:
        raise ValueError("since must be timezone-aware")
    return (since.astimezone(UTC) - AFTER_MARGIN).strftime("%Y-%m-%d %H:%M:%S")
