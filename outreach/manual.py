"""Messages written by a person (or an approved AI draft): same phone, same queues, same
refusals as automation, so nothing reaches a lead who opted out."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from functools import partial

from django.contrib.auth.models import User
from django.core.files import File
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from cerniq.model_fields import max_length
from outreach import attachments
from outreach import media as media_files
from outreach.delivery import enqueue_message
from outreach.manual_checks import EMAIL_CHANNELS as EMAIL_CHANNELS
from outreach.manual_checks import (
    NO_QUOTA,
    email_refusal,
    pick_phone,
    whatsapp_refusal,
)
from outreach.manual_checks import UNSENDABLE_EMAIL as UNSENDABLE_EMAIL
from outreach.manual_checks import held_by_message as held_by_message
from outreach.models import Channel, Journey, Lead, Message
from outreach.spintax import CHANNEL_LIMITS
from whatsapp import quota
from whatsapp.models import Phone

MAX_WHATSAPP_TEXT = CHANNEL_LIMITS[Channel.WHATSAPP]
MAX_EMAIL_TEXT = CHANNEL_LIMITS[Channel.EMAIL_WARM]
MAX_EMAIL_SUBJECT = max_length(Message, "subject")


@dataclass(frozen=True)
class AIDraft:
    """Where the text of an answer came from: an AI draft (approved as it was, or edited
    first) or not. Stored on the message (Message.ai_drafted / ai_draft_edited)."""

    drafted: bool = False
    edited: bool = False


NOT_AI = AIDraft()
AI_DRAFT = AIDraft(drafted=True)
AI_DRAFT_EDITED = AIDraft(drafted=True, edited=True)


class SendRefused(ValueError):
    """The message may not be sent; the text says why, for the operator."""


def _phone_for(lead: Lead, journey: Journey) -> tuple[Phone, bool]:
    """The phone for this lead (whatsapp.allocation's rule) and whether it is a new contact."""
    chosen = pick_phone(lead, journey)
    if chosen is None:
        raise SendRefused(str(NO_QUOTA))
    return chosen


def send_manual(
    lead: Lead,
    text: str,
    *,
    user: User | None = None,
    reason: str = "manual message",
    channel: str = Channel.WHATSAPP,
    subject: str = "",
    files: list | None = None,
    idempotency_key: str | None = None,
    ai_draft: AIDraft = NOT_AI,
    media: File | None = None,
) -> Message:
    """Queue a message written by `user` (or approved by them): WhatsApp, or a warm email
    (Resend) for `channel` EMAIL_WARM, with `files` attached (outreach.attachments); a
    WhatsApp message may carry one image or PDF, `media` (outreach.media), its text the
    caption.
    `idempotency_key`: a second send with the same key is an IntegrityError (nothing else
    is changed then: the quota grant rolls back with it). `ai_draft`: whether the text is
    an AI draft `user` approved, as it was or edited (shown in the timeline). A person's
    message does not wait for the sending window: it is a conversation, not outreach
    (outreach.sending)."""
    if media is not None and channel != Channel.WHATSAPP:
        raise SendRefused(
            _("An image or PDF goes with a WhatsApp message; attach files to an email.")
        )
    if channel == Channel.EMAIL_WARM:
        return queue_email(
            lead,
            subject,
            text,
            user=user,
            reason=reason,
            is_manual=True,
            files=files or [],
            idempotency_key=idempotency_key,
            ai_draft=ai_draft,
        )
    if files:
        raise SendRefused(_("Files can only be sent by email."))
    if channel != Channel.WHATSAPP:
        raise SendRefused(_("Choose WhatsApp or email."))
    return queue_reply(
        lead,
        text,
        user=user,
        reason=reason,
        is_manual=True,
        idempotency_key=idempotency_key,
        ai_draft=ai_draft,
        media=media,
    )


def answer(
    lead: Lead,
    text: str,
    *,
    to: Message | None,
    user: User | None = None,
    reason: str,
    is_manual: bool,
    idempotency_key: str | None = None,
    ai_draft: AIDraft = NOT_AI,
) -> Message:
    """Answer a lead on the channel it wrote on: an email in its thread, else WhatsApp. The
    one place that decides where an answer (an AI reply, an approved draft) goes."""
    if to is not None and to.channel in EMAIL_CHANNELS:
        return queue_email(
            lead,
            "",
            text,
            user=user,
            reason=reason,
            is_manual=is_manual,
            idempotency_key=idempotency_key,
            in_reply_to=to,
            ai_draft=ai_draft,
        )
    return queue_reply(
        lead,
        text,
        user=user,
        reason=reason,
        is_manual=is_manual,
        idempotency_key=idempotency_key,
        ai_draft=ai_draft,
    )


@transaction.atomic
def queue_email(
    lead: Lead,
    subject: str,
    text: str,
    *,
    user: User | None = None,
    reason: str,
    is_manual: bool,
    idempotency_key: str | None = None,
    in_reply_to: Message | None = None,
    files: list | None = None,
    ai_draft: AIDraft = NOT_AI,
) -> Message:
    """Queue an email (a person's, an approved draft, an AI answer) through the one send
    path: the same refusals as WhatsApp (opt-out, suppression, takeover) plus the address's
    status, and the email's own limits. `in_reply_to` (an inbound email) answers in its
    thread, on its channel: a cold email's reply goes back through Instantly's reply
    endpoint from the account it reached, a warm one through Resend."""
    channel: str = Channel.EMAIL_WARM
    thread, sender = "", ""
    if in_reply_to is not None:
        channel = in_reply_to.channel
        thread = in_reply_to.provider_thread_id
        sender = str((in_reply_to.raw_response or {}).get("email_account") or "")
        if not subject:
            answered = " ".join((in_reply_to.subject or "").split())
            subject = answered if answered.lower().startswith("re:") else f"Re: {answered}"
    text, subject = (text or "").strip(), " ".join((subject or "").split())
    if not text:
        raise SendRefused(_("The message is empty."))
    if not subject:
        raise SendRefused(_("An email needs a subject."))
    if len(subject) > MAX_EMAIL_SUBJECT or len(text) > MAX_EMAIL_TEXT or "\x00" in text:
        raise SendRefused(
            _("Emails are limited to a %(s)d-character subject and %(n)d characters of text.")
            % {"s": MAX_EMAIL_SUBJECT, "n": MAX_EMAIL_TEXT}
        )
    journey = (
        Journey.objects.select_for_update(of=("self",))
        .select_related("taken_over_by")
        .get(lead=lead)
    )
    if why := email_refusal(lead, journey, user if is_manual else None):
        raise SendRefused(why)
    try:
        checked = attachments.check(list(files or []))
    except attachments.AttachmentRefused as refused:
        raise SendRefused(str(refused)) from None
    message = Message.objects.create(
        tenant_id=lead.tenant_id,
        lead=lead,
        channel=channel,
        direction=Message.Direction.OUTBOUND,
        status=Message.Status.QUEUED,
        subject=subject,
        body=text,
        counterpart=lead.email,
        provider_thread_id=thread,
        raw_request={"sender": sender} if sender else None,
        is_manual=is_manual,
        sent_by=user,
        ai_drafted=ai_draft.drafted,
        ai_draft_edited=ai_draft.edited,
        idempotency_key=idempotency_key or f"manual:{uuid.uuid4()}",
        channel_reason=reason,
        scheduled_for=timezone.now(),
    )
    attachments.store(message, checked)
    transaction.on_commit(partial(enqueue_message, message))
    return message


@transaction.atomic
def queue_reply(
    lead: Lead,
    text: str,
    *,
    user: User | None = None,
    reason: str,
    is_manual: bool,
    idempotency_key: str | None = None,
    allow_opted_out: bool = False,
    ai_draft: AIDraft = NOT_AI,
    media: File | None = None,
) -> Message:
    """Queue a conversational WhatsApp message (not a sequence step) on the lead's phone,
    with `media` (an image or PDF, stored once per tenant: outreach.media) if given.

    Automated replies (`is_manual=False`, e.g. an AI auto-reply) carry a key derived from
    what they answer, so processing the same reply twice never sends two answers.
    """
    text = (text or "").strip()
    if not text:
        raise SendRefused(_("The message is empty."))
    if len(text) > MAX_WHATSAPP_TEXT or "\x00" in text:
        raise SendRefused(
            _("WhatsApp messages are limited to %(n)d characters.") % {"n": MAX_WHATSAPP_TEXT}
        )
    journey = (
        Journey.objects.select_for_update(of=("self",))
        .select_related("taken_over_by")
        .get(lead=lead)
    )
    why = whatsapp_refusal(
        lead, journey, user if is_manual else None, allow_opted_out=allow_opted_out
    )
    if why:
        raise SendRefused(why)
    phone, new_contact = _phone_for(lead, journey)
    day = None
    if new_contact:
        day = quota.quota_day(lead.tenant)
        if not quota.reserve_new_contact(phone, day):
            raise SendRefused(
                _("%(phone)s has no new-contact quota left today.") % {"phone": phone}
            )
    stored = None
    if media is not None:
        try:
            stored = media_files.store(lead.tenant_id, media, user=user)
        except media_files.MediaRefused as refused:
            raise SendRefused(str(refused)) from None
    message = Message.objects.create(
        tenant_id=lead.tenant_id,
        lead=lead,
        channel=Channel.WHATSAPP,
        media=stored,
        direction=Message.Direction.OUTBOUND,
        status=Message.Status.QUEUED,
        body=text,
        phone=phone,
        counterpart=lead.phone,
        quota_cost=1 if new_contact else 0,
        quota_day=day,
        is_manual=is_manual,
        sent_by=user,
        ai_drafted=ai_draft.drafted,
        ai_draft_edited=ai_draft.edited,
        idempotency_key=idempotency_key or f"manual:{uuid.uuid4()}",
        channel_reason=reason,
        scheduled_for=timezone.now(),
    )
    if journey.assigned_phone_id != phone.pk:
        Journey.objects.filter(pk=journey.pk).update(
            assigned_phone=phone, assigned_at=timezone.now()
        )
    transaction.on_commit(partial(enqueue_message, message))
    return message
