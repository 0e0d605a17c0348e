"""Strict schema of Instantly's webhook payloads (docs/providers.md §2.4; developer.instantly.ai
"webhook events"), checked at the door (`InstantlyReceiver.identify`) for every handled event.

One flat object per event: `timestamp`, `event_type`, `workspace`, `campaign_id`,
`campaign_name`, then per event `lead_email`, `email_account`, `step`, `variant`,
`is_first`, `email_id`, the sent email (`email_subject`/`email_text`/`email_html`) and the
reply (`reply_subject`/`reply_text`/`reply_html`/`reply_text_snippet`, `unibox_url`).

Pydantic v2 in strict mode: a JSON string is never read as a number ("1") or a boolean
("true"). Instantly adds the workspace's own lead columns as extra top-level keys, so
unknown keys are allowed, but bounded: at most MAX_EXTRA_KEYS of them, names of at most
100 characters, values scalars or small objects (depth ≤ 3, strings ≤ 10,000 characters).
What we read is typed and bounded: ids are UUIDs, addresses are addresses
(email_channels.addresses: internationalised ones included), the timestamp is ISO 8601 with
its zone, texts are ≤ 1,000,000 characters. What we never read is accepted whatever it holds
and kept in the stored body: `workspace`, `unibox_url`, `variant`, `is_first` and the sent
email (`email_subject`, `email_text`, `email_html`).

Required per event (`REQUIRED`): what we need to act on it. A payload that breaks this
raises `MalformedPayload(field=..., problem=...)`: answered 400 naming the field, stored
MALFORMED, never processed.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError
from pydantic_core import PydanticCustomError

from cerniq.schema_errors import malformed
from cerniq.webhooks import MalformedPayload
from email_channels.addresses import is_email

TEXT_MAX = 1_000_000
SHORT_MAX = 2_000
MAX_EXTRA_KEYS = 200
EXTRA_KEY_MAX = 100
EXTRA_STRING_MAX = 10_000
EXTRA_DEPTH = 3

_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_ISO = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?(Z|[+-][0-9]{2}:[0-9]{2})"
)


def parse_timestamp(value: str) -> datetime | None:
    """`2026-05-18T07:48:35.000Z` (or with an offset) as an aware datetime, else None."""
    if not isinstance(value, str) or not _ISO.fullmatch(value):
        return None
    text = value[:-1] + "+00:00" if value.endswith("Z") else value
    head, _, rest = text.partition(".")
    if rest:  # Python reads at most 6 fractional digits
        digits = re.match(r"[0-9]+", rest).group(0)  # type: ignore[union-attr]
        text = f"{head}.{digits[:6].ljust(6, '0')}{rest[len(digits) :]}"
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        return None


def _timestamp(value: str) -> str:
    if parse_timestamp(value) is None:
        raise PydanticCustomError("timestamp", "not an ISO 8601 time with its zone")
    return value


def _uuid(value: str) -> str:
    if not _UUID.fullmatch(value):
        raise PydanticCustomError("uuid", "not a UUID")
    return value.lower()


def _email(value: str) -> str:
    if not is_email(value):
        raise PydanticCustomError("email", "not an email address")
    return value


Timestamp = Annotated[str, Field(max_length=40), AfterValidator(_timestamp)]
Uuid = Annotated[str, Field(max_length=36), AfterValidator(_uuid)]
Email = Annotated[str, Field(max_length=254), AfterValidator(_email)]
Short = Annotated[str, Field(max_length=SHORT_MAX)]
Text = Annotated[str, Field(max_length=TEXT_MAX)]
Count = Annotated[int, Field(ge=0, le=10_000)]
Unread = Any  # never read: accepted whatever it holds, kept in the stored body


class InstantlyEvent(BaseModel):
    """Every field Instantly documents; which of them an event needs is `REQUIRED`."""

    model_config = ConfigDict(strict=True, extra="allow", frozen=True)

    event_type: Annotated[str, Field(min_length=1, max_length=100)]
    timestamp: Timestamp
    workspace: Unread = None
    campaign_id: Uuid | None = None
    campaign_name: Short | None = None
    lead_email: Email | None = None
    email_account: Email | None = None
    unibox_url: Unread = None
    step: Count | None = None
    variant: Unread = None
    is_first: Unread = None
    email_id: Uuid | None = None
    email_subject: Unread = None
    email_text: Unread = None
    email_html: Unread = None
    reply_text_snippet: Text | None = None
    reply_subject: Short | None = None
    reply_text: Text | None = None
    reply_html: Text | None = None

    @property
    def at(self) -> datetime:
        return parse_timestamp(self.timestamp)  # type: ignore[return-value]


_LEAD = ("campaign_id", "lead_email")
REQUIRED: dict[str, tuple[str, ...]] = {
    "email_sent": (*_LEAD, "email_id"),
    "email_opened": _LEAD,
    "link_clicked": _LEAD,
    "reply_received": (*_LEAD, "email_id"),
    "auto_reply_received": (*_LEAD, "email_id"),
    "email_bounced": _LEAD,
    "lead_unsubscribed": ("lead_email",),
    "account_error": (),
    "campaign_completed": ("campaign_id",),
    "lead_interested": _LEAD,
    "lead_not_interested": _LEAD,
    "lead_meeting_booked": _LEAD,
    "lead_meeting_completed": _LEAD,
    "lead_closed": _LEAD,
}


def refuse(field: str, problem: str, event_type: str = "") -> MalformedPayload:
    return MalformedPayload(field=field, problem=problem, event_type=event_type)


def _check_extra(value: Any, path: str, depth: int, event_type: str) -> None:
    if isinstance(value, str):
        if len(value) > EXTRA_STRING_MAX:
            raise refuse(path, f"longer than {EXTRA_STRING_MAX} characters", event_type)
    elif isinstance(value, dict | list):
        if depth >= EXTRA_DEPTH:
            raise refuse(path, f"lead columns nested deeper than {EXTRA_DEPTH} levels", event_type)
        if len(value) > MAX_EXTRA_KEYS:
            raise refuse(path, f"more than {MAX_EXTRA_KEYS} items", event_type)
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for key, item in items:
            _check_extra(
                item,
                f"{path}.{key}" if isinstance(key, str) else f"{path}[{key}]",
                depth + 1,
                event_type,
            )


def validate(payload: dict[str, Any]) -> InstantlyEvent:
    """The payload as an InstantlyEvent, or MalformedPayload naming the first bad field."""
    raw_type = payload.get("event_type")
    event_type = raw_type if isinstance(raw_type, str) else ""
    try:
        event = InstantlyEvent.model_validate(payload, strict=True)
    except ValidationError as exc:
        raise malformed(exc, event_type=event_type) from None
    extra = event.model_extra or {}
    if len(extra) > MAX_EXTRA_KEYS:
        raise refuse("(body)", f"more than {MAX_EXTRA_KEYS} extra lead columns", event_type)
    for key, value in extra.items():
        if len(key) > EXTRA_KEY_MAX:
            raise refuse(
                key[:40] + "…", f"a key longer than {EXTRA_KEY_MAX} characters", event_type
            )
        _check_extra(value, key, 0, event_type)
    for name in REQUIRED.get(event.event_type, ()):
        if getattr(event, name) is None:
            raise refuse(name, "missing", event_type)
    return event
