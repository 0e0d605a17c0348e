"""An inbound WhatsApp message, whichever provider carried it (the one owner of the rule).

A provider package parses its payload into a `WhatsAppInbound` (a lead or a stranger wrote
to one of our numbers), a `WhatsAppEcho` (a send of ours came back, or one made from the
phone app) or a chat it learnt, and calls the functions below; how a message is stored,
which lead it belongs to, and the reply path (opt-out, stop, triage) live only here, as
`hitl.replies.receive_email_reply` does for email.

A lead is found by the chat (exact), then by its phone number, then by the WhatsApp user
id (Meta's business-scoped id, `Lead.whatsapp_user_id`): since 2026 a user with a username
may write with no phone number in the webhook, and the id is then all there is.

Each of the three is where a lead's chat id becomes known: the chat's earlier messages are
then fetched once (hitl.chat_backfill.chat_known; stored as history by
hitl.whatsapp_history, never through the reply path).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime

from django.db import IntegrityError, transaction
from django.db.models import Q

from cerniq.models import Tenant
from hitl.chat_backfill import chat_known
from hitl.replies import process_reply, process_unknown_sender
from outreach.models import Channel, Lead, Message
from outreach.past_messages import HISTORY_MARK
from outreach.recording import ECHO_MARK
from whatsapp.models import Phone

log = logging.getLogger(__name__)

REASON_MAX = Message._meta.get_field("channel_reason").max_length


@dataclass(frozen=True)
class WhatsAppInbound:
    """Someone wrote to one of our numbers."""

    provider_message_id: str
    text: str  # "" for an attachment without caption
    sent_at: datetime | None  # WhatsApp's time, aware
    our_number: str = ""  # E.164 of our phone that received it
    our_account_id: str = ""  # the provider's id of that phone (a JID, a phone_number_id)
    sender_phone: str = ""  # E.164; "" when the provider withholds it
    sender_user_id: str = ""  # the provider's user id (Meta's BSUID), "" when none
    sender_name: str = ""
    chat_id: str = ""
    chat_url: str = ""
    attachments: tuple[dict, ...] = ()
    origin: str = ""  # the provider's word for where it came from
    extra: tuple[tuple[str, object], ...] = ()  # kept in the row's raw_response


@dataclass(frozen=True)
class WhatsAppEcho:
    """A message sent from one of our numbers came back through the provider."""

    provider_message_id: str
    text: str
    sent_at: datetime | None
    our_number: str = ""
    our_account_id: str = ""
    recipient_phone: str = ""
    chat_id: str = ""
    chat_url: str = ""
    attachments: tuple[dict, ...] = ()
    origin: str = ""


def find_lead(
    tenant: Tenant, *, chat_id: str = "", phone: str = "", user_id: str = ""
) -> Lead | None:
    """The lead of a conversation: by chat id first (exact), then phone, then user id."""
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
    leads = Lead.objects.select_related("tenant").filter(tenant=tenant)
    if phone:
        lead = leads.filter(phone=phone).first()
        if lead is not None:
            return lead
    if user_id:
        return leads.filter(whatsapp_user_id=user_id).first()
    return None


def our_phone(tenant: Tenant, *, number: str = "", account_id: str = "") -> Phone | None:
    """Our phone by its provider account id, else by its number."""
    if not number and not account_id:
        return None
    match = Q(account_id=account_id) if account_id else Q()
    if number:
        match = match | Q(number=number) if account_id else Q(number=number)
    return Phone.objects.filter(tenant=tenant).filter(match).first()


def _learn_user_id(lead: Lead, user_id: str) -> None:
    """Keep the user id with the lead, so a later message without a number still finds it."""
    if user_id and lead.whatsapp_user_id != user_id:
        Lead.objects.filter(pk=lead.pk).update(whatsapp_user_id=user_id)
        lead.whatsapp_user_id = user_id


def receive(tenant: Tenant, inbound: WhatsAppInbound) -> Message | None:
    """Store an inbound message once and take it through the reply path. None when it was
    stored before (a provider's redelivery), unless only as history (`_live_after_history`)."""
    lead = find_lead(
        tenant,
        chat_id=inbound.chat_id,
        phone=inbound.sender_phone,
        user_id=inbound.sender_user_id,
    )
    raw: dict[str, object] = {"attachments": list(inbound.attachments), "origin": inbound.origin}
    raw.update(dict(inbound.extra))
    if inbound.sender_user_id:
        raw["user_id"] = inbound.sender_user_id
    phone = our_phone(tenant, number=inbound.our_number, account_id=inbound.our_account_id)
    try:
        with transaction.atomic():
            message = Message.objects.create(
                tenant=tenant,
                lead=lead,
                channel=Channel.WHATSAPP,
                direction=Message.Direction.INBOUND,
                status=Message.Status.RECEIVED,
                body=inbound.text or "",
                phone=phone,
                counterpart=inbound.sender_phone or inbound.sender_user_id,
                provider_message_id=inbound.provider_message_id,
                provider_thread_id=inbound.chat_id,
                provider_url=inbound.chat_url,
                sent_at=inbound.sent_at,
                raw_response=raw,
            )
    except IntegrityError:
        return _live_after_history(tenant, inbound, raw)
    if lead is None:
        log.info("reply from an unknown sender kept as message %s", message.pk)
        process_unknown_sender(tenant, message)
        return message
    _learn_user_id(lead, inbound.sender_user_id)
    if message.body.strip():  # attachment-only: kept in the conversation, nothing to triage
        process_reply(lead, message)
    chat_known(tenant, lead_id=lead.pk, phone=phone, chat_id=inbound.chat_id)
    return message


def _live_after_history(
    tenant: Tenant, inbound: WhatsAppInbound, raw: dict[str, object]
) -> Message | None:
    """The message is stored already. A redelivery: nothing to do (None). But when a chat's
    history fetch stored it first, its webhook is the live path catching up: the row stops
    being history and goes through the reply path now, once."""
    history = Message.objects.filter(
        tenant=tenant,
        channel=Channel.WHATSAPP,
        direction=Message.Direction.INBOUND,
        provider_message_id=inbound.provider_message_id,
        raw_response__has_key=HISTORY_MARK,
    )
    if not history.update(raw_response=raw):  # one delivery takes it over, at most
        log.info("message %s already stored", inbound.provider_message_id)
        return None
    message = Message.objects.select_related("lead", "lead__tenant").get(
        tenant=tenant, channel=Channel.WHATSAPP, provider_message_id=inbound.provider_message_id
    )
    log.info("message %s, stored as history, arrived live: the reply path takes it", message.pk)
    if message.lead is not None and message.body.strip():
        process_reply(message.lead, message)
    return message


def _learn_chat(tenant: Tenant, echo: WhatsAppEcho) -> int:
    """Our stored send with this provider id learns its chat; how many rows matched."""
    return Message.objects.filter(
        tenant=tenant,
        channel=Channel.WHATSAPP,
        direction=Message.Direction.OUTBOUND,
        provider_message_id=echo.provider_message_id,
    ).update(provider_thread_id=echo.chat_id, provider_url=echo.chat_url)


def record_echo(tenant: Tenant, echo: WhatsAppEcho) -> None:
    """A send came back: ours learns its chat.

    One we have no row for is stored once as an outbound message, marked as an echo
    (`outreach.recording.ECHO_MARK`): a send from the phone app or from another tool using
    the API, or our own send whose row is not written yet. In that last case the send path
    adopts the echo when it records the same provider id (`outreach.recording.adopt_echo`):
    one row, ours, with the echo's chat."""
    phone = our_phone(tenant, number=echo.our_number, account_id=echo.our_account_id)
    if _learn_chat(tenant, echo):
        sent = Message.objects.filter(
            tenant=tenant, channel=Channel.WHATSAPP, provider_message_id=echo.provider_message_id
        )
        lead_id = sent.values_list("lead_id", flat=True).first()
        chat_known(tenant, lead_id=lead_id, phone=phone, chat_id=echo.chat_id)
        return
    origin = echo.origin or "WhatsApp"
    lead = find_lead(tenant, chat_id=echo.chat_id, phone=echo.recipient_phone)
    try:
        with transaction.atomic():
            Message.objects.create(
                tenant=tenant,
                lead=lead,
                channel=Channel.WHATSAPP,
                direction=Message.Direction.OUTBOUND,
                status=Message.Status.SENT,
                body=echo.text or "",
                phone=phone,
                counterpart=echo.recipient_phone,
                provider_message_id=echo.provider_message_id,
                provider_thread_id=echo.chat_id,
                provider_url=echo.chat_url,
                sent_at=echo.sent_at,
                is_manual=True,
                channel_reason=f"sent from {origin}, seen in the provider's echo"[:REASON_MAX],
                raw_response={
                    ECHO_MARK: True,
                    "origin": echo.origin,
                    "attachments": list(echo.attachments),
                },
            )
    except IntegrityError:
        # Stored meanwhile: our send recorded this id, or this echo was processed before.
        _learn_chat(tenant, echo)
    chat_known(tenant, lead_id=lead.pk if lead else None, phone=phone, chat_id=echo.chat_id)


def link_chat(
    tenant: Tenant,
    *,
    chat_id: str,
    chat_url: str,
    contact_phone: str,
    account_id: str = "",
    account_number: str = "",
) -> int:
    """A chat with `contact_phone` appeared on one of our phones: the lead's messages from
    that phone that know no chat yet learn it, so follow-ups are sent into it. A stranger
    or a phone that is not ours changes nothing. Returns how many messages learnt it."""
    phone = None
    if account_id:
        phone = our_phone(tenant, account_id=account_id)
    if phone is None and account_number:
        phone = our_phone(tenant, number=account_number)
    lead = (
        Lead.objects.filter(tenant=tenant, phone=contact_phone).first() if contact_phone else None
    )
    if phone is None or lead is None:
        log.info("chat %s: no lead or phone of ours to link it to", chat_id)
        return 0
    chat_known(tenant, lead_id=lead.pk, phone=phone, chat_id=chat_id)
    return Message.objects.filter(
        tenant=tenant,
        lead=lead,
        phone=phone,
        channel=Channel.WHATSAPP,
        direction=Message.Direction.OUTBOUND,
        provider_thread_id="",
    ).update(provider_thread_id=chat_id, provider_url=chat_url)
