"""A WhatsApp status moved, or a WhatsApp account changed state: the core's rules, whichever
provider reported it (a TimelinesAI poll, a Cloud API webhook).

- A message's status only moves forward (outreach.message_status). A failure the provider
  reports after the send (a Cloud API status `failed` with its error) has the consequences
  a failure at send time has (outreach.whatsapp_transport.WhatsAppTransport): a number not on
  WhatsApp is marked, a restricted or banned account is paused or taken offline.
- An account the provider reports disconnected goes OFFLINE (its queued work re-planned), a
  banned one BANNED, a restricted one is paused by the health guard; one reported connected
  again is ACTIVE (whatsapp.phones owns the status change itself).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime

from cerniq.models import Tenant
from cerniq.provider_errors import (
    AccountDisconnected,
    InvalidRecipient,
    ProviderError,
)
from outreach import phone_health
from outreach.message_status import advance, further
from outreach.models import Channel, Message
from outreach.replanning import take_phone_offline
from whatsapp.models import Phone
from whatsapp.phones import mark_active

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class StatusReport:
    """What a provider says of one of our WhatsApp sends."""

    provider_message_id: str
    status: str  # a Message.Status: SENT, DELIVERED, READ or FAILED
    at: datetime | None = None
    error: ProviderError | None = None  # why it failed, mapped by the provider package


def move(message: Message, report: StatusReport) -> bool:
    """Move `message` as `report` says (never backwards); a failure's consequences follow.
    True when it moved."""
    if not further(report.status, than=message.status):
        return False
    error_text = str(report.error) if report.error is not None else ""
    moved = advance(message, report.status, at=report.at, error=error_text)
    if moved and report.status == Message.Status.FAILED and report.error is not None:
        failed_after_sending(message, report.error)
    return moved


def status_reported(tenant: Tenant, report: StatusReport) -> bool:
    """A provider reported a status of a send by its id. A send we have no row for (another
    tool's, or a row not written yet) changes nothing; True when a message moved."""
    message = (
        Message.objects.select_related("phone")
        .filter(
            tenant=tenant,
            channel=Channel.WHATSAPP,
            direction=Message.Direction.OUTBOUND,
            provider_message_id=report.provider_message_id,
        )
        .first()
    )
    if message is None:
        log.info("status %s of an unknown send %s", report.status, report.provider_message_id)
        return False
    return move(message, report)


def failed_after_sending(message: Message, error: ProviderError) -> None:
    """What a failure reported after the send means for the lead's number and ours."""
    from outreach.whatsapp_transport import WhatsAppTransport

    transport = WhatsAppTransport()
    if isinstance(error, InvalidRecipient) and message.lead_id:
        transport.recipient_invalid(message)
    elif isinstance(error, AccountDisconnected) and message.phone_id:
        transport.account_down(message, error)


def account_reported(
    phone: Phone,
    *,
    connected: bool,
    reason: str = "",
    banned: bool = False,
    restricted: bool = False,
    reinstated: bool = False,
) -> str:
    """The provider says `phone`'s account is (dis)connected, banned, restricted, or
    reinstated after a ban. Returns the change made ("" when none): a repeated report
    changes nothing. Only a reinstatement lifts a ban; "connected" lifts a disconnection."""
    if restricted:
        phone_health.restricted(phone, reason)
        return f"{phone.number}: restricted"
    if connected:
        lifted = Phone.Status.BANNED if reinstated else Phone.Status.OFFLINE
        if phone.status in (Phone.Status.OFFLINE, lifted):
            was = phone.status
            mark_active(phone)
            return f"{phone.number}: {was} → ACTIVE"
        return ""
    target = Phone.Status.BANNED if banned else Phone.Status.OFFLINE
    if phone.status == Phone.Status.ACTIVE or (banned and phone.status != target):
        was = phone.status
        take_phone_offline(phone, reason, banned=banned)
        return f"{phone.number}: {was} → {target}"
    return ""
