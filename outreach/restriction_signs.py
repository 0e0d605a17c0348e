"""WhatsApp's restriction signs, first-class (issue #22 §5).

In 2026 WhatsApp restricts QR-linked numbers that start too many new chats: time-locks of
hours to days on new chats, a cap on new chats, a monthly cap on unanswered messages. A
restricted number usually still talks in the chats it already has. So the signs are about
new chats, and the first one stops new chats on that number at once
(whatsapp.phones.pause_new_contacts: day limit 0, follow-ups go on, an alert, then a
reduced ramp from warm-up day 1 after a cooldown that grows with each restriction):

- new chats failing: in the last NEW_CHAT_HOURS, at least MIN_FAILED new chats failed,
  no fewer than went out, while a message in an existing chat went out;
- new contacts never delivered: in the last UNDELIVERED_HOURS, at least MIN_UNDELIVERED
  new chats accepted more than DELIVERY_GRACE_HOURS ago and none delivered, while a
  message in an existing chat was (providers that report delivery only);
- the provider says so: a send answered "restricted" (AccountRestricted):
  outreach.phone_health.restricted pauses the number and rests its new chats.

Messages from before the number last resumed new chats are not counted again.

The health guard's score (outreach.phone_health) still throttles and pauses a number for
slower patterns; these signs act on the first occurrence. Read by `manage.py check_phones`
every five minutes (one query for all of a tenant's numbers).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.utils import timezone

from cerniq import reasons
from cerniq.models import Tenant
from outreach.models import SENT_STATUSES, Channel, Journey, Message
from outreach.phone_health import tracks_delivery
from outreach.sequences import cancel_message
from whatsapp import phones
from whatsapp import reasons as codes
from whatsapp.models import Phone

NEW_CHAT_HOURS = 6
MIN_FAILED = 2
UNDELIVERED_HOURS = 24
DELIVERY_GRACE_HOURS = 2
MIN_UNDELIVERED = 3
FAILED = (Message.Status.FAILED, Message.Status.DEAD_LETTER)
DELIVERED = (Message.Status.DELIVERED, Message.Status.READ)


@dataclass
class Counts:
    """What a number did since it last resumed new chats, as the signs read it."""

    new_failed: int = 0
    new_sent: int = 0
    follow_sent: int = 0
    new_undelivered: int = 0
    new_delivered: int = 0
    follow_delivered: int = 0


@dataclass
class SignsRun:
    paused: list[int] = field(default_factory=list)  # phone ids whose new chats now rest
    resumed: list[int] = field(default_factory=list)  # phone ids whose rest ended


def counts_of(numbers: list[Phone], now: datetime) -> dict[int, Counts]:
    """What each number did in the signs' windows (one query for all of them); the phones
    page shows it beside the limits the signs use."""
    if not numbers:
        return {}
    since = now - timedelta(hours=max(NEW_CHAT_HOURS, UNDELIVERED_HOURS))
    resumed = {p.pk: p.new_contacts_paused_until for p in numbers}
    counts: dict[int, Counts] = defaultdict(Counts)
    new_chat_since = now - timedelta(hours=NEW_CHAT_HOURS)
    accepted_before = now - timedelta(hours=DELIVERY_GRACE_HOURS)
    rows = Message.objects.filter(
        phone_id__in=[p.pk for p in numbers],
        channel=Channel.WHATSAPP,
        direction=Message.Direction.OUTBOUND,
        created_at__gte=since,
        is_manual=False,
    ).values_list("phone_id", "quota_cost", "status", "sent_at", "failed_at")
    for phone_id, cost, status, sent_at, failed_at in rows:
        moment = sent_at or failed_at
        start = resumed.get(phone_id)
        if moment is None or (start is not None and moment < start):
            continue  # before the number last resumed new chats: judged already
        c = counts[phone_id]
        new = cost == 1
        if moment >= new_chat_since:
            if status in FAILED:
                c.new_failed += new
            elif status in SENT_STATUSES:
                c.new_sent += new
                c.follow_sent += not new
        if status in SENT_STATUSES:
            if new and status == Message.Status.SENT and sent_at and sent_at <= accepted_before:
                c.new_undelivered += 1
            elif status in DELIVERED:
                c.new_delivered += new
                c.follow_delivered += not new
    return counts


def signs_of(numbers: list[Phone], now: datetime) -> dict[int, str]:
    """The first restriction sign of each number that shows one (a stored reason code)."""
    counts = counts_of(numbers, now)
    found = {}
    for phone in numbers:
        if phone.pk not in counts:
            continue
        c = counts[phone.pk]
        if c.new_failed >= MIN_FAILED and c.new_failed >= c.new_sent and c.follow_sent:
            tried = c.new_failed + c.new_sent
            found[phone.pk] = reasons.code(
                codes.NEW_CHATS_FAILING, failed=c.new_failed, tried=tried
            )
        elif (
            c.new_undelivered >= MIN_UNDELIVERED
            and not c.new_delivered
            and c.follow_delivered
            and tracks_delivery(phone.provider)
        ):
            found[phone.pk] = reasons.code(
                codes.NEW_CHATS_UNDELIVERED,
                undelivered=c.new_undelivered,
                hours=DELIVERY_GRACE_HOURS,
            )
    return found


def rest_new_chats(phone: Phone, reason: str, *, now: datetime, alert: bool = True) -> int:
    """Stop the number's new chats (whatsapp.phones.pause_new_contacts) and hand its queued
    first messages back to dispatch, which gives them to a number that may start chats.
    How many were handed back."""
    until = phones.pause_new_contacts(phone, reason, now=now, alert=alert)
    queued = list(
        Message.objects.filter(
            phone=phone,
            direction=Message.Direction.OUTBOUND,
            status=Message.Status.QUEUED,
            quota_cost=1,
        ).select_related("tenant")
    )
    said = reasons.code(
        codes.NEW_CONTACTS_PAUSED, phone=str(phone), until=until.isoformat(), why=reason
    )
    for message in queued:
        cancel_message(message, said)
    lead_ids = [m.lead_id for m in queued]
    Journey.objects.filter(lead_id__in=lead_ids).update(next_action_at=now, assigned_phone=None)
    return len(queued)


def check_tenant(tenant: Tenant, *, now: datetime | None = None) -> SignsRun:
    """Rest the new chats of every number showing a sign; end the rests that are over."""
    now = now or timezone.now()
    run = SignsRun()
    numbers = list(Phone.objects.filter(tenant=tenant, status=Phone.Status.ACTIVE).order_by("pk"))
    for phone in numbers:
        phone.tenant = tenant
    resting = [p for p in numbers if p.new_contacts_paused_until is not None]
    for phone in resting:
        if phone.new_contacts_paused_until <= now and phone.restriction_reason:
            phones.end_new_contact_pause(phone)
            Phone.objects.filter(pk=phone.pk).update(restriction_reason="")
            run.resumed.append(phone.pk)
    judged = {p.pk: p for p in numbers if not p.new_contacts_paused}
    for phone_id, reason in signs_of(list(judged.values()), now).items():
        rest_new_chats(judged[phone_id], reason, now=now)
        run.paused.append(phone_id)
    return run
