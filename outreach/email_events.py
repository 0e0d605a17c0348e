"""What the email providers tell us, applied to our messages and leads: one set of service
functions that every email integration's webhook handlers call (Instantly, Resend, the demo),
so a bounce, a complaint or an unsubscribe means the same thing whoever reports it.

- Message statuses only move forward (outreach.message_status: SENT → DELIVERED → READ;
  BOUNCED and FAILED are
  final): providers do not promise order (docs/providers.md §3.4), and a late "delivered" must
  never undo a bounce.
- A hard bounce marks the address BOUNCED on every lead of the tenant that carries it and
  suppresses it, so no campaign writes to it again; a soft one is only noted.
- A complaint or an unsubscribe opts the lead out of every channel (issue #11 §8:
  `outreach.optout.opt_out`) and suppresses the address for non-leads too.
- A reply goes through `hitl.replies.receive_email_reply` (the reply path lives above this
  layer).
"""

from __future__ import annotations

import logging
from datetime import datetime

from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from cerniq import reasons
from cerniq.models import Tenant
from email_channels import reputation
from outreach import optout
from outreach import reasons as codes
from outreach.message_status import advance
from outreach.models import SENT_STATUSES, Channel, Lead, Message, Suppression
from outreach.suppression import suppress

log = logging.getLogger(__name__)

EMAIL_CHANNELS = (Channel.EMAIL_COLD, Channel.EMAIL_WARM)
Status = Message.Status
EmailStatus = Lead.EmailStatus

# The email status of an address only gets worse: a bounce is not undone by an open of an
# older email, an unsubscribe not by a later delivery.
_EMAIL_RANK: dict[str, int] = {
    EmailStatus.UNKNOWN: 0,
    EmailStatus.VALID: 0,
    EmailStatus.RISKY: 0,
    EmailStatus.INVALID: 1,
    EmailStatus.BOUNCED: 2,
    EmailStatus.UNSUBSCRIBED: 3,
    EmailStatus.COMPLAINED: 4,
}


def normal_email(email: str) -> str:
    return (email or "").strip().lower()


def leads_with_email(tenant: Tenant, email: str) -> QuerySet[Lead]:
    """The tenant's leads that carry this address (case-insensitive)."""
    email = normal_email(email)
    if not email:
        return Lead.objects.none()
    return Lead.objects.filter(tenant=tenant, email__iexact=email)


def find_message(
    tenant: Tenant, *, provider_message_id: str = "", idempotency_key: str = ""
) -> Message | None:
    """Our outbound email with this provider id (or idempotency key), if we have it."""
    if not (provider_message_id or idempotency_key):
        return None
    match = Q(pk__in=[])
    if provider_message_id:
        match |= Q(provider_message_id=provider_message_id)
    if idempotency_key:
        match |= Q(idempotency_key=idempotency_key)
    return (
        Message.objects.filter(
            match,
            tenant=tenant,
            channel__in=EMAIL_CHANNELS,
            direction=Message.Direction.OUTBOUND,
        )
        .select_related("lead")
        .first()
    )


def learn_provider_id(tenant: Tenant, message_tag: str, provider_message_id: str) -> bool:
    """Our sent email named by its message tag (`OutgoingEmail.tags`) learns the provider's
    id when it was recorded without one: a send the provider answered with "I hold this
    already" instead of its id (outreach.sending, `AlreadyAccepted`). Its later events then
    find it like any other. Only a recorded send learns (an attempt in flight is recorded
    with the id its own answer carries). True when learnt."""
    if not (message_tag.isdigit() and provider_message_id):
        return False
    taken = Message.objects.filter(
        channel__in=EMAIL_CHANNELS, provider_message_id=provider_message_id
    )
    if taken.exists():
        return False
    return bool(
        Message.objects.filter(
            pk=int(message_tag),
            tenant=tenant,
            channel__in=EMAIL_CHANNELS,
            direction=Message.Direction.OUTBOUND,
            status__in=SENT_STATUSES,
            provider_message_id="",
        ).update(provider_message_id=provider_message_id)
    )


def message_event(
    tenant: Tenant, *, provider_message_id: str, status: str, at: datetime | None = None
) -> bool:
    """A delivery, an open or a click of one of our emails (status DELIVERED or READ).
    False when we do not know the email or it is already that far."""
    message = find_message(tenant, provider_message_id=provider_message_id)
    if message is None:
        log.info("email event %s for an email we did not send (%s)", status, provider_message_id)
        return False
    return advance(message, status, at=at)


def delivery_failed(tenant: Tenant, *, provider_message_id: str, reason: str) -> bool:
    """The provider gave up on an email it had accepted (Resend `email.failed`)."""
    message = find_message(tenant, provider_message_id=provider_message_id)
    if message is None:
        return False
    return advance(message, Status.FAILED, error=f"provider gave up: {reason}")


def _worsen(tenant: Tenant, email: str, status: str) -> list[int]:
    """Set the address's status on every lead that carries it, unless already worse."""
    better = [s for s, rank in _EMAIL_RANK.items() if rank < _EMAIL_RANK[status]]
    leads = leads_with_email(tenant, email)
    ids = list(leads.values_list("pk", flat=True))
    leads.filter(email_status__in=better).update(email_status=status)
    return ids


@transaction.atomic
def bounced(
    tenant: Tenant,
    *,
    email: str,
    permanent: bool,
    provider_message_id: str = "",
    reason: str = "",
) -> list[int]:
    """A bounce. The message becomes BOUNCED; a permanent one also marks the address on
    every lead that carries it and suppresses it. Returns the ids of those leads."""
    message = find_message(tenant, provider_message_id=provider_message_id)
    if message is not None:
        label = "hard" if permanent else "soft"
        if permanent:
            advance(message, Status.BOUNCED, error=f"{label} bounce: {reason}".strip())
        else:
            Message.objects.filter(pk=message.pk).update(error=f"soft bounce: {reason}"[:2000])
        email = email or message.counterpart
    if not permanent or not normal_email(email):
        return []
    if message is not None:
        against_sender(message, bounced=1)
    said = reasons.code(codes.SUPPRESSED_HARD_BOUNCE, detail=reason)
    suppress(tenant, email=email, reason=said, message=message, source=Suppression.Source.BOUNCE)
    return _worsen(tenant, email, EmailStatus.BOUNCED)


def against_sender(message: Message, *, bounced: int = 0, complained: int = 0) -> None:
    """A hard bounce or a complaint on an email we sent ourselves counts against its
    sender, and the reputation guard judges the sender and its domain
    (email_channels.reputation: a complaint rate over 0.08 %, a bounce rate over 3 %)."""
    from outreach.transports import transport_for

    transport = transport_for(message.channel)
    sender = transport.our_sender()
    if not sender:
        return
    provider = transport.provider_name(message)
    day = timezone.localdate()
    reputation.count(
        message.tenant_id, provider, sender, day, bounced=bounced, complained=complained
    )
    reputation.guard(message.tenant, provider, sender, watch_bounces=True)


# What the list's entry says made it, by the address status the event sets.
_SOURCE_OF_STATUS: dict[str, str] = {
    EmailStatus.COMPLAINED: Suppression.Source.COMPLAINT,
    EmailStatus.UNSUBSCRIBED: Suppression.Source.UNSUBSCRIBE,
}


def _opt_out_address(tenant: Tenant, email: str, status: str, why: str, message) -> list[int]:
    source = _SOURCE_OF_STATUS[status]
    entry = Suppression.objects.filter(tenant=tenant, email=email.strip().lower())
    listed_before = entry.exists()
    lead_ids = _worsen(tenant, email, status)
    for lead in Lead.objects.filter(pk__in=lead_ids).select_related("tenant"):
        optout.opt_out(lead, Channel.EMAIL_COLD, trigger=message)
    if not listed_before:  # listed just now by the leads' opt-out: say what really made it
        entry.update(source=source, reason=why[:255])
    suppress(tenant, email=email, reason=why[:255], message=message, source=source)
    return lead_ids


@transaction.atomic
def complained(tenant: Tenant, *, email: str, provider_message_id: str = "") -> list[int]:
    """A spam complaint: every channel stops for the leads with this address."""
    message = find_message(tenant, provider_message_id=provider_message_id)
    email = email or (message.counterpart if message else "")
    if message is not None:
        against_sender(message, complained=1)
    if not normal_email(email):
        return []
    said = reasons.code(codes.SUPPRESSED_COMPLAINT)
    return _opt_out_address(tenant, email, EmailStatus.COMPLAINED, said, message)


@transaction.atomic
def unsubscribed(tenant: Tenant, *, email: str, source: str) -> list[int]:
    """An unsubscribe (a provider's link, our one-click endpoint): every channel stops."""
    if not normal_email(email):
        return []
    said = reasons.code(codes.SUPPRESSED_UNSUBSCRIBED, source=source)
    return _opt_out_address(tenant, email, EmailStatus.UNSUBSCRIBED, said, None)
