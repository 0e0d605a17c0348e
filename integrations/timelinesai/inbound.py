"""TimelinesAI message and chat events → stored messages (seed workers C#11, G): replies
from leads, our own sends coming back with their chat, and new chats linked to the lead's
messages from that phone (so follow-ups go into the chat)."""

from __future__ import annotations

import logging

from django.db import IntegrityError, transaction

from cerniq.models import Tenant
from hitl.replies import process_reply, process_unknown_sender
from integrations.timelinesai.schemas import phone_of_jid
from outreach.models import Channel, Lead, Message
from outreach.recording import ECHO_MARK
from whatsapp.models import Phone

log = logging.getLogger(__name__)

REASON_MAX = Message._meta.get_field("channel_reason").max_length


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


def _learn_chat(tenant: Tenant, msg) -> int:
    """Our stored send with this provider id learns its chat; how many rows matched."""
    return Message.objects.filter(
        tenant=tenant,
        channel=Channel.WHATSAPP,
        direction=Message.Direction.OUTBOUND,
        provider_message_id=msg.message_uid,
    ).update(provider_thread_id=msg.chat_id or "", provider_url=msg.chat_url or "")


def handle_sent(tenant: Tenant, msg) -> None:
    """A send came back (`message:sent:new`): ours learns its chat.

    One we have no row for is stored once as an outbound message, marked as an echo
    (`outreach.recording.ECHO_MARK`): a send from the phone app or from another tool using
    the API, or our own send whose row is not written yet. In that last case the send path
    adopts the echo when it records the same provider id (`outreach.recording.adopt_echo`):
    one row, ours, with the echo's chat."""
    if _learn_chat(tenant, msg):
        return
    origin = msg.origin or "WhatsApp"
    try:
        with transaction.atomic():
            Message.objects.create(
                tenant=tenant,
                lead=find_lead(tenant, chat_id=msg.chat_id, phone=msg.recipient_phone),
                channel=Channel.WHATSAPP,
                direction=Message.Direction.OUTBOUND,
                status=Message.Status.SENT,
                body=msg.text or "",
                phone=_phone_of(tenant, msg.account_phone),
                counterpart=msg.recipient_phone or "",
                provider_message_id=msg.message_uid,
                provider_thread_id=msg.chat_id or "",
                provider_url=msg.chat_url or "",
                sent_at=msg.timestamp,
                is_manual=True,
                channel_reason=f"sent from {origin}, seen in the provider's echo"[:REASON_MAX],
                raw_response={
                    ECHO_MARK: True,
                    "origin": msg.origin,
                    "attachments": list(msg.attachments),
                },
            )
    except IntegrityError:
        # Stored meanwhile: our send recorded this id, or this echo was processed before.
        _learn_chat(tenant, msg)


def handle_chat_new(tenant: Tenant, chat) -> None:
    """`chat:new`: the chat of a conversation on one of our accounts. The lead's messages
    from that phone that know no chat yet learn it, so follow-ups are sent into it (the
    transport sends a follow-up to a known chat). Groups, strangers and accounts that are
    not our phones change nothing."""
    if chat.is_group or not chat.contact_phone:
        return
    phones = Phone.objects.filter(tenant=tenant)
    phone = (
        phones.filter(account_id=chat.account_id).first()
        or phones.filter(number=phone_of_jid(chat.account_id)).first()
    )
    lead = Lead.objects.filter(tenant=tenant, phone=chat.contact_phone).first()
    if phone is None or lead is None:
        log.info("chat %s: no lead or phone of ours to link it to", chat.chat_id)
        return
    Message.objects.filter(
        tenant=tenant,
        lead=lead,
        phone=phone,
        channel=Channel.WHATSAPP,
        direction=Message.Direction.OUTBOUND,
        provider_thread_id="",
    ).update(provider_thread_id=chat.chat_id, provider_url=chat.chat_url)
