"""A tenant's outbound work as the database holds it (the truth; the broker holds copies):
per WhatsApp phone, its backlog and when it can send next; per channel, what is due,
scheduled, being sent and dead-lettered. A constant number of queries, whatever the number
of phones or messages (the queue view, console.views.queues)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Min, Q
from django.utils import timezone

from cerniq.models import Tenant
from outreach.models import Channel, Message
from outreach.next_send import NextSend, phone_answers
from outreach.pacing import PENDING
from whatsapp import quota
from whatsapp.models import Phone
from whatsapp.quota import QuotaStatus

OUT = Message.Direction.OUTBOUND
QUEUED, SENDING = Message.Status.QUEUED, Message.Status.SENDING


def _due(now: datetime) -> Q:
    return Q(status=QUEUED) & (Q(scheduled_for__isnull=True) | Q(scheduled_for__lte=now))


@dataclass(frozen=True)
class PhoneBacklog:
    phone: Phone
    queued: int  # QUEUED on the phone, due or not
    due: int  # of those, due now
    sending: int  # SENDING: a provider call in flight (or a lost one being reconciled)
    oldest_due: datetime | None  # the longest-waiting due message's due time
    next_send: NextSend  # when it may send next, and why not now (outreach.next_send)
    planned_run: datetime | None  # its planned run (Phone.wake_at), if any
    quota: QuotaStatus  # today's new-contact quota

    @property
    def next_slot(self) -> datetime | None:
        """When it may send next; None: it will not (not usable)."""
        return self.next_send.at


def phone_backlogs(tenant: Tenant, now: datetime | None = None) -> list[PhoneBacklog]:
    """Every phone of the tenant with its backlog: three queries (phones, one aggregate
    over their pending messages, today's quota rows)."""
    now = now or timezone.now()
    phones = list(Phone.objects.filter(tenant=tenant).order_by("number"))
    pending = {
        row["phone"]: row
        for row in Message.objects.filter(
            phone__in=[p.pk for p in phones], direction=OUT, status__in=PENDING
        )
        .order_by()
        .values("phone")
        .annotate(
            queued=Count("pk", filter=Q(status=QUEUED)),
            due=Count("pk", filter=_due(now)),
            sending=Count("pk", filter=Q(status=SENDING)),
            oldest_due=Min("scheduled_for", filter=_due(now)),
        )
    }
    answers = phone_answers(tenant, phones, now)
    today = quota.status_many(phones, quota.quota_day(tenant, now))
    rows = []
    for phone in phones:
        counts = pending.get(phone.pk, {})
        rows.append(
            PhoneBacklog(
                phone=phone,
                queued=counts.get("queued", 0),
                due=counts.get("due", 0),
                sending=counts.get("sending", 0),
                oldest_due=counts.get("oldest_due"),
                next_send=answers[phone.pk],
                planned_run=phone.wake_at,
                quota=today[phone.pk],
            )
        )
    return rows


@dataclass(frozen=True)
class ChannelBacklog:
    channel: str
    label: str
    due: int  # QUEUED and due now
    scheduled: int  # QUEUED for later (a retry, the window, pacing, the next hour's room)
    sending: int
    dead: int  # dead letters
    oldest_due: datetime | None


def channel_backlogs(tenant: Tenant, now: datetime | None = None) -> list[ChannelBacklog]:
    """The tenant's outbound work per channel, in one query."""
    now = now or timezone.now()
    found = {
        row["channel"]: row
        for row in Message.objects.filter(
            tenant=tenant,
            direction=OUT,
            status__in=(QUEUED, SENDING, Message.Status.DEAD_LETTER),
        )
        .order_by()
        .values("channel")
        .annotate(
            due=Count("pk", filter=_due(now)),
            scheduled=Count("pk", filter=Q(status=QUEUED, scheduled_for__gt=now)),
            sending=Count("pk", filter=Q(status=SENDING)),
            dead=Count("pk", filter=Q(status=Message.Status.DEAD_LETTER)),
            oldest_due=Min("scheduled_for", filter=_due(now)),
        )
    }
    return [
        ChannelBacklog(
            channel=channel,
            label=str(label),
            due=found.get(channel, {}).get("due", 0),
            scheduled=found.get(channel, {}).get("scheduled", 0),
            sending=found.get(channel, {}).get("sending", 0),
            dead=found.get(channel, {}).get("dead", 0),
            oldest_due=found.get(channel, {}).get("oldest_due"),
        )
        for channel, label in Channel.choices
    ]
