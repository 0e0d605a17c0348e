"""`email.received`: a lead's answer to one of our warm emails, threaded to the lead and the
message it answers, then handed to the one reply path (`hitl.replies.receive_email_reply`:
stored once, opt-out first, triage, review, stop on reply).

Whose reply is it (one Resend account serves every tenant, and every tenant's endpoint gets
every received email):

1. a routed reply address among the recipients (reply_address.py): that tenant's message.
   Another tenant's address: not ours, ignored here without calling Resend;
2. else the reply's `In-Reply-To` / `References` naming a Message-ID this tenant keeps as a
   warm email's thread (`Message.provider_thread_id`: a lead's earlier reply, or our own
   email when a webhook told us its Message-ID): that message's lead;
3. else not ours: ignored (the event row keeps it). Never the sender's address alone: it
   may be a lead of several tenants, and each would take in the other's mail.

The webhook carries metadata only; the text and the headers are fetched with
`GET /emails/receiving/{id}` once the routing that needs no HTTP has been done. A failed
fetch raises: the event becomes FAILED and is retried. The message is unique on (channel,
Resend's received email id): a redelivery under another svix-id finds it stored and calls
nothing. What is triaged is the reply's own words (email_channels.reply_text), never the
quoted email of ours below it; the whole text stays in the message's raw data.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from cerniq.models import Tenant
from cerniq.providers import provider_config
from email_channels.addresses import address_in
from email_channels.reply_text import reply_text
from hitl.replies import receive_email_reply
from integrations.resend import schemas
from integrations.resend.client import ResendEmail
from integrations.resend.reply_address import first_route
from outreach.models import Channel, Message

log = logging.getLogger(__name__)

ALIAS = "email.resend"
CHANNEL = Channel.EMAIL_WARM
RAW_TEXT_MAX = 50_000  # the whole received text kept with the message
MAX_REFERENCES = 100
_REFERENCE = re.compile(r"<[^<>\s]{1,994}>")


def client() -> ResendEmail:
    """The real Resend client with the deployment's options (whatever backend sends)."""
    return ResendEmail(**provider_config(ALIAS).get("OPTIONS", {}))


def receive(tenant: Tenant, envelope: schemas.Envelope, data: schemas.ReceivedData) -> bool:
    """Take one received email in for `tenant`. False when it is not this tenant's."""
    route = first_route(data.recipients)
    if route is not None and route.tenant_id != tenant.pk:
        log.info("resend received %s: another tenant's reply address", data.email_id)
        return False
    if Message.objects.filter(channel=CHANNEL, provider_message_id=data.email_id).exists():
        log.info("resend received %s: already stored", data.email_id)
        return True
    answered = None
    if route is not None:
        answered = (
            Message.objects.filter(tenant=tenant, pk=route.message_id, channel=CHANNEL)
            .select_related("lead")
            .first()
        )
    elif not has_threads(tenant):  # nothing of ours it could answer: no call to Resend
        log.info("resend received %s: no reply address of ours, no thread", data.email_id)
        return False
    email = client().received_email(data.email_id)
    references = referenced_ids(email.get("headers"))
    if answered is None:
        answered = thread_of(tenant, references)
        if answered is None and route is None:
            log.info("resend received %s: in no thread of tenant %s", data.email_id, tenant.pk)
            return False
    text = _string(email.get("text"))
    receive_email_reply(
        tenant,
        channel=CHANNEL,
        email=address_in(data.from_),
        text=reply_text(text, _string(email.get("html"))),
        provider_message_id=data.email_id,
        subject=data.subject,
        thread_id=data.message_id,
        sent_at=_received_at(envelope, data, email),
        raw=_raw(data, email, text, references, answered),
        lead=answered.lead if answered is not None else None,
    )
    return True


def remember_message_id(tenant: Tenant, email_id: str, message_id: str) -> None:
    """Our sent email's Message-ID (newer outbound events carry it): kept as its thread, so
    a reply that only names it in `In-Reply-To` is still threaded."""
    Message.objects.filter(
        tenant=tenant,
        channel=CHANNEL,
        direction=Message.Direction.OUTBOUND,
        provider_message_id=email_id,
        provider_thread_id="",
    ).update(provider_thread_id=message_id)


def has_threads(tenant: Tenant) -> bool:
    warm = Message.objects.filter(tenant=tenant, channel=CHANNEL)
    return warm.exclude(provider_thread_id="").exists()


def referenced_ids(headers: Any) -> list[str]:
    """The Message-IDs a received email's `In-Reply-To` and `References` name (any casing
    of the header names; Resend documents neither the casing nor their presence)."""
    if not isinstance(headers, dict):
        return []
    found: list[str] = []
    for name, value in headers.items():
        if str(name).lower() not in ("in-reply-to", "references"):
            continue
        values = value if isinstance(value, list) else [value]
        for item in values:
            if isinstance(item, str):
                found += [ref for ref in _REFERENCE.findall(item) if ref not in found]
    return found[:MAX_REFERENCES]


def thread_of(tenant: Tenant, references: list[str]) -> Message | None:
    """This tenant's latest warm email (ours or the lead's) whose thread a reply names."""
    if not references:
        return None
    return (
        Message.objects.filter(
            tenant=tenant, channel=CHANNEL, provider_thread_id__in=references, lead__isnull=False
        )
        .select_related("lead")
        .order_by("-created_at", "-pk")
        .first()
    )


def _string(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _received_at(envelope: schemas.Envelope, data: schemas.ReceivedData, email: dict) -> Any:
    """When the email was received: the API's time, the webhook's, else the event's."""
    return (
        schemas.parse_time(email.get("created_at"))
        or schemas.parse_time(data.created_at)
        or schemas.parse_time(envelope.created_at)
    )


def _raw(
    data: schemas.ReceivedData,
    email: dict,
    text: str | None,
    references: list[str],
    answered: Message | None,
) -> dict[str, Any]:
    attachments = email.get("attachments")
    names = [
        str(item.get("filename") or "")[:200]
        for item in (attachments if isinstance(attachments, list) else [])
        if isinstance(item, dict)
    ]
    return {
        "provider": "resend",
        "email_id": data.email_id,
        "message_id": data.message_id,
        "from": data.from_,
        "to": data.to,
        "cc": data.cc or [],
        "references": references,
        "answers_message": answered.pk if answered is not None else None,
        "attachments": names,
        "text": (text or "")[:RAW_TEXT_MAX],
    }
