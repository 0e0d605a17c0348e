"""Strict schemas of the TimelinesAI webhooks we act on (docs/providers.md §1.5; TimelinesAI's
webhook OpenAPI, `MessageData`, `AccountData`, `ChatData`).

Checked at the door (`TimelinesAIReceiver.identify`) before anything is stored as
accepted. Pydantic v2 in strict mode: a JSON string is never read as an integer ("123")
or a boolean ("false"), an integer never as a string. Unknown keys are allowed and not
read (TimelinesAI adds fields); every field we read is typed and bounded:

- ids are JSON integers from 1 to 2^53 - 1 (what every JSON reader holds exactly);
- `message_uid` is a UUID (8-4-4-4-12 hex), compared lowercase;
- times we read are the documented `YYYY-MM-DD HH:MM:SS ±ZZZZ`, and a real date and time
  (`message.received_timestamp` is never read: whatever it holds is accepted and stored);
- phones are E.164 (`+` and 7 to 15 digits), account ids WhatsApp JIDs
  (`<digits>@s.whatsapp.net`);
- a text is at most 65,536 characters (WhatsApp's own limit), names and other strings at
  most 1,024, URLs are https and at most 2,048 (a chat URL at most 500, the column's size);
- at most 32 attachments.

NUL characters, lone surrogates, NaN/Infinity, duplicated keys, deep nesting and the body
size are refused for every event before this (cerniq.webhooks.parse_payload).

Required: what the provider's schema requires *and* we read. The flat `data` envelope
(TimelinesAI's example receivers, medium confidence) is accepted for message events
only; account and chat events come as the spec shows them.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from datetime import timezone as dt_timezone
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError
from pydantic_core import PydanticCustomError

from cerniq.schema_errors import malformed
from cerniq.webhooks import MalformedPayload

MAX_ID = 2**53 - 1
WHATSAPP_TEXT_MAX = 65_536
STRING_MAX = 1_024
URL_MAX = 2_048
CHAT_URL_MAX = 500  # Message.provider_url
MAX_ATTACHMENTS = 32
MAX_LABELS = 100

_TIMESTAMP = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2}) ([0-9]{2}):([0-9]{2}):([0-9]{2}) ([+-])([0-9]{2})([0-9]{2})"
)
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_E164 = re.compile(r"\+[1-9][0-9]{6,14}")
JID_SUFFIX = "@s.whatsapp.net"
_JID = re.compile(r"([1-9][0-9]{6,14})@s\.whatsapp\.net")


def _as_datetime(value: str) -> datetime | None:
    """`YYYY-MM-DD HH:MM:SS ±ZZZZ` as an aware datetime, None unless it is that and a real
    date, time and offset. (Built from the regex's groups: `strptime` cost a fifth of the
    intake's schema check, bench/webhooks.py.)"""
    match = _TIMESTAMP.fullmatch(value)
    if match is None:
        return None
    year, month, day, hour, minute, second, sign, off_h, off_m = match.groups()
    if int(off_h) > 23 or int(off_m) > 59:
        return None
    offset = timedelta(hours=int(off_h), minutes=int(off_m))
    try:
        return datetime(
            int(year),
            int(month),
            int(day),
            int(hour),
            int(minute),
            int(second),
            tzinfo=dt_timezone(-offset if sign == "-" else offset),
        )
    except ValueError:
        return None


def is_timestamp(value: str) -> bool:
    """`YYYY-MM-DD HH:MM:SS ±ZZZZ` and a real date and time."""
    return _as_datetime(value) is not None


def _timestamp(value: str) -> str:
    if is_timestamp(value):
        return value
    raise PydanticCustomError(
        "timestamp", "not a time in the documented format YYYY-MM-DD HH:MM:SS ±ZZZZ"
    )


def _uuid(value: str) -> str:
    value = value.lower()
    if not _UUID.fullmatch(value):
        raise PydanticCustomError("uuid", "not a UUID")
    return value


def _e164(value: str) -> str:
    if not _E164.fullmatch(value):
        raise PydanticCustomError("e164", "not an E.164 phone number (+ and 7 to 15 digits)")
    return value


def _jid(value: str) -> str:
    if not _JID.fullmatch(value):
        raise PydanticCustomError("jid", "not a WhatsApp account JID (<digits>@s.whatsapp.net)")
    return value


def _https(value: str) -> str:
    if not value.startswith("https://") or any(ch.isspace() for ch in value):
        raise PydanticCustomError("https", "not an https URL")
    return value


Timestamp = Annotated[str, Field(max_length=32), AfterValidator(_timestamp)]
Uuid = Annotated[str, Field(max_length=36), AfterValidator(_uuid)]
Phone = Annotated[str, Field(max_length=16), AfterValidator(_e164)]
Jid = Annotated[str, Field(max_length=64), AfterValidator(_jid)]
Url = Annotated[str, Field(max_length=URL_MAX), AfterValidator(_https)]
ChatUrl = Annotated[str, Field(max_length=CHAT_URL_MAX), AfterValidator(_https)]
Id = Annotated[int, Field(ge=1, le=MAX_ID)]
Size = Annotated[int, Field(ge=0, le=MAX_ID)]
Short = Annotated[str, Field(max_length=STRING_MAX)]
Text = Annotated[str, Field(max_length=WHATSAPP_TEXT_MAX)]


class _Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)


# --- Message events: message:received:new, message:sent:new ---------------------------


class Party(_Strict):
    full_name: Short | None = None
    phone: Phone | None = None


class Attachment(_Strict):
    temporary_download_url: Url  # valid about 15 minutes
    filename: Short
    size: Size | None = None
    mimetype: Short | None = None


Attachments = Annotated[list[Attachment], Field(max_length=MAX_ATTACHMENTS)]


class MessageChat(_Strict):
    chat_id: Id
    is_group: bool
    # A direct chat's contact (E.164); a group has no phone, or a group address we never
    # read (checked in `message_event`, once `is_group` is known).
    phone: Short | None = None
    chat_url: ChatUrl | None = None
    full_name: Short | None = None


class MessageAccount(_Strict):
    phone: Phone  # our WhatsApp account
    full_name: Short | None = None


class MessageInfo(_Strict):
    message_uid: Uuid
    direction: Literal["sent", "received"]
    timestamp: Timestamp  # WhatsApp time
    text: Text | None = None  # None for an attachment without caption
    origin: Short | None = None  # free text: "WhatsApp", "Public API", ...
    received_timestamp: Any = None  # never read: any value is kept in the stored body
    reply_to_uid: Uuid | None = None
    sender: Party | None = None
    recipient: Party | None = None
    attachments: Attachments = []


class MessageEvent(_Strict):
    event_type: Literal["message:received:new", "message:sent:new"]
    chat: MessageChat
    whatsapp_account: MessageAccount
    message: MessageInfo


class FlatChat(_Strict):
    id: Id
    whatsapp_account_id: Jid | None = None


class FlatMessage(_Strict):
    """`data` of the flat envelope read by TimelinesAI's example receivers."""

    message_uid: Uuid
    chat_id: Id | None = None
    chat: FlatChat | None = None
    chat_url: ChatUrl | None = None
    text: Text | None = None
    direction: Literal["sent", "received"] | None = None
    from_me: bool | None = None
    sender_phone: Phone | None = None
    sender_name: Short | None = None
    sender: Party | None = None
    recipient_phone: Phone | None = None
    recipient: Party | None = None
    whatsapp_account_id: Jid | None = None
    whatsapp_account_phone: Phone | None = None
    timestamp: Timestamp | None = None
    origin: Short | None = None
    attachments: Attachments | None = None
    attachment_url: Url | None = None
    attachment_filename: Short | None = None


class FlatMessageEvent(_Strict):
    event_type: Literal["message:received:new", "message:sent:new"] | None = None
    data: FlatMessage


# --- Account events: whatsapp:account:{disconnected,suspended,connected,resumed} ------


class Account(_Strict):
    id: Jid
    connected_on: Timestamp
    disconnected_on: Timestamp | None = None
    phone: Phone | None = None  # never used to find the account: `id` is
    status: Short | None = None
    account_name: Short | None = None
    owner_name: Short | None = None
    owner_email: Short | None = None


class AccountEvent(_Strict):
    event_type: Literal[
        "whatsapp:account:disconnected",
        "whatsapp:account:suspended",
        "whatsapp:account:connected",
        "whatsapp:account:resumed",
    ]
    whatsapp_account: Account


# --- chat:new ---------------------------------------------------------------------------


class ChatInfo(_Strict):
    id: Id
    is_group: bool
    whatsapp_account_id: Jid
    created_timestamp: Timestamp
    phone: Short | None = None  # E.164 for a direct chat (checked in `chat_event`)
    name: Short | None = None
    jid: Short | None = None
    chat_url: ChatUrl | None = None
    closed: bool | None = None
    read: bool | None = None
    labels: Annotated[list[Short], Field(max_length=MAX_LABELS)] | None = None


class ChatAccount(_Strict):
    id: Jid | None = None
    phone: Phone | None = None


class ChatEvent(_Strict):
    event_type: Literal["chat:new"]
    chat: ChatInfo
    whatsapp_account: ChatAccount | None = None


# --- Validation -------------------------------------------------------------------------

NESTED_KEYS = ("chat", "message", "whatsapp_account")


def is_flat(payload: dict[str, Any]) -> bool:
    """The `data` envelope: a `data` key and none of the spec's top-level objects."""
    return "data" in payload and not any(key in payload for key in NESTED_KEYS)


def validate(model: type[_Strict], payload: dict[str, Any], event_type: str) -> Any:
    """`model` validated from `payload`, or MalformedPayload naming the first bad field."""
    try:
        return model.model_validate(payload, strict=True)
    except ValidationError as exc:
        raise malformed(exc, event_type=event_type) from None


def refuse(field: str, problem: str, event_type: str) -> MalformedPayload:
    return MalformedPayload(field=field, problem=problem, event_type=event_type)


def check_phone(value: str | None, field: str, event_type: str) -> None:
    if value is not None and not _E164.fullmatch(value):
        raise refuse(field, "not an E.164 phone number (+ and 7 to 15 digits)", event_type)


def phone_of_jid(jid: str) -> str:
    match = _JID.fullmatch(jid)
    return f"+{match.group(1)}" if match else ""


def jid_of_phone(phone: str) -> str:
    return f"{phone[1:]}{JID_SUFFIX}" if _E164.fullmatch(phone) else ""


def parse_time(value: str | None) -> datetime | None:
    """A validated `Timestamp` as an aware datetime."""
    return _as_datetime(value) if value else None
