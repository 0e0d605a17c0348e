"""Strict schemas of the Mailchimp webhook events we act on (Mailchimp's list webhooks:
`type`, `fired_at`, `data[…]`, form-encoded; formdata.py has made them nested dicts).

Checked at the door (`MailchimpReceiver.identify`) before anything is stored as accepted.
Every value of a form is a string; pydantic in strict mode reads each field we use as the
string it must be, bounded:

- `fired_at` is `YYYY-MM-DD HH:MM:SS` and a real date and time;
- `list_id` is Mailchimp's audience id (letters and digits, at most 32);
- addresses are addresses (at most 254 characters);
- `data[action]` of an unsubscribe is `unsub` or `delete`, `data[reason]` of a cleaned
  address `hard` or `abuse`;
- other strings at most 1,024 characters; unknown fields are allowed and not read.

There is no event id: one occurrence is `type + list + address + fired_at` (`dedupe_key`).
"""

from __future__ import annotations

import hashlib
import re
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError
from pydantic_core import PydanticCustomError

from cerniq.schema_errors import malformed
from email_channels.addresses import EMAIL_MAX, is_email
from integrations.mailchimp.client import subscriber_hash

STRING_MAX = 1_024
_KEY_MAX = 255  # WebhookEvent.provider_event_id
_FIRED_AT = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}")
_LIST_ID = re.compile(r"[A-Za-z0-9]{1,32}")


def _fired_at(value: str) -> str:
    try:
        valid = bool(_FIRED_AT.fullmatch(value)) and bool(
            datetime.strptime(value, "%Y-%m-%d %H:%M:%S")  # noqa: DTZ007 (never a moment)
        )
    except ValueError:
        valid = False
    if not valid:
        raise PydanticCustomError("fired_at", "not a time as YYYY-MM-DD HH:MM:SS")
    return value


def _list_id(value: str) -> str:
    if not _LIST_ID.fullmatch(value):
        raise PydanticCustomError("list_id", "not a Mailchimp audience id")
    return value


def _email(value: str) -> str:
    if not is_email(value):
        raise PydanticCustomError("email", "not an email address")
    return value


FiredAt = Annotated[str, Field(max_length=19), AfterValidator(_fired_at)]
ListId = Annotated[str, Field(max_length=32), AfterValidator(_list_id)]
Email = Annotated[str, Field(max_length=EMAIL_MAX), AfterValidator(_email)]
Text = Annotated[str, Field(max_length=STRING_MAX)]


class _Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)


class MemberData(_Strict):
    list_id: ListId
    email: Email
    id: Text = ""
    email_type: Text = ""
    merges: dict[str, Any] = Field(default_factory=dict)


class UnsubscribeData(MemberData):
    action: Literal["unsub", "delete"]
    reason: Text = ""  # "manual", or "abuse": a spam complaint
    campaign_id: Text = ""


class CleanedData(_Strict):
    list_id: ListId
    email: Email
    reason: Literal["hard", "abuse"]
    campaign_id: Text = ""


class UpemailData(_Strict):
    list_id: ListId
    old_email: Email
    new_email: Email
    new_id: Text = ""


class SubscribeEvent(_Strict):
    type: Literal["subscribe"]
    fired_at: FiredAt
    data: MemberData


class UnsubscribeEvent(_Strict):
    type: Literal["unsubscribe"]
    fired_at: FiredAt
    data: UnsubscribeData


class CleanedEvent(_Strict):
    type: Literal["cleaned"]
    fired_at: FiredAt
    data: CleanedData


class UpemailEvent(_Strict):
    type: Literal["upemail"]
    fired_at: FiredAt
    data: UpemailData


MailchimpEvent = SubscribeEvent | UnsubscribeEvent | CleanedEvent | UpemailEvent
SCHEMAS: dict[str, type[MailchimpEvent]] = {
    "subscribe": SubscribeEvent,
    "unsubscribe": UnsubscribeEvent,
    "cleaned": CleanedEvent,
    "upemail": UpemailEvent,
}


def validate(payload: dict[str, Any]) -> MailchimpEvent:
    """The handled event, checked (MalformedPayload naming the first bad field)."""
    event_type = str(payload.get("type") or "")
    schema = SCHEMAS[event_type]
    try:
        return schema.model_validate(payload)
    except ValidationError as exc:
        raise malformed(exc, event_type=event_type) from None


def address_of(event: MailchimpEvent) -> str:
    """The address the event is about (the old one of an address change), lower-cased."""
    data = event.data
    email = data.old_email if isinstance(data, UpemailData) else data.email
    return email.strip().lower()


def dedupe_key(event: MailchimpEvent) -> str:
    """`<type>:<list_id>:<subscriber hash>:<fired_at>`: a retry of one delivery is a
    duplicate, the same thing happening again later is not. The address is there as
    Mailchimp's own member hash (never the address itself: the key outlives an erasure).
    Hashed after the type when too long."""
    member = subscriber_hash(address_of(event))
    key = f"{event.type}:{event.data.list_id}:{member}:{event.fired_at}"
    if len(key) <= _KEY_MAX:
        return key
    return f"{event.type}:sha256:{hashlib.sha256(key.encode()).hexdigest()}"
