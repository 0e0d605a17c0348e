"""Strict schemas of the Resend webhooks we act on (docs/providers.md §3.4; Resend's OpenAPI,
`OutboundEmailEventData`).

Checked at the door (`ResendReceiver.identify`) before anything is stored as accepted.
Pydantic v2 in strict mode: nothing is coerced (a number is never read as a string, a
string never as a list). Unknown keys are allowed and not read (Resend adds fields); every
field we read is typed and bounded:

- the envelope is `{"type", "created_at", "data"}`; `created_at` is ISO 8601 with a time
  zone (`2026-08-01T10:00:00.000Z`, `2026-08-01T10:00:00.123456+00:00`) and a real date;
- `data.email_id` is a UUID (what `POST /emails` answered and we stored), compared lowercase;
- `data.to` holds 1 to 50 valid addresses (Resend's own limit), `data.from` is
  `Name <address>` or an address;
- `data.tags` is an object of strings (a map here, unlike the list we send), at most 50,
  names and values at most 256 characters;
- the event's own object: `bounce.type` is Permanent / Transient / Undetermined (we decide
  hard or soft on it), `suppressed.reason` previous_bounce / previous_complaint (we decide
  bounce or complaint on it), `failed.reason` a string, `click.link` a URL.

A new value of a field we decide on is refused (400, MALFORMED, never processed) rather
than guessed: the row keeps it for whoever adds it. Other strings are bounded only.
"""

from __future__ import annotations

import ipaddress
import re
from datetime import datetime
from email.utils import parseaddr
from typing import Annotated, Any, Literal

from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.validators import validate_email
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError
from pydantic_core import PydanticCustomError

from cerniq.schema_errors import malformed
from cerniq.webhooks import MalformedPayload

STRING_MAX = 1_024
SUBJECT_MAX = 2_048
TEXT_MAX = 10_000  # a bounce's diagnostic text, a user agent
URL_MAX = 8_192  # a clicked link keeps its tracking query
EMAIL_MAX = 254  # RFC 5321 path limit
TAG_MAX = 256  # Resend's own limit for a tag's name and value
MAX_TAGS = 50
MAX_RECIPIENTS = 50  # Resend's `to` limit
MAX_LIST = 50

_ISO = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?"
    r"(Z|[+-][0-9]{2}(:?[0-9]{2})?)"
)
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def parse_time(value: str) -> datetime | None:
    """ISO 8601 with a time zone, as an aware datetime; None unless it is that and real."""
    if not _ISO.fullmatch(value):
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else None


def _timestamp(value: str) -> str:
    if parse_time(value) is None:
        raise PydanticCustomError("timestamp", "not an ISO 8601 time with a time zone")
    return value


def _uuid(value: str) -> str:
    value = value.lower()
    if not _UUID.fullmatch(value):
        raise PydanticCustomError("uuid", "not a UUID")
    return value


def is_email(value: str) -> bool:
    if len(value) > EMAIL_MAX or value != value.strip():
        return False
    try:
        validate_email(value)
    except DjangoValidationError:
        return False
    return True


def _email(value: str) -> str:
    if not is_email(value):
        raise PydanticCustomError("email", "not an email address")
    return value


def _sender(value: str) -> str:
    """`Name <address>` or a bare address (what we sent as `from`)."""
    _, address = parseaddr(value)
    if not address or not is_email(address):
        raise PydanticCustomError("sender", "not an address or 'Name <address>'")
    return value


def _url(value: str) -> str:
    if not value.startswith(("https://", "http://")) or any(ch.isspace() for ch in value):
        raise PydanticCustomError("url", "not an http(s) URL")
    return value


def _ip(value: str) -> str:
    try:
        ipaddress.ip_address(value)
    except ValueError:
        raise PydanticCustomError("ip", "not an IP address") from None
    return value


Timestamp = Annotated[str, Field(max_length=40), AfterValidator(_timestamp)]
Uuid = Annotated[str, Field(max_length=36), AfterValidator(_uuid)]
Email = Annotated[str, Field(max_length=EMAIL_MAX), AfterValidator(_email)]
Sender = Annotated[str, Field(max_length=STRING_MAX), AfterValidator(_sender)]
Url = Annotated[str, Field(max_length=URL_MAX), AfterValidator(_url)]
Ip = Annotated[str, Field(max_length=45), AfterValidator(_ip)]
Short = Annotated[str, Field(max_length=STRING_MAX)]
Text = Annotated[str, Field(max_length=TEXT_MAX)]
TagText = Annotated[str, Field(max_length=TAG_MAX)]


class _Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)


class Header(_Strict):
    name: Short
    value: Text


class EmailData(_Strict):
    """`data` of every outbound email event (`OutboundEmailEventData`)."""

    email_id: Uuid
    created_at: Timestamp
    from_: Sender = Field(alias="from")
    to: Annotated[list[Email], Field(min_length=1, max_length=MAX_RECIPIENTS)]
    subject: Annotated[str, Field(max_length=SUBJECT_MAX)]
    broadcast_id: Short | None = None
    template_id: Short | None = None
    tags: Annotated[dict[TagText, TagText], Field(max_length=MAX_TAGS)] | None = None
    headers: Annotated[list[Header], Field(max_length=MAX_LIST)] | None = None


class Bounce(_Strict):
    type: Literal["Permanent", "Transient", "Undetermined"]
    subType: Short  # noqa: N815 (Resend's name) — General, NoEmail, MailboxFull, …
    message: Text | None = None
    diagnosticCode: Annotated[list[Text], Field(max_length=MAX_LIST)] | None = None  # noqa: N815


class BouncedData(EmailData):
    bounce: Bounce


class Click(_Strict):
    link: Url
    timestamp: Timestamp
    ipAddress: Ip | None = None  # noqa: N815
    userAgent: Text | None = None  # noqa: N815


class ClickedData(EmailData):
    click: Click


class Failed(_Strict):
    reason: Short  # e.g. "reached_daily_quota"


class FailedData(EmailData):
    failed: Failed


class Suppressed(_Strict):
    type: Short  # "Suppressed" | "OnAccountSuppressionList": where, not what we do
    reason: Literal["previous_bounce", "previous_complaint"]
    message: Text | None = None
    diagnosticCode: Annotated[list[Text], Field(max_length=MAX_LIST)] | None = None  # noqa: N815


class SuppressedData(EmailData):
    suppressed: Suppressed


DATA_MODELS: dict[str, type[EmailData]] = {
    "email.sent": EmailData,
    "email.delivered": EmailData,
    "email.delivery_delayed": EmailData,
    "email.complained": EmailData,
    "email.opened": EmailData,
    "email.bounced": BouncedData,
    "email.clicked": ClickedData,
    "email.failed": FailedData,
    "email.suppressed": SuppressedData,
}


class Envelope(_Strict):
    type: Short
    created_at: Timestamp
    data: dict[str, Any]


# --- Validation -------------------------------------------------------------------------


def _validate(model: type[_Strict], value: Any, prefix: str, event_type: str) -> Any:
    try:
        return model.model_validate(value, strict=True, by_alias=True)
    except ValidationError as exc:
        raise malformed(exc, event_type=event_type, prefix=prefix) from None


def event_type_of(payload: dict[str, Any]) -> str:
    event_type = payload.get("type")
    if not isinstance(event_type, str) or not event_type.strip():
        raise MalformedPayload(field="type", problem="missing or not a string")
    return event_type


def validate(payload: dict[str, Any]) -> tuple[Envelope, EmailData]:
    """The envelope and its `data` for a handled event type, or MalformedPayload naming
    the first bad field (`data.bounce.type`)."""
    event_type = event_type_of(payload)
    envelope = _validate(Envelope, payload, "", event_type)
    model = DATA_MODELS.get(event_type)
    if model is None:
        raise MalformedPayload(field="type", problem="not a handled event", event_type=event_type)
    return envelope, _validate(model, envelope.data, "data", event_type)
