"""The email transports (outreach.transports), cold and warm: the provider the channel is
carried by, the email as rendered for its first attempt, batches, earlier sends found."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone
from django.utils.html import linebreaks

from cerniq import reasons
from cerniq.provider_errors import (
    ProviderError,
    SendResult,
)
from cerniq.providers import get_backend
from email_channels import readiness, reputation
from email_channels.addresses import domain_of
from email_channels.backends import EmailBackend, OutgoingEmail, SentQuery
from outreach import attachments, unsubscribe
from outreach import reasons as codes
from outreach.models import Channel, Journey, Lead, Message, Stage
from outreach.readiness import email_readiness
from outreach.sequences import is_opt_out_confirmation
from outreach.transports import (
    LOOKBACK_SKEW,
    Transport,
    recipient,
    recipient_id,
)


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
