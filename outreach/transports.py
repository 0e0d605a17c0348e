"""Transports: what each channel adds to the one send path (outreach.sending).

The send path owns the rules; a transport only knows its channel: which opt-out flag
applies, what else can block a send (a WhatsApp phone that is offline), the resource a
send holds (a phone's pacing lease; email holds none), how to call the provider, how to
find an earlier attempt there, and what a failure means for the lead or the account.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, ClassVar

from cerniq.provider_errors import (
    ProviderError,
    SendResult,
)
from outreach import pacing
from outreach.models import Channel, Journey, Lead, Message
from outreach.suppression import Listed, channel_address, listed
from whatsapp.models import Phone

# Earlier attempts are looked for from a minute before they started (clock skew).
LOOKBACK_SKEW = timedelta(minutes=1)


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


# The transports of each channel (modules of their own, which build on the base above).
from outreach.email_transport import EmailTransport  # noqa: E402
from outreach.whatsapp_transport import WhatsAppTransport  # noqa: E402

_TRANSPORTS: dict[str, Transport] = {
    Channel.WHATSAPP: WhatsAppTransport(),
    Channel.EMAIL_COLD: EmailTransport(Channel.EMAIL_COLD),
    Channel.EMAIL_WARM: EmailTransport(Channel.EMAIL_WARM),
}


def transport_for(channel: str) -> Transport:
    return _TRANSPORTS[channel]
