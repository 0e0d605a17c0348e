"""TimelinesAI webhooks (docs/providers.md §1.5).

TimelinesAI signs nothing and sends no custom headers, so the URL registered with it
carries the tenant's secret: `/webhooks/timelinesai/<Tenant.webhook_token>/`, compared
in constant time. A wrong secret is answered 404, as TimelinesAI's own example receiver
does, so the endpoint does not even confirm it exists.

Every handled event is checked against a strict schema at the door (`identify`,
integrations/timelinesai/schemas.py): a payload that breaks it is answered 400 naming the
field and the problem, kept as a MALFORMED row and never processed. Events of other types
are stored IGNORED (200) without a schema check; the intake's JSON rules (no NUL, no lone
surrogate, no NaN, bounded depth and size) apply to them too.

Two envelopes are in circulation for message events and both are accepted (docs/providers.md
§1.5, "Envelope conflict"): the spec's top-level `chat` / `message` / `whatsapp_account`
objects, and `{"event_type": ..., "data": {flat keys}}` read by TimelinesAI's own example
receivers (`data.chat_id ?? data.chat.id`). Both normalise to the same frozen dataclasses
below. Account and `chat:new` events are read only as the spec shows them.

No delivery id is sent, so the dedupe key is built from the event (`identify`, then
`dedupe_key` once the tenant is known):

- messages: `<event_type>:<message_uid>` (the uid lowercase);
- `chat:new`: `chat:new:<account JID>:<chat id>` (a chat is new once);
- account events: `<event_type>:<account JID>:<its own time>`, where its own time is
  `connected_on` for `connected`, and `disconnected_on` for `disconnected` / `suspended`
  when it is later than `connected_on`. A retry carries the same time (a duplicate), a
  later occurrence a new one. `resumed`, and a disconnect or suspension without a time of
  its own (TimelinesAI sends none for a suspension), are keyed by `connected_on` and by
  the last stored event of another type for the same account (`:after:<row id>`): the
  same body again with nothing in between is a retry; after a resume (or any other event
  of the account) it is a new suspension.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from django.utils.module_loading import import_string

from cerniq.models import Tenant, WebhookEvent
from cerniq.webhooks import MalformedPayload, Receiver, tenant_for_url_token
from integrations.timelinesai import schemas

if TYPE_CHECKING:  # DRF's request: workers importing this need none of DRF
    from rest_framework.request import Request

log = logging.getLogger(__name__)

MESSAGE_EVENTS = frozenset({"message:received:new", "message:sent:new"})
ACCOUNT_EVENTS = frozenset(
    {
        "whatsapp:account:disconnected",
        "whatsapp:account:suspended",
        "whatsapp:account:connected",
        "whatsapp:account:resumed",
    }
)
CHAT_EVENTS = frozenset({"chat:new"})
OFFLINE_EVENTS = frozenset({"whatsapp:account:disconnected", "whatsapp:account:suspended"})

# Dispatch table; the handlers are imported when an event is handled (others own them).
HANDLERS: dict[str, str] = {
    "message:received:new": "integrations.timelinesai.inbound.handle_received",
    "message:sent:new": "integrations.timelinesai.inbound.handle_sent",
    "chat:new": "integrations.timelinesai.inbound.handle_chat_new",
    **{
        event_type: "integrations.timelinesai.status_sync.handle_account_event"
        for event_type in ACCOUNT_EVENTS
    },
}

JID_SUFFIX = schemas.JID_SUFFIX
MAX_BODY_BYTES = 512 * 1024


@dataclass(frozen=True)
class WhatsAppMessageEvent:
    """`message:received:new` / `message:sent:new`, whichever envelope it came in."""

    event_type: str
    message_uid: str
    chat_id: str
    chat_url: str
    direction: str  # "received" | "sent", relative to our WhatsApp account
    text: str  # "" for an attachment without caption
    sender_phone: str
    sender_name: str
    recipient_phone: str
    account_phone: str  # our WhatsApp account (the phone that received or sent)
    timestamp: datetime | None  # WhatsApp time, timezone-aware (None: not sent, flat only)
    origin: str  # free text: "WhatsApp", "Public API", ...
    attachments: tuple[dict, ...] = ()  # temporary_download_url (~15 min), filename, ...
    account_id: str = ""  # our account's JID, "40740000101@s.whatsapp.net"


@dataclass(frozen=True)
class WhatsAppAccountEvent:
    """`whatsapp:account:{disconnected,suspended,connected,resumed}`."""

    event_type: str
    account_id: str  # JID, "40740000101@s.whatsapp.net": the only thing that finds a phone
    phone: str  # as sent ("" when absent); never used to find the phone
    status: str
    at: str  # the event's own time as sent (see the module docstring), "" when it has none
    connected_on: str = ""


@dataclass(frozen=True)
class WhatsAppChatEvent:
    """`chat:new`: a chat appeared on one of our accounts."""

    event_type: str
    chat_id: str
    chat_url: str
    is_group: bool
    contact_phone: str  # E.164 of a direct chat's contact, "" for a group
    account_id: str  # JID of the account that owns the chat
    created: datetime


def parse_timestamp(value: str) -> datetime | None:
    """TimelinesAI's "YYYY-MM-DD HH:MM:SS ±ZZZZ" as an aware datetime; None otherwise."""
    if not value or not schemas.is_timestamp(value):
        return None
    return schemas.parse_time(value)


def event_type_of(payload: dict[str, Any]) -> str:
    event_type = payload.get("event_type")
    if event_type is None:
        data = payload.get("data")
        event_type = data.get("event_type") if isinstance(data, dict) else None
    if not isinstance(event_type, str) or not event_type.strip():
        raise MalformedPayload(field="event_type", problem="missing or not a string")
    return event_type.strip()


# --- Parsers (each validates first: schemas.py) ----------------------------------------


def _fill_parties(
    direction: str, sender: str, recipient: str, contact: str, account: str
) -> tuple[str, str]:
    """An envelope may leave the parties out: fill them from the chat and our account."""
    if direction == "received":
        return sender or contact, recipient or account
    return sender or account, recipient or contact


def _attachments(items: list[schemas.Attachment] | None) -> tuple[dict, ...]:
    return tuple(item.model_dump(exclude_none=True) for item in items or ())


def parse_message(payload: dict[str, Any]) -> WhatsAppMessageEvent:
    event_type = event_type_of(payload)
    if schemas.is_flat(payload):
        return _parse_flat_message(payload, event_type)
    event = schemas.validate(schemas.MessageEvent, payload, event_type)
    chat, message = event.chat, event.message
    if not chat.is_group:
        schemas.check_phone(chat.phone, "chat.phone", event_type)
    if event_type == "message:sent:new" and message.direction != "sent":
        raise schemas.refuse(
            "message.direction", f"{message.direction!r} in a message:sent:new event", event_type
        )
    contact = "" if chat.is_group else (chat.phone or "")
    account_phone = event.whatsapp_account.phone
    sender = message.sender or schemas.Party()
    recipient = message.recipient or schemas.Party()
    sender_phone, recipient_phone = _fill_parties(
        message.direction, sender.phone or "", recipient.phone or "", contact, account_phone
    )
    return WhatsAppMessageEvent(
        event_type=event_type,
        message_uid=message.message_uid,
        chat_id=str(chat.chat_id),
        chat_url=chat.chat_url or "",
        direction=message.direction,
        text=(message.text or "").strip(),
        sender_phone=sender_phone,
        sender_name=(sender.full_name or "").strip(),
        recipient_phone=recipient_phone,
        account_phone=account_phone,
        timestamp=schemas.parse_time(message.timestamp),
        origin=(message.origin or "").strip(),
        attachments=_attachments(message.attachments),
        account_id=schemas.jid_of_phone(account_phone),
    )


def _parse_flat_message(payload: dict[str, Any], event_type: str) -> WhatsAppMessageEvent:
    data = schemas.validate(schemas.FlatMessageEvent, payload, event_type).data
    chat = data.chat
    if data.chat_id is None and chat is None:
        raise schemas.refuse("data.chat_id", "missing", event_type)
    if data.chat_id is not None and chat is not None and chat.id != data.chat_id:
        raise schemas.refuse("data.chat.id", "differs from data.chat_id", event_type)
    chat_id = data.chat_id if data.chat_id is not None else chat.id
    direction = data.direction
    if direction is None and data.from_me is not None:
        direction = "sent" if data.from_me else "received"
    if direction is None:
        direction = "sent" if event_type == "message:sent:new" else "received"
    if event_type == "message:sent:new" and direction != "sent":
        raise schemas.refuse("data.direction", "not 'sent' in a message:sent:new event", event_type)
    account_id = data.whatsapp_account_id or (chat.whatsapp_account_id if chat else None) or ""
    account_phone = data.whatsapp_account_phone or schemas.phone_of_jid(account_id)
    sender = data.sender or schemas.Party()
    recipient = data.recipient or schemas.Party()
    sender_phone, recipient_phone = _fill_parties(
        direction,
        data.sender_phone or sender.phone or "",
        data.recipient_phone or recipient.phone or "",
        "",
        account_phone,
    )
    if data.attachments is not None:
        files = _attachments(data.attachments)
    elif data.attachment_url:
        files = (
            {
                "temporary_download_url": data.attachment_url,
                "filename": data.attachment_filename or "",
            },
        )
    else:
        files = ()
    return WhatsAppMessageEvent(
        event_type=event_type,
        message_uid=data.message_uid,
        chat_id=str(chat_id),
        chat_url=data.chat_url or "",
        direction=direction,
        text=(data.text or "").strip(),
        sender_phone=sender_phone,
        sender_name=(data.sender_name or sender.full_name or "").strip(),
        recipient_phone=recipient_phone,
        account_phone=account_phone,
        timestamp=schemas.parse_time(data.timestamp),
        origin=(data.origin or "").strip(),
        attachments=files,
        account_id=account_id or schemas.jid_of_phone(account_phone),
    )


def parse_account(payload: dict[str, Any]) -> WhatsAppAccountEvent:
    event_type = event_type_of(payload)
    account = schemas.validate(schemas.AccountEvent, payload, event_type).whatsapp_account
    if account.phone is not None and account.phone != schemas.phone_of_jid(account.id):
        raise schemas.refuse(
            "whatsapp_account.phone", "does not match whatsapp_account.id", event_type
        )
    return WhatsAppAccountEvent(
        event_type=event_type,
        account_id=account.id,
        phone=account.phone or "",
        status=(account.status or "").strip(),
        at=_own_time(event_type, account),
        connected_on=account.connected_on,
    )


def _own_time(event_type: str, account: schemas.Account) -> str:
    """The time this occurrence happened, when the body says it ("" when it does not)."""
    if event_type == "whatsapp:account:connected":
        return account.connected_on
    if event_type in OFFLINE_EVENTS and account.disconnected_on:
        connected = schemas.parse_time(account.connected_on)
        disconnected = schemas.parse_time(account.disconnected_on)
        if connected is not None and disconnected is not None and disconnected > connected:
            return account.disconnected_on
    return ""  # resumed; or a disconnected_on left over from an earlier connection


def parse_chat(payload: dict[str, Any]) -> WhatsAppChatEvent:
    event_type = event_type_of(payload)
    chat = schemas.validate(schemas.ChatEvent, payload, event_type).chat
    if not chat.is_group:
        schemas.check_phone(chat.phone, "chat.phone", event_type)
    return WhatsAppChatEvent(
        event_type=event_type,
        chat_id=str(chat.id),
        chat_url=chat.chat_url or "",
        is_group=chat.is_group,
        contact_phone="" if chat.is_group else (chat.phone or ""),
        account_id=chat.whatsapp_account_id,
        created=schemas.parse_time(chat.created_timestamp),  # type: ignore[arg-type]
    )


def account_event_key(event: WhatsAppAccountEvent) -> str:
    """`<event_type>:<account JID>:<own time>`, or `…:<connected_on>` to be scoped by
    `TimelinesAIReceiver.dedupe_key` when the event has no time of its own."""
    return f"{event.event_type}:{event.account_id}:{event.at or event.connected_on}"


# --- Receiver --------------------------------------------------------------------------


class TimelinesAIReceiver(Receiver):
    provider = "timelinesai"
    auth_failure_status = 404  # like TimelinesAI's own receiver: a wrong secret is "not found"
    # The longest WhatsApp text (65,536 characters) fits even when every character is sent
    # as a \uXXXX escape (384 KiB); nothing TimelinesAI documents comes near it otherwise.
    MAX_BODY_BYTES = MAX_BODY_BYTES

    HANDLED_EVENTS = MESSAGE_EVENTS | ACCOUNT_EVENTS | CHAT_EVENTS
    IGNORED_EVENTS = frozenset(
        {
            # Fires for every message in both directions, duplicating message:received:new
            # and message:sent:new, which we subscribe to instead; handling it too would
            # process each message twice (the event type is part of the dedupe key).
            "message:new",
            "message:reaction",
            # chat:new tells us every new chat; these say the same with a direction.
            "chat:incoming:new",
            "chat:outgoing:new",
            "chat:responsible:assigned",
            "chat:responsible:unassigned",
            "call:incoming:missed",
            "call:incoming:ended",
            "call:outgoing:ended",
        }
    )
    # Calls, and WhatsApp Business API (WABA) accounts, which we do not connect.
    IGNORED_PREFIXES = ("call:", "waba:")

    def authenticate(self, request: Request, raw: bytes, token: str | None) -> Tenant | None:
        return tenant_for_url_token(token)

    def parse(
        self, payload: dict[str, Any]
    ) -> WhatsAppMessageEvent | WhatsAppAccountEvent | WhatsAppChatEvent:
        """The handled event, validated, as a dataclass (MalformedPayload otherwise)."""
        event_type = event_type_of(payload)
        if event_type in MESSAGE_EVENTS:
            return parse_message(payload)
        if event_type in ACCOUNT_EVENTS:
            return parse_account(payload)
        if event_type in CHAT_EVENTS:
            return parse_chat(payload)
        raise MalformedPayload(f"not a handled event type: {event_type!r}", event_type=event_type)

    def identify(self, payload: dict[str, Any]) -> tuple[str, str]:
        event_type = event_type_of(payload)
        if not self.is_handled(event_type):
            return event_type, ""  # stored as IGNORED, never deduplicated
        parsed = self.parse(payload)
        if isinstance(parsed, WhatsAppMessageEvent):
            return event_type, f"{event_type}:{parsed.message_uid}"
        if isinstance(parsed, WhatsAppChatEvent):
            return event_type, f"{event_type}:{parsed.account_id}:{parsed.chat_id}"
        return event_type, account_event_key(parsed)

    def dedupe_key(self, tenant: Tenant, event_type: str, key: str, payload: dict[str, Any]) -> str:
        if event_type not in ACCOUNT_EVENTS:
            return key
        event = parse_account(payload)
        if event.at:
            return key
        last = (
            WebhookEvent.objects.filter(
                tenant=tenant,
                provider=self.provider,
                event_type__in=sorted(ACCOUNT_EVENTS - {event_type}),
                provider_event_id__contains=f":{event.account_id}:",
            )
            .order_by("-pk")
            .values_list("pk", flat=True)
            .first()
        )
        return f"{key}:after:{last or 0}"

    def handle(self, event: WebhookEvent, payload: dict[str, Any]) -> bool:
        event_type = event_type_of(payload)
        handler_path = HANDLERS.get(event_type)
        if handler_path is None:
            return False
        if event.tenant is None:
            raise ValueError(f"webhook event {event.pk} has no tenant")
        parsed = self.parse(payload)
        if (
            isinstance(parsed, WhatsAppMessageEvent)
            and event_type == "message:received:new"
            and parsed.direction == "sent"
        ):
            # An echo of our own message synced as "received" (TimelinesAI's receivers drop
            # `from_me` here too); message:sent:new carries the sent message.
            log.info("webhook event %s: received event of our own message, ignored", event.pk)
            return False
        handler = import_string(handler_path)
        handler(event.tenant, parsed)
        return True
