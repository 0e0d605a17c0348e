"""Schemas of the Resend webhooks we act on (docs/providers.md §3.4, §3.5; Resend's OpenAPI,
`OutboundEmailEventData`, `EmailReceivedEventData`).

Checked at the door (`ResendReceiver.identify`) before anything is stored as accepted.
Strict where the product reads and acts, tolerant elsewhere:

- read and acted on, typed in pydantic's strict mode (nothing coerced) and bounded: the
  envelope's `created_at` (when a delivery or an open happened; ISO 8601 with a zone in any
  of the forms Resend's docs show), `data.email_id` (a UUID for our sends, an id safe in a
  URL path for received mail), `data.to` (addresses: internationalised ones included,
  email_channels.addresses), `data.tags` (the tenant tag), `data.message_id` (threading),
  the sender of received mail, `bounce.type` / `subType` / `message` / `diagnosticCode`,
  `failed.reason`, `suppressed.reason` / `message`. A new value of a field we decide on
  (`bounce.type`, `suppressed.reason`) is refused (400, MALFORMED, never processed) rather
  than guessed: the row keeps it for whoever adds it.
- never read, accepted whatever they hold and kept in the stored body: `data.created_at`
  of our sends, `from`, `subject`, `broadcast_id`, `template_id`, `headers`, the whole
  `click` object (its `link` is inert data: nothing renders it as a link, so a
  `javascript:` one is stored, not refused), `suppressed.type`, attachments' metadata.

Unknown keys are allowed and not read (Resend adds fields).
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError
from pydantic_core import PydanticCustomError

from cerniq.schema_errors import malformed
from cerniq.webhooks import MalformedPayload
from email_channels.addresses import EMAIL_MAX, address_in
from email_channels.addresses import is_email as is_email

STRING_MAX = 1_024
TEXT_MAX = 10_000  # a bounce's diagnostic text
TAG_MAX = 256  # Resend's own limit for a tag's name and value
MAX_TAGS = 50
MAX_RECIPIENTS = 50  # Resend's `to` limit for our sends
MAX_LIST = 50
MAX_INBOUND_RECIPIENTS = 1_000  # mail we receive may be copied to many
MESSAGE_ID_MAX = 998  # an RFC 5322 header line

_ISO = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?"
    r"(Z|[+-][0-9]{2}(:?[0-9]{2})?)"
)
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_RECEIVED_ID = re.compile(r"[A-Za-z0-9_-]{1,100}")  # goes into GET /emails/receiving/{id}
_MESSAGE_ID = re.compile(r"[^\s\x00-\x1f\x7f]{3,998}")


def parse_time(value: object) -> datetime | None:
    """ISO 8601 with a time zone, as an aware datetime; None unless it is that and real."""
    if not isinstance(value, str) or not _ISO.fullmatch(value):
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


def _received_id(value: str) -> str:
    if not _RECEIVED_ID.fullmatch(value):
        raise PydanticCustomError("email_id", "not an id (letters, digits, '-', '_')")
    return value


def _email(value: str) -> str:
    if not is_email(value):
        raise PydanticCustomError("email", "not an email address")
    return value


def _sender(value: str) -> str:
    """`Name <address>` or a bare address."""
    if not address_in(value):
        raise PydanticCustomError("sender", "not an address or 'Name <address>'")
    return value


def _message_id(value: str) -> str:
    """A Message-ID header value: one line without spaces (it may go into an In-Reply-To
    header of our answer, so nothing that could break a header block)."""
    if not _MESSAGE_ID.fullmatch(value):
        raise PydanticCustomError("message_id", "not a Message-ID (one word, no spaces)")
    return value


Timestamp = Annotated[str, Field(max_length=40), AfterValidator(_timestamp)]
Uuid = Annotated[str, Field(max_length=36), AfterValidator(_uuid)]
ReceivedId = Annotated[str, Field(max_length=100), AfterValidator(_received_id)]
Email = Annotated[str, Field(max_length=EMAIL_MAX), AfterValidator(_email)]
Sender = Annotated[str, Field(max_length=STRING_MAX), AfterValidator(_sender)]
MessageId = Annotated[str, Field(max_length=MESSAGE_ID_MAX), AfterValidator(_message_id)]
Short = Annotated[str, Field(max_length=STRING_MAX)]
Text = Annotated[str, Field(max_length=TEXT_MAX)]
TagText = Annotated[str, Field(max_length=TAG_MAX)]
Unread = Any  # never read: accepted whatever it holds, kept in the stored body


class _Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)


class EventData(_Strict):
    """What every `data` we act on has: the email's id at Resend."""

    email_id: str


class EmailData(EventData):
    """`data` of every outbound email event (`OutboundEmailEventData`)."""

    email_id: Uuid
    to: Annotated[list[Email], Field(min_length=1, max_length=MAX_RECIPIENTS)]
    tags: Annotated[dict[TagText, TagText], Field(max_length=MAX_TAGS)] | None = None
    # Our email's own Message-ID: in newer payloads only (Resend's Node types), then kept
    # as the thread a reply's In-Reply-To / References can name (receiver.py).
    message_id: MessageId | None = None
    created_at: Unread = None
    from_: Unread = Field(default=None, alias="from")
    subject: Unread = None
    broadcast_id: Unread = None
    template_id: Unread = None
    headers: Unread = None


class Bounce(_Strict):
    type: Literal["Permanent", "Transient", "Undetermined"]
    subType: Short  # noqa: N815 (Resend's name) — General, NoEmail, MailboxFull, …
    message: Text | None = None
    diagnosticCode: Annotated[list[Text], Field(max_length=MAX_LIST)] | None = None  # noqa: N815


class BouncedData(EmailData):
    bounce: Bounce


class ClickedData(EmailData):
    # A click only moves the email to READ. The object, its `link` included, is inert data:
    # stored with the event, never rendered as a link, so any value is accepted.
    click: Unread = None


class Failed(_Strict):
    reason: Short  # e.g. "reached_daily_quota"


class FailedData(EmailData):
    failed: Failed


class Suppressed(_Strict):
    reason: Literal["previous_bounce", "previous_complaint"]
    message: Text | None = None
    type: Unread = None  # "Suppressed" | "OnAccountSuppressionList": where, not what we do
    diagnosticCode: Unread = None  # noqa: N815


class SuppressedData(EmailData):
    suppressed: Suppressed


class ReceivedData(EventData):
    """`data` of `email.received`: metadata only, the body is fetched (inbound.py)."""

    email_id: ReceivedId
    from_: Sender = Field(alias="from")
    to: Annotated[list[Short], Field(max_length=MAX_INBOUND_RECIPIENTS)]
    cc: Annotated[list[Short], Field(max_length=MAX_INBOUND_RECIPIENTS)] | None = None
    bcc: Annotated[list[Short], Field(max_length=MAX_INBOUND_RECIPIENTS)] | None = None
    received_for: Annotated[list[Short], Field(max_length=MAX_INBOUND_RECIPIENTS)] | None = None
    message_id: MessageId
    subject: str = ""  # stored (cut to the column), never decided on
    created_at: Unread = None  # read leniently: a time we cannot read falls back
    attachments: Unread = None

    @property
    def recipients(self) -> list[str]:
        return [*self.to, *(self.cc or ()), *(self.bcc or ()), *(self.received_for or ())]


DATA_MODELS: dict[str, type[EventData]] = {
    "email.sent": EmailData,
    "email.delivered": EmailData,
    "email.delivery_delayed": EmailData,
    "email.complained": EmailData,
    "email.opened": EmailData,
    "email.bounced": BouncedData,
    "email.clicked": ClickedData,
    "email.failed": FailedData,
    "email.suppressed": SuppressedData,
    "email.received": ReceivedData,
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


def validate(payload: dict[str, Any]) -> tuple[Envelope, Any]:
    """The envelope and its `data` for a handled event type, or MalformedPayload naming
    the first bad field (`data.bounce.type`)."""
    event_type = event_type_of(payload)
    envelope = _validate(Envelope, payload, "", event_type)
    model = DATA_MODELS.get(event_type)
    if model is None:
        raise MalformedPayload(field="type", problem="not a handled event", event_type=event_type)
    return envelope, _validate(model, envelope.data, "data", event_type)
