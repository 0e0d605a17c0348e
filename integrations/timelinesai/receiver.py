"""TimelinesAI webhooks (providers.md §1.5).

TimelinesAI signs nothing and sends no custom headers, so the URL registered with it
carries the tenant's secret: `/webhooks/timelinesai/<Tenant.webhook_token>/`, compared
in constant time. A wrong secret is answered 404, as TimelinesAI's own example receiver
does, so the endpoint does not even confirm it exists.

Two envelopes are in circulation and both are accepted (providers.md §1.5, "Envelope
conflict"): the spec's top-level `chat` / `message` / `whatsapp_account` objects, and
`{"event_type": ..., "data": {flat keys}}` read by TimelinesAI's own example receivers
(`data.chat_id ?? data.chat.id`, `data.whatsapp_account_id ?? data.chat.whatsapp_account_id`).
Both normalise to the same frozen dataclasses below.

No delivery id is sent. Dedupe keys: messages `"<event_type>:<message_uid>"`; account
events `"<event_type>:<account id>:<disconnected_on|connected_on>"`.
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.utils.module_loading import import_string
from rest_framework.request import Request

from cerniq.models import Tenant, WebhookEvent
from cerniq.webhooks import MalformedPayload, Receiver, tenant_for_url_token

log = logging.getLogger(__name__)


class NotYetKnown(RuntimeError):
    """Our own send came back before we recorded it; processing is retried."""


MESSAGE_EVENTS = frozenset({"message:received:new", "message:sent:new"})
ACCOUNT_EVENTS = frozenset(
    {
        "whatsapp:account:disconnected",
        "whatsapp:account:suspended",
        "whatsapp:account:connected",
        "whatsapp:account:resumed",
    }
)

# Dispatch table; the handlers are imported when an event is handled (others own them).
HANDLERS: dict[str, str] = {
    "message:received:new": "integrations.timelinesai.inbound.handle_received",
    "message:sent:new": "integrations.timelinesai.inbound.handle_sent",
    **{
        event_type: "integrations.timelinesai.status_sync.handle_account_event"
        for event_type in ACCOUNT_EVENTS
    },
}

# Which timestamp of the account tells one occurrence of an account event from another.
_ACCOUNT_AT_FIELDS: dict[str, tuple[str, ...]] = {
    "whatsapp:account:disconnected": ("disconnected_on", "connected_on"),
    "whatsapp:account:suspended": ("disconnected_on", "connected_on"),
    "whatsapp:account:connected": ("connected_on",),
    "whatsapp:account:resumed": ("connected_on",),
}

JID_SUFFIX = "@s.whatsapp.net"


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
    timestamp: datetime | None  # WhatsApp time, timezone-aware; None when unparseable
    origin: str  # free text: "WhatsApp", "Public API", ...
    attachments: tuple[dict, ...] = ()  # temporary_download_url (~15 min), filename, ...
    account_id: str = ""  # our account's JID, "40740000101@s.whatsapp.net"


@dataclass(frozen=True)
class WhatsAppAccountEvent:
    """`whatsapp:account:{disconnected,suspended,connected,resumed}`."""

    event_type: str
    account_id: str  # JID, "40740000101@s.whatsapp.net"
    phone: str
    status: str
    at: str  # disconnected_on / connected_on as sent ("" when absent)


# --- Field access ----------------------------------------------------------------------


def _obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _text(*values: Any) -> str:
    """The first non-empty string (or integer id) among `values`, stripped; else ""."""
    for value in values:
        if isinstance(value, bool) or value is None:
            continue
        if isinstance(value, int | str):
            text = str(value).strip()
            if text:
                return text
    return ""


def _phone(value: str) -> str:
    value = value.replace(" ", "")
    return f"+{value}" if value.isdigit() else value


def _phone_from_jid(jid: str) -> str:
    user = jid.split("@", 1)[0]
    return f"+{user}" if jid.endswith(JID_SUFFIX) and user.isdigit() else ""


def _jid_from_phone(phone: str) -> str:
    digits = phone.removeprefix("+")
    return f"{digits}{JID_SUFFIX}" if digits.isdigit() else ""


def parse_timestamp(value: str) -> datetime | None:
    """TimelinesAI's "YYYY-MM-DD HH:MM:SS ±ZZZZ" (ISO 8601 with an offset also accepted)."""
    if not value:
        return None
    try:
        return datetime.strptime(value, "%Y-%m-%d %H:%M:%S %z")  # 2026-05-18 10:44:21 +0300
    except ValueError:
        pass
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else None


@dataclass(frozen=True)
class _Envelope:
    """Where each field may be: nested objects, and the flat `data` keys."""

    flat: dict[str, Any]
    chat: dict[str, Any]
    message: dict[str, Any]
    account: dict[str, Any]


def _envelope(payload: dict[str, Any]) -> _Envelope:
    nested = any(isinstance(payload.get(k), dict) for k in ("chat", "message", "whatsapp_account"))
    root = payload if nested else _obj(payload.get("data"))
    return _Envelope(
        flat={} if nested else root,
        chat=_obj(root.get("chat")),
        message=_obj(root.get("message")),
        account=_obj(root.get("whatsapp_account")),
    )


def event_type_of(payload: dict[str, Any]) -> str:
    event_type = payload.get("event_type")
    if event_type is None:
        event_type = _obj(payload.get("data")).get("event_type")
    if not isinstance(event_type, str) or not event_type.strip():
        raise MalformedPayload("missing event_type")
    return event_type.strip()


# --- Parsers ---------------------------------------------------------------------------


def parse_message(payload: dict[str, Any]) -> WhatsAppMessageEvent:
    event_type = event_type_of(payload)
    env = _envelope(payload)
    flat, chat, message, account = env.flat, env.chat, env.message, env.account

    uid = _text(message.get("message_uid"), message.get("uid"), flat.get("message_uid"))
    if not uid:
        raise MalformedPayload(
            "missing message_uid (message.message_uid or data.message_uid)", event_type=event_type
        )
    chat_id = _text(chat.get("chat_id"), chat.get("id"), flat.get("chat_id"))
    if not chat_id:
        raise MalformedPayload(
            "missing chat id (chat.chat_id or data.chat_id)", event_type=event_type
        )

    direction = _text(message.get("direction"), flat.get("direction")).lower()
    if direction not in ("received", "sent"):
        from_me = message.get("from_me", flat.get("from_me"))
        if isinstance(from_me, bool):
            direction = "sent" if from_me else "received"
        elif event_type == "message:sent:new":
            direction = "sent"
        elif event_type == "message:received:new":
            direction = "received"
        else:
            raise MalformedPayload("cannot tell the message direction", event_type=event_type)

    sender, recipient = _obj(message.get("sender")), _obj(message.get("recipient"))
    account_id = _text(
        account.get("id"),
        account.get("whatsapp_account_wid"),
        flat.get("whatsapp_account_id"),
        chat.get("whatsapp_account_id"),
    )
    account_phone = _phone(
        _text(account.get("phone"), flat.get("whatsapp_account_phone"))
    ) or _phone_from_jid(account_id)
    account_id = account_id or _jid_from_phone(account_phone)
    contact_phone = "" if chat.get("is_group") else _phone(_text(chat.get("phone")))
    sender_phone = _phone(
        _text(sender.get("phone"), flat.get("sender_phone"), _obj(flat.get("sender")).get("phone"))
    )
    recipient_phone = _phone(
        _text(
            recipient.get("phone"),
            flat.get("recipient_phone"),
            _obj(flat.get("recipient")).get("phone"),
        )
    )
    # Fill the parties from the chat and our account when an envelope leaves them out.
    if direction == "received":
        sender_phone = sender_phone or contact_phone
        recipient_phone = recipient_phone or account_phone
    else:
        sender_phone = sender_phone or account_phone
        recipient_phone = recipient_phone or contact_phone

    attachments = message.get("attachments", flat.get("attachments"))
    if isinstance(attachments, list):
        files = tuple(item for item in attachments if isinstance(item, dict))
    elif _text(flat.get("attachment_url")):
        files = (
            {
                "temporary_download_url": _text(flat.get("attachment_url")),
                "filename": _text(flat.get("attachment_filename")),
            },
        )
    else:
        files = ()

    return WhatsAppMessageEvent(
        event_type=event_type,
        message_uid=uid,
        chat_id=chat_id,
        chat_url=_text(chat.get("chat_url"), flat.get("chat_url")),
        direction=direction,
        text=_text(message.get("text"), flat.get("text")),
        sender_phone=sender_phone,
        sender_name=_text(
            sender.get("full_name"),
            flat.get("sender_name"),
            _obj(flat.get("sender")).get("full_name"),
        ),
        recipient_phone=recipient_phone,
        account_phone=account_phone,
        timestamp=parse_timestamp(_text(message.get("timestamp"), flat.get("timestamp"))),
        origin=_text(message.get("origin"), flat.get("origin")),
        attachments=files,
        account_id=account_id,
    )


def parse_account(payload: dict[str, Any]) -> WhatsAppAccountEvent:
    event_type = event_type_of(payload)
    env = _envelope(payload)
    flat, account = env.flat, env.account
    account_id = _text(
        account.get("id"),
        account.get("whatsapp_account_wid"),
        flat.get("whatsapp_account_id"),
        flat.get("id"),
    )
    phone = _phone(
        _text(account.get("phone"), flat.get("whatsapp_account_phone"), flat.get("phone"))
    ) or _phone_from_jid(account_id)
    account_id = account_id or _jid_from_phone(phone)
    if not account_id:
        raise MalformedPayload(
            "missing whatsapp_account.id (or data.whatsapp_account_id)", event_type=event_type
        )
    fields = _ACCOUNT_AT_FIELDS.get(event_type, ("disconnected_on", "connected_on"))
    at = _text(*(account.get(name, flat.get(name)) for name in fields))
    return WhatsAppAccountEvent(
        event_type=event_type,
        account_id=account_id,
        phone=phone,
        status=_text(account.get("status"), flat.get("status")),
        at=at,
    )


def account_event_key(event: WhatsAppAccountEvent, payload: dict[str, Any]) -> str:
    """`<event_type>:<account id>:<at>`. Without any timestamp the body's digest stands in,
    so a retry (same bytes) dedupes while a later, different event does not."""
    at = event.at
    if not at:
        canonical = json.dumps(payload, sort_keys=True, ensure_ascii=False).encode()
        at = "sha256:" + hashlib.sha256(canonical).hexdigest()[:32]
    return f"{event.event_type}:{event.account_id}:{at}"


# --- Receiver --------------------------------------------------------------------------


class TimelinesAIReceiver(Receiver):
    provider = "timelinesai"
    auth_failure_status = 404  # like TimelinesAI's own receiver: a wrong secret is "not found"

    HANDLED_EVENTS = MESSAGE_EVENTS | ACCOUNT_EVENTS
    RETRY_LATER = (NotYetKnown,)
    IGNORED_EVENTS = frozenset(
        {
            # Fires for every message in both directions, duplicating message:received:new
            # and message:sent:new, which we subscribe to instead; handling it too would
            # process each message twice (the event type is part of the dedupe key).
            "message:new",
            "message:reaction",
            "chat:new",
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

    def parse(self, payload: dict[str, Any]) -> WhatsAppMessageEvent | WhatsAppAccountEvent:
        """The handled event as a dataclass (MalformedPayload for other event types)."""
        event_type = event_type_of(payload)
        if event_type in MESSAGE_EVENTS:
            return parse_message(payload)
        if event_type in ACCOUNT_EVENTS:
            return parse_account(payload)
        raise MalformedPayload(f"not a handled event type: {event_type!r}", event_type=event_type)

    def identify(self, payload: dict[str, Any]) -> tuple[str, str]:
        event_type = event_type_of(payload)
        if not self.is_handled(event_type):
            return event_type, ""  # stored as IGNORED, never deduplicated
        parsed = self.parse(payload)
        if isinstance(parsed, WhatsAppMessageEvent):
            return event_type, f"{event_type}:{parsed.message_uid}"
        return event_type, account_event_key(parsed, payload)

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
