"""TimelinesAI message events → stored messages (seed workers C#11, G): replies from leads,
and our own sends coming back with their chat."""

from __future__ import annotations

import logging

from django.db import IntegrityError, transaction

from cerniq.models import Tenant
from hitl.replies import process_reply, process_unknown_sender
from integrations.timelinesai.receiver import NotYetKnown
from outreach.models import Channel, Lead, Message
from whatsapp.models import Phone

log = logging.getLogger(__name__)

API_ORIGIN = "public api"


def find_lead(tenant: Tenant, *, chat_id: str, phone: str) -> Lead | None:
    """The lead of a chat: by chat id first (exact), then by phone number."""
    if chat_id:
        lead_id = (
            Message.objects.filter(
                tenant=tenant,
                channel=Channel.WHATSAPP,
                provider_thread_id=chat_id,
                lead__isnull=False,
            )
            .values_list("lead_id", flat=True)
            .first()
        )
        if lead_id:
            return Lead.objects.select_related("tenant").get(pk=lead_id)
    if phone:
        return Lead.objects.select_related("tenant").filter(tenant=tenant, phone=phone).first()
    return None


def _phone_of(tenant: Tenant, account_phone: str) -> Phone | None:
    return (
        Phone.objects.filter(tenant=tenant, number=account_phone).first() if account_phone else None
    )


def _store(tenant: Tenant, msg, lead: Lead | None, **fields: object) -> Message | None:
    """Store one TimelinesAI message; None when it is already stored (a redelivery)."""
    try:
        with transaction.atomic():
            return Message.objects.create(
                tenant=tenant,
                lead=lead,
                channel=Channel.WHATSAPP,
                body=msg.text or "",
                phone=_phone_of(tenant, msg.account_phone),
                provider_message_id=msg.message_uid,
                provider_thread_id=msg.chat_id or "",
                provider_url=msg.chat_url or "",
                sent_at=msg.timestamp,
                **fields,
            )
    except IntegrityError:
        log.info("message %s already stored", msg.message_uid)
        return None


def handle_received(tenant: Tenant, msg) -> None:
    """A lead (or an unknown sender) wrote to one of our numbers."""
    lead = find_lead(tenant, chat_id=msg.chat_id, phone=msg.sender_phone)
    message = _store(
        tenant,
        msg,
        lead,
        direction=Message.Direction.INBOUND,
        status=Message.Status.RECEIVED,
        counterpart=msg.sender_phone or "",
        raw_response={"attachments": list(msg.attachments), "origin": msg.origin},
    )
    if message is None:
        return
    if lead is None:
        log.info("reply from an unknown sender kept as message %s", message.pk)
        process_unknown_sender(tenant, message)
        return
    if not message.body.strip():
        return  # attachment-only: kept in the conversation, nothing to triage
    process_reply(lead, message)


def handle_sent(tenant: Tenant, msg) -> None:
    """Our send came back: learn its chat. A send from the phone app is recorded as manual."""
    ours = Message.objects.filter(
        tenant=tenant,
        channel=Channel.WHATSAPP,
        direction=Message.Direction.OUTBOUND,
        provider_message_id=msg.message_uid,
    )
    if ours.update(provider_thread_id=msg.chat_id or "", provider_url=msg.chat_url or ""):
        return
    if (msg.origin or "").strip().lower() == API_ORIGIN:
        raise NotYetKnown(f"our send {msg.message_uid} is not recorded yet")
    _store(
        tenant,
        msg,
        find_lead(tenant, chat_id=msg.chat_id, phone=msg.recipient_phone),
        direction=Message.Direction.OUTBOUND,
        status=Message.Status.SENT,
        counterpart=msg.recipient_phone or "",
        is_manual=True,
        channel_reason=f"sent from WhatsApp ({msg.origin or 'phone'})",
    )
