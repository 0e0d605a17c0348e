"""Transports: what each channel adds to the one send path (outreach.sending).

The send path owns the rules; a transport only knows its channel: which opt-out flag
applies, what else can block a send (a WhatsApp phone that is offline), the resource a
send holds (a phone's pacing lease; email holds none), how to call the provider, how to
find an earlier attempt there, and what a failure means for the lead or the account.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any, ClassVar

from django.conf import settings
from django.utils import timezone
from django.utils.html import linebreaks

from cerniq import reasons
from cerniq.provider_errors import (
    AccountBanned,
    AccountRestricted,
    ProviderError,
    RejectedRequest,
    SendResult,
)
from cerniq.providers import get_backend
from email_channels import readiness, reputation
from email_channels.addresses import domain_of
from email_channels.backends import EmailBackend, OutgoingEmail, SentQuery
from outreach import attachments, customer_window, pacing, phone_health, unsubscribe
from outreach import reasons as codes
from outreach.models import Channel, Journey, Lead, Message, Stage
from outreach.readiness import email_readiness
from outreach.replanning import take_phone_offline
from outreach.sequences import is_opt_out_confirmation
from outreach.spintax import lead_variables
from outreach.suppression import Listed, channel_address, listed
from whatsapp import reasons as phone_reasons
from whatsapp.backends import OutgoingWhatsApp, WhatsAppBackend
from whatsapp.models import Phone

# Earlier attempts are looked for from a minute before they started (clock skew).
LOOKBACK_SKEW = timedelta(minutes=1)


# Where a WhatsApp backend's own rendering of a message is kept in `raw_request`
# (WhatsAppBackend.prepare), and the reason it could not be rendered.
PREPARED = "whatsapp_request"
PREPARE_ERROR = "error"


def outgoing_whatsapp(message: Message, phone: Phone) -> OutgoingWhatsApp:
    """What a WhatsApp backend is told of a message it shapes itself."""
    lead = recipient(message)
    return OutgoingWhatsApp(
        tenant_id=message.tenant_id,
        account_phone=phone.number,
        account_id=phone.account_id,
        to=message.counterpart,
        to_user_id=lead.whatsapp_user_id,
        text=message.body,
        template_version_id=message.template_version_id,
        variables=lead_variables(lead),
        window_open=customer_window.is_open(lead.pk, phone.pk, timezone.now()),
        reference=message.idempotency_key or "",
        is_manual=message.is_manual,
    )


def starts_chat(message: Message) -> bool:
    """A first message: one that costs a new-contact slot, or one the person asked for
    (which costs none, whatsapp.quota.cost) — either way it opens the chat."""
    return bool(message.quota_cost or message.solicited)


class MissingRecipient(ValueError):
    """An outbound message without its lead or (WhatsApp) its phone reached a step that
    needs it. The send path drops such a message first (why_not_send), so this is a bug."""


def recipient_id(message: Message) -> int:
    """The lead an outbound message goes to (only an inbound row may have none)."""
    if message.lead_id is None:
        raise MissingRecipient(f"message {message.pk} has no lead")
    return message.lead_id


def recipient(message: Message) -> Lead:
    lead = message.lead
    if lead is None:
        raise MissingRecipient(f"message {message.pk} has no lead")
    return lead


def sending_phone_id(message: Message) -> int:
    """The phone a WhatsApp message goes out on (WhatsAppTransport.blocker checks it)."""
    if message.phone_id is None:
        raise MissingRecipient(f"WhatsApp message {message.pk} has no phone")
    return message.phone_id


def sending_phone(message: Message) -> Phone:
    phone = message.phone
    if phone is None:
        raise MissingRecipient(f"WhatsApp message {message.pk} has no phone")
    return phone


class Transport:
    """The channel-specific half of a send. Subclasses fill in every hook."""

    channel: str = ""  # EmailTransport's is per instance (cold or warm)
    label: ClassVar[str] = ""  # in reasons shown to operators: "lead opted out of WhatsApp"
    contacted_stage: ClassVar[str] = ""
    busy_reason: ClassVar[str] = ""
    # How long one attempt may take at the provider: a SENDING row younger than this may
    # still be in flight, so it is not treated as lost.
    attempt_lease: ClassVar[timedelta] = pacing.SEND_LEASE

    def opted_out(self, journey: Journey) -> bool:
        raise NotImplementedError

    def blocker(self, message: Message, journey: Journey) -> str:
        """What else stops this send now ("" when nothing does)."""
        return ""

    def suppressed(self, message: Message, found: Listed | None = None) -> str:
        """The kind of the suppression-list entry naming the recipient's address (an
        email's domain too) or the lead's company; "" when none does. `found`: the entries
        read for a whole batch already (`listed_for`), else they are read now."""
        address, cui = self._names(message)
        if found is None:
            found = self.listed_for([message])
        names = found.of(**address, cui=cui)
        return names.whatsapp_kind if self.channel == Channel.WHATSAPP else names.email_kind

    def listed_for(self, messages: list[Message]) -> Listed:
        """The suppression-list entries naming these messages' recipients (one query; the
        messages are of one tenant)."""
        if not messages:
            return Listed()
        names = [self._names(message) for message in messages]
        return listed(
            messages[0].tenant_id,
            phones=[address.get("phone", "") for address, _ in names],
            emails=[address.get("email", "") for address, _ in names],
            cuis=[cui for _, cui in names],
        )

    def _names(self, message: Message) -> tuple[dict[str, str], str]:
        """The recipient's address on this channel, and its company's CUI."""
        lead = message.lead if message.lead_id else None
        cui = lead.cui if lead else ""
        address = channel_address(
            self.channel, phone=message.counterpart, email=message.counterpart
        )
        return address, cui

    def acquire(self, message: Message, now: datetime) -> datetime | None:
        """Take what a send holds; None when taken, else when to try again."""
        return None

    def acquire_many(self, messages: list[Message], now: datetime) -> dict[int, datetime]:
        """`acquire` for a batch (outreach.pushing): when to try again, for each message
        that could not take it (the others took it)."""
        busy = {message.pk: self.acquire(message, now) for message in messages}
        return {pk: at for pk, at in busy.items() if at is not None}

    def release(self, message: Message, *, called: bool) -> None:
        """Give it back (after the provider was `called`, or before any call)."""

    def request_to_store(self, message: Message) -> dict[str, Any] | None:
        """The message's `raw_request` with its request rendered, to store when the first
        attempt claims it; None when nothing is rendered, or it was on an earlier attempt."""
        return None

    def deliver(self, message: Message) -> SendResult:
        raise NotImplementedError

    def find_earlier(self, message: Message) -> SendResult | None:
        """The provider's record of an earlier attempt of this message, if it went out."""
        raise NotImplementedError

    def find_earlier_many(self, messages: list[Message]) -> dict[int, SendResult]:
        """`find_earlier` for a batch: the provider's record of each message found there,
        by message id; a ProviderError when the provider could not be asked."""
        found = {message.pk: self.find_earlier(message) for message in messages}
        return {pk: result for pk, result in found.items() if result is not None}

    def count_sent(self, message: Message, at: datetime) -> None:
        """Count a send on what sent it (once per message: the send path calls it only
        when it records the message sent, whichever attempt or reconciliation found it)."""

    def count_sent_many(self, messages: list[Message], at: datetime) -> None:
        """`count_sent` for a batch recorded at once."""
        for message in messages:
            self.count_sent(message, at)

    def journey_changes(self, message: Message) -> dict[str, Any]:
        return {}

    def recipient_invalid(self, message: Message) -> None:
        """The provider refused the recipient for good."""

    def recipient_confirmed(self, message: Message) -> None:
        """The provider took a message for the recipient: the address is real."""

    def recipient_confirmed_many(self, messages: list[Message]) -> None:
        for message in messages:
            self.recipient_confirmed(message)

    def account_down(self, message: Message, error: ProviderError) -> None:
        """The sending account is disconnected, restricted or banned (`error` says which)."""

    def provider_name(self, message: Message) -> str:
        raise NotImplementedError

    def our_sender(self) -> str:
        """The address our own sends of this channel go from, for the reputation guard
        (email_channels.reputation); "" when the provider picks it, or not email."""
        return ""


class WhatsAppTransport(Transport):
    channel = Channel.WHATSAPP
    label = "WhatsApp"
    contacted_stage = Stage.CONTACTED_WA
    busy_reason = "phone busy or pacing gap"

    def backend(self, phone: Phone) -> WhatsAppBackend:
        return get_backend(f"whatsapp.{phone.provider}")

    def opted_out(self, journey: Journey) -> bool:
        return journey.whatsapp_opted_out

    def blocker(self, message: Message, journey: Journey) -> str:
        phone = message.phone
        if phone is None:
            return reasons.code(codes.NOT_SENT_NO_PHONE)
        if not phone.is_usable:
            Journey.objects.filter(pk=journey.pk).update(next_action_at=timezone.now())
            return reasons.code(codes.REPLANNED, phone=str(phone), status=phone.status)
        return ""

    def acquire(self, message: Message, now: datetime) -> datetime | None:
        return pacing.claim_phone(sending_phone_id(message), now)

    def release(self, message: Message, *, called: bool) -> None:
        if called:
            pacing.finish_send(sending_phone_id(message), message.tenant)
        else:
            pacing.release_unused(sending_phone_id(message))

    def request_to_store(self, message: Message) -> dict[str, Any] | None:
        """What a backend that shapes its own requests (the Cloud API: an approved template
        outside the customer-service window) renders for this message, once; the text the
        person will read becomes the message's body, so the timeline shows what was sent.
        A message that cannot go out as it is keeps the reason, and is prepared again on a
        later attempt (an operator may have approved a template meanwhile)."""
        stored = message.raw_request or {}
        if PREPARED in stored and PREPARE_ERROR not in stored[PREPARED]:
            return None
        phone = sending_phone(message)
        try:
            prepared = self.backend(phone).prepare(outgoing_whatsapp(message, phone))
        except ProviderError as error:
            return {**stored, PREPARED: {PREPARE_ERROR: str(error), "class": type(error).__name__}}
        if prepared is None:
            return None
        text = prepared.get("text")
        if isinstance(text, str) and text.strip() and text != message.body:
            Message.objects.filter(pk=message.pk).update(body=text)
            message.body = text
        return {**stored, PREPARED: prepared}

    def deliver(self, message: Message) -> SendResult:
        phone = sending_phone(message)
        backend = self.backend(phone)
        prepared = (message.raw_request or {}).get(PREPARED)
        if isinstance(prepared, dict):
            if PREPARE_ERROR in prepared:
                raise RejectedRequest(prepared[PREPARE_ERROR])
            return backend.send_prepared(
                account_id=phone.account_id,
                to=message.counterpart,
                to_user_id=recipient(message).whatsapp_user_id,
                prepared=prepared,
                reference=message.idempotency_key or "",
            )
        chat_id = message.provider_thread_id or self._known_chat(message, backend)
        if chat_id and not starts_chat(message):
            return backend.send_to_chat(chat_id=chat_id, text=message.body)
        return backend.send_to_phone(
            account_phone=phone.number, to=message.counterpart, text=message.body
        )

    def _known_chat(self, message: Message, backend: WhatsAppBackend) -> str:
        """The chat of an earlier message to this lead from this phone (follow-ups go there)."""
        if starts_chat(message):
            return ""
        earlier = (
            Message.objects.filter(
                lead_id=recipient_id(message),
                phone_id=sending_phone_id(message),
                channel=Channel.WHATSAPP,
                direction=Message.Direction.OUTBOUND,
            )
            .exclude(provider_thread_id="")
            .values_list("provider_thread_id", flat=True)
            .first()
        )
        if earlier:
            return earlier
        account_id = sending_phone(message).account_id
        chat = backend.find_chat(to=message.counterpart, account_id=account_id)
        return str(chat["id"]) if chat else ""

    def find_earlier(self, message: Message) -> SendResult | None:
        started = message.attempt_started_at or message.updated_at
        phone = sending_phone(message)
        return self.backend(phone).find_sent(
            to=message.counterpart,
            text=message.body,
            since=started - LOOKBACK_SKEW,
            account_id=phone.account_id,
            reference=message.idempotency_key or "",
        )

    def count_sent(self, message: Message, at: datetime) -> None:
        # What the health guard reads (failures since the last send) and the phone pages show.
        pacing.count_send(sending_phone_id(message), new_contact=starts_chat(message), at=at)

    def journey_changes(self, message: Message) -> dict[str, Any]:
        return {"assigned_phone_id": message.phone_id}

    def recipient_invalid(self, message: Message) -> None:
        # "Not on WhatsApp": the number is marked; dispatch falls back to email.
        Lead.objects.filter(pk=recipient_id(message)).update(phone_reachable=False)

    def recipient_confirmed(self, message: Message) -> None:
        # The provider's answer is the check of an unchecked number (never a bulk lookup).
        Lead.objects.filter(pk=recipient_id(message), phone=message.counterpart).exclude(
            phone_reachable=True
        ).update(phone_reachable=True)

    def account_down(self, message: Message, error: ProviderError) -> None:
        """A ban makes the number BANNED, a restriction makes the health guard pause it,
        anything else is a disconnection (OFFLINE); its queued work is re-planned."""
        if isinstance(error, AccountRestricted):
            phone_health.restricted(sending_phone(message), str(error))
        else:
            said = reasons.code(phone_reasons.SEND_FAILED, detail=str(error))
            banned = isinstance(error, AccountBanned)
            take_phone_offline(sending_phone(message), said, banned=banned)

    def provider_name(self, message: Message) -> str:
        return message.phone.provider if message.phone else "whatsapp"


class EmailTransport(Transport):
    """Cold (Instantly) and warm (Resend) email. The provider dedupes a repeated
    idempotency key, so the key is what makes a retried call safe."""

    label = "email"
    contacted_stage = Stage.CONTACTED_EMAIL
    attempt_lease = timedelta(seconds=90)

    busy_reason = "its sender is paused by the reputation guard or not ready at its provider"
    SENDER_PAUSE_RECHECK = timedelta(hours=1)

    def __init__(self, channel: str) -> None:
        self.channel = channel

    def backend(self) -> EmailBackend:
        return get_backend(email_alias(self.channel))

    def our_sender(self) -> str:
        return self.backend().sender_address()

    def acquire(self, message: Message, now: datetime) -> datetime | None:
        """An automated email waits while the reputation guard pauses its sender or the
        sender's domain (email_channels.reputation), or its provider says the sender is
        not ready (email_channels.readiness); a person's message goes."""
        return self.acquire_many([message], now).get(message.pk)

    def acquire_many(self, messages: list[Message], now: datetime) -> dict[int, datetime]:
        """The sender's state is read once per tenant, however many messages."""
        sender = self.our_sender()
        automated = [m for m in messages if not m.is_manual]
        if not sender or not automated:
            return {}
        provider = self.provider
        paused: dict[int, bool] = {}
        for tenant_id in {m.tenant_id for m in automated}:
            sender_paused = reputation.pause_of(tenant_id, provider, sender) is not None
            not_ready = readiness.not_ready(provider, [sender, domain_of(sender)])
            paused[tenant_id] = sender_paused or bool(not_ready)
        later = now + self.SENDER_PAUSE_RECHECK
        return {m.pk: later for m in automated if paused[m.tenant_id]}

    def count_sent(self, message: Message, at: datetime) -> None:
        self.count_sent_many([message], at)

    def count_sent_many(self, messages: list[Message], at: datetime) -> None:
        """One count per tenant on the sender's day, however many messages."""
        if sender := self.our_sender():
            day = timezone.localdate(at)
            provider = self.provider
            for tenant_id, n in Counter(m.tenant_id for m in messages).items():
                reputation.count(tenant_id, provider, sender, day, sent=n)

    def opted_out(self, journey: Journey) -> bool:
        return journey.email_opted_out

    def blocker(self, message: Message, journey: Journey) -> str:
        """A person writes to any address that is not known bad; automation also needs the
        lead's email readiness (an unchecked address only under the tenant's policy)."""
        lead = recipient(message)
        status = lead.email_status
        if message.is_manual or is_opt_out_confirmation(message):
            if status in (Lead.EmailStatus.VALID, Lead.EmailStatus.RISKY):
                return ""
            return reasons.code(codes.NOT_SENT_EMAIL_STATUS, status=status)
        ready = email_readiness(lead, journey, message.tenant)
        return "" if ready.usable else ready.reason

    def request_to_store(self, message: Message) -> dict[str, Any] | None:
        """The email rendered for the first attempt (its unsubscribe link, signed with a
        timestamp, differs at every rendering): every attempt sends these same bytes under
        the same idempotency key."""
        stored = message.raw_request or {}
        if STORED_EMAIL in stored:
            return None
        return {**stored, STORED_EMAIL: _render(message).stored()}

    def deliver(self, message: Message) -> SendResult:
        return self.backend().send(
            outgoing_email(message), idempotency_key=idempotency_key(message)
        )

    def deliver_many(self, messages: list[Message]) -> list[SendResult | ProviderError]:
        """One provider call for a batch (outreach.pushing): a result per message, in order."""
        emails = [(outgoing_email(m), idempotency_key(m)) for m in messages]
        return self.backend().send_many(emails)

    @property
    def max_batch(self) -> int:
        return self.backend().max_batch

    def find_earlier(self, message: Message) -> SendResult | None:
        return self.find_earlier_many([message]).get(message.pk)

    def find_earlier_many(self, messages: list[Message]) -> dict[int, SendResult]:
        """Looked for in one call where the provider can (Instantly's lead list)."""
        sends = [
            SentQuery(
                idempotency_key=idempotency_key(m),
                to=m.counterpart,
                since=(m.attempt_started_at or m.updated_at) - LOOKBACK_SKEW,
                email=outgoing_email(m),
            )
            for m in messages
        ]
        found = self.backend().find_sent_many(sends)
        pairs = zip(messages, found, strict=True)
        return {m.pk: result for m, result in pairs if result is not None}

    def recipient_invalid(self, message: Message) -> None:
        Lead.objects.filter(pk=recipient_id(message)).update(email_status=Lead.EmailStatus.INVALID)

    def provider_name(self, message: Message) -> str:
        return self.provider

    @property
    def provider(self) -> str:
        """The provider key carrying this channel (instantly, resend)."""
        return email_alias(self.channel).split(".", 1)[1]


def email_alias(channel: str) -> str:
    """The provider alias carrying an email channel (settings.EMAIL_CHANNEL_PROVIDERS: cold
    email through Instantly and warm through Resend unless the deployment says otherwise)."""
    return f"email.{settings.EMAIL_CHANNEL_PROVIDERS[channel]}"


# `Message.raw_request` key of the email as rendered for its first attempt.
STORED_EMAIL = "email"


def outgoing_email(message: Message) -> OutgoingEmail:
    """The email of a message as every backend gets it: the one stored when its first
    attempt claimed it (`request_to_store`), else rendered now."""
    stored = (message.raw_request or {}).get(STORED_EMAIL)
    email = OutgoingEmail.from_stored(stored) if stored else _render(message)
    if message.is_manual:  # only a person attaches files (no query for the sequences' emails)
        email = replace(email, attachments=attachments.for_sending(message))
    return email


def _render(message: Message) -> OutgoingEmail:
    """The text and an HTML version of it (escaped, line breaks kept), the RFC 8058
    one-click unsubscribe headers, and tags that name the tenant and the message at the
    provider (attachments apart)."""
    return OutgoingEmail(
        to=message.counterpart,
        subject=message.subject,
        text=message.body,
        html=linebreaks(message.body, autoescape=True),
        headers=unsubscribe.headers_for(recipient(message)),
        tags={"tenant_id": str(message.tenant_id), "message_id": str(message.pk)},
        campaign=campaign_key(message),
        in_reply_to=message.provider_thread_id,
        sender=str((message.raw_request or {}).get("sender") or ""),
    )


def campaign_key(message: Message) -> str:
    """The provider-side campaign a cold email joins: one per tenant and sequence (a lead
    gets one cold email per sequence; its follow-ups are warm, outreach.channels)."""
    if message.channel != Channel.EMAIL_COLD or not message.sequence_id:
        return ""  # an answer in a thread joins no campaign
    return f"tenant:{message.tenant_id}:sequence:{message.sequence_id}"


def idempotency_key(message: Message) -> str:
    """The key the email provider dedupes on: the same for every attempt of a message."""
    return message.idempotency_key or f"message-{message.pk}"


_TRANSPORTS: dict[str, Transport] = {
    Channel.WHATSAPP: WhatsAppTransport(),
    Channel.EMAIL_COLD: EmailTransport(Channel.EMAIL_COLD),
    Channel.EMAIL_WARM: EmailTransport(Channel.EMAIL_WARM),
}


def transport_for(channel: str) -> Transport:
    return _TRANSPORTS[channel]
