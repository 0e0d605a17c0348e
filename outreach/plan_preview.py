"""The plan preview: what goes out on the next working day, and why the rest waits.

It is dispatch's own planning (outreach.dispatch_plan), replayed over the scheduler's
runs of that day (outreach.plan_simulation) with the quota of that day, never a second
model of the rules. It writes nothing: everything runs inside a transaction that is
rolled back, and what the planning changes it changes on objects in memory.

The whole workspace is always planned (phones and quota are shared by every sequence);
a sequence or a phone only filters what is shown. docs/plan-preview.md says what it
shows and where it is approximate.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from cerniq import reasons
from cerniq.models import Tenant
from outreach import automation
from outreach import reasons as codes
from outreach.dispatch import DUE_ORDER, due_journeys
from outreach.hours import SendingWindow
from outreach.models import Channel, Enrollment, Journey, Message, Sequence
from outreach.plan_simulation import PlannedAt, Replay, Waiting, pace, replay
from whatsapp import quota
from whatsapp.models import Phone

EXAMPLES = 5  # leads named per waiting reason
EMAIL_CHANNELS = (Channel.EMAIL_COLD, Channel.EMAIL_WARM)


@dataclass(frozen=True)
class LeadRef:
    id: int
    name: str


@dataclass(frozen=True)
class PlannedSend:
    """One message the day's dispatch runs queue."""

    lead: LeadRef
    sequence_id: int
    sequence_name: str
    step_position: int
    channel: str
    phone_id: int | None
    phone_label: str
    first: bool  # the first step of its sequence; else a follow-up
    new_contact: bool  # a WhatsApp first contact from its phone (it costs quota)
    queued_at: datetime  # the dispatch run that queues it
    send_at: datetime | None  # approximate; None: its phone's turn comes after closing

    @property
    def channel_label(self) -> str:
        return str(Channel(self.channel).label)


@dataclass(frozen=True)
class PhoneDay:
    """One phone on the day: what it sends and the quota it has for it."""

    phone_id: int
    label: str
    usable: bool
    first: int
    follow_ups: int
    limit: int
    used_before: int  # new contacts already counted for that day
    left: int  # new-contact slots left after the day's plan
    warmup_day: int | None
    warmup_days: int | None
    throttled: bool
    after_close: int  # queued, but its turn comes after the window closes

    @property
    def total(self) -> int:
        return self.first + self.follow_ups


@dataclass(frozen=True)
class ChannelTotal:
    channel: str
    first: int
    follow_ups: int

    @property
    def total(self) -> int:
        return self.first + self.follow_ups

    @property
    def label(self) -> str:
        return str(Channel(self.channel).label)


@dataclass(frozen=True)
class HourBucket:
    start: datetime  # local time, on the hour
    whatsapp: int
    email: int
    first: int
    follow_ups: int

    @property
    def total(self) -> int:
        return self.whatsapp + self.email


@dataclass(frozen=True)
class WaitingGroup:
    """Leads that get nothing that day, for one reason (a stored reason code)."""

    reason: str
    count: int
    examples: tuple[LeadRef, ...]

    @property
    def code(self) -> str:
        parsed = reasons.parse(self.reason)
        return parsed[0] if parsed else self.reason

    @property
    def text(self) -> str:
        return reasons.render(self.reason)


@dataclass(frozen=True)
class PlanPreview:
    now: datetime
    opening: datetime  # the day's first instant of the sending window (tenant's zone)
    closing: datetime
    sequence: Sequence | None
    phone: Phone | None
    sends: tuple[PlannedSend, ...]
    phones: tuple[PhoneDay, ...]
    channels: tuple[ChannelTotal, ...]
    hours: tuple[HourBucket, ...]
    waiting: tuple[WaitingGroup, ...]
    # Dispatch's skips on that day by reason code (before the filter), as DispatchResult.
    skipped: Counter[str] = field(default_factory=Counter)

    @property
    def first(self) -> int:
        return sum(s.first for s in self.sends)

    @property
    def follow_ups(self) -> int:
        return sum(not s.first for s in self.sends)

    @property
    def total(self) -> int:
        return len(self.sends)

    @property
    def after_close(self) -> int:
        return sum(s.channel == Channel.WHATSAPP and s.send_at is None for s in self.sends)

    @property
    def waiting_count(self) -> int:
        return sum(g.count for g in self.waiting)


def next_working_opening(window: SendingWindow, now: datetime) -> datetime:
    """The next day the window opens: today's opening when it is still to come, else
    the first opening on a later day."""
    return window.next_day_opening(now) if window.is_open(now) else window.next_opening(now)


def preview(
    tenant: Tenant,
    *,
    sequence: Sequence | None = None,
    phone: Phone | None = None,
    now: datetime | None = None,
    batch_size: int = 500,
) -> PlanPreview:
    """What the next working day's dispatch runs queue for `tenant` (optionally only one
    sequence's leads or one phone's messages), and why the other leads wait."""
    now = now or timezone.now()
    window = SendingWindow.for_tenant(tenant)
    opening = next_working_opening(window, now)
    closing = window.closing_of(opening)
    with transaction.atomic():
        journeys = list(due_journeys(tenant, closing).select_related("lead").order_by(*DUE_ORDER))
        played, left = replay(
            tenant,
            journeys,
            window,
            start=now,
            end=closing,
            report_from=opening,
            batch_size=batch_size,
        )
        queued = _queued(tenant)
        phones = list(Phone.objects.filter(tenant=tenant).order_by("pk"))
        status = quota.status_many(phones, quota.quota_day(tenant, opening))
        waiting = _waiting(tenant, played, journeys, left, queued, sequence, phone)
        transaction.set_rollback(True)  # the planning never writes; this makes sure
    times = pace(
        tenant,
        played.planned,
        [Waiting(phone_id, new) for phone_id, new, _lead in queued if phone_id],
        window,
        opening,
    )
    labels = {p.pk: p.label or p.number for p in phones}
    sends = [
        _send(item, times, labels)
        for item in played.planned
        if _shown(item, sequence, phone, played)
    ]
    sends.sort(key=lambda s: (s.send_at or s.queued_at, s.send_at is None, s.lead.id))
    skipped = Counter(skip.code for _run, skip in played.skips)
    return PlanPreview(
        now=now,
        opening=opening,
        closing=closing,
        sequence=sequence,
        phone=phone,
        sends=tuple(sends),
        phones=_phone_days(phones, status, played, sends, phone),
        channels=_channels(sends),
        hours=_hours(sends, opening, closing),
        waiting=waiting,
        skipped=skipped,
    )


def _shown(item: PlannedAt, sequence: Sequence | None, phone: Phone | None, played: Replay) -> bool:
    if phone is not None and item.plan.phone_id != phone.pk:
        return False
    if sequence is None:
        return True
    sequence_ids = {item.plan.step.sequence_id, played.sequence_of.get(item.plan.journey.lead_id)}
    return sequence.pk in sequence_ids


def _send(
    item: PlannedAt, times: dict[int, datetime | None], labels: dict[int, str]
) -> PlannedSend:
    plan = item.plan
    lead = plan.journey.lead
    send_at = times.get(id(plan)) if plan.channel == Channel.WHATSAPP else item.run
    return PlannedSend(
        lead=LeadRef(lead.pk, lead.name),
        sequence_id=plan.step.sequence_id,
        sequence_name=plan.step.sequence.name,
        step_position=plan.step.position,
        channel=plan.channel,
        phone_id=plan.phone_id,
        phone_label=labels.get(plan.phone_id or 0, ""),
        first=item.first,
        new_contact=plan.new_contact,
        queued_at=item.run,
        send_at=send_at,
    )


def _queued(tenant: Tenant) -> list[tuple[int | None, bool, int]]:
    """Automated messages already queued (phone, new contact, lead): they go first."""
    rows = (
        Message.objects.filter(
            tenant=tenant,
            direction=Message.Direction.OUTBOUND,
            status=Message.Status.QUEUED,
            is_manual=False,
        )
        .order_by("scheduled_for", "pk")
        .values_list("phone_id", "quota_cost", "lead_id")
    )
    return [(phone_id, cost > 0, lead_id) for phone_id, cost, lead_id in rows]


def _waiting(
    tenant: Tenant,
    played: Replay,
    due: list[Journey],
    left: list[Journey],
    queued: list[tuple[int | None, bool, int]],
    sequence: Sequence | None,
    phone: Phone | None,
) -> tuple[WaitingGroup, ...]:
    """Every lead in the scope that gets nothing that day, grouped by why."""
    planned = {p.plan.journey.lead_id for p in played.planned}
    why: dict[int, str] = {skip.journey.lead_id: skip.reason for _run, skip in played.skips}
    for lead_id, reason in played.early.items():  # settled by today's remaining runs
        if lead_id not in planned:
            why.setdefault(lead_id, reason)
    for journey in left:
        why.setdefault(journey.lead_id, reasons.code(codes.PLAN_DUE_LATER))
    enrollments = {
        lead_id: (sequence_id, stalled, not stops)
        for lead_id, sequence_id, stalled, stops in Enrollment.objects.filter(
            tenant=tenant, status=Enrollment.Status.ACTIVE
        )
        .order_by()
        .values_list("lead_id", "sequence_id", "stalled_reason", "sequence__stop_on_reply")
    }
    in_flight = {lead_id for _phone, _new, lead_id in queued}
    due_ids = {j.pk for j in due}
    others = (
        Journey.objects.filter(tenant=tenant)
        .filter(
            Q(next_action_at__isnull=False)
            | Exists(
                Enrollment.objects.filter(
                    lead_id=OuterRef("lead_id"), status=Enrollment.Status.ACTIVE
                )
            )
        )
        .select_related("lead")
        .order_by("pk")
    )
    journeys = {j.lead_id: j for j in due}
    for journey in others:
        if journey.pk in due_ids:
            continue
        journeys[journey.lead_id] = journey
        if journey.lead_id not in why:
            why[journey.lead_id] = _why_not_due(journey, enrollments, in_flight)
    groups: dict[str, list[LeadRef]] = defaultdict(list)
    for lead_id, reason in why.items():
        found = journeys.get(lead_id)
        if lead_id in planned or found is None:
            continue
        journey = found
        if phone is not None and journey.assigned_phone_id != phone.pk:
            continue
        if sequence is not None and sequence.pk not in (
            enrollments.get(lead_id, (None, "", False))[0],
            journey.current_sequence_id,
        ):
            continue
        groups[reason].append(LeadRef(lead_id, journey.lead.name))
    ordered = sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    return tuple(
        WaitingGroup(reason, len(refs), tuple(sorted(refs, key=lambda r: r.id)[:EXAMPLES]))
        for reason, refs in ordered
    )


def _why_not_due(
    journey: Journey, enrollments: dict[int, tuple[int, str, bool]], in_flight: set[int]
) -> str:
    """A lead dispatch will not look at that day: the rule that stops it, or what it
    waits for."""
    _sequence, stalled, nurture = enrollments.get(journey.lead_id, (0, "", False))
    if stopped := automation.lead_stopped(journey, nurture=nurture):
        return stopped
    if journey.next_action_at is not None:
        return reasons.code(codes.PLAN_DUE_LATER)
    if stalled:
        return stalled
    if journey.lead_id in in_flight:
        return reasons.code(codes.ALREADY_QUEUED)
    return reasons.code(codes.PLAN_NOTHING_PLANNED)


def _phone_days(
    phones: list[Phone],
    status: dict[int, quota.QuotaStatus],
    played: Replay,
    sends: list[PlannedSend],
    only: Phone | None,
) -> tuple[PhoneDay, ...]:
    usable = {p.pk for p in played.phones} or {
        p.pk for p in phones if p.is_enabled and p.status == Phone.Status.ACTIVE
    }
    days = []
    for phone in phones:
        if only is not None and phone.pk != only.pk:
            continue
        mine = [s for s in sends if s.phone_id == phone.pk]
        row = status[phone.pk]
        why = row.why
        days.append(
            PhoneDay(
                phone_id=phone.pk,
                label=phone.label or phone.number,
                usable=phone.pk in usable,
                first=sum(s.first for s in mine),
                follow_ups=sum(not s.first for s in mine),
                limit=row.limit,
                used_before=row.used,
                left=played.remaining.get(phone.pk, row.remaining),
                warmup_day=why.warmup_day if why else None,
                warmup_days=why.warmup_days if why else None,
                throttled=bool(why and why.throttled),
                after_close=sum(s.send_at is None for s in mine),
            )
        )
    return tuple(days)


def _channels(sends: list[PlannedSend]) -> tuple[ChannelTotal, ...]:
    totals = []
    for channel in (Channel.WHATSAPP, *EMAIL_CHANNELS):
        mine = [s for s in sends if s.channel == channel]
        if mine:
            first = sum(s.first for s in mine)
            totals.append(ChannelTotal(channel, first, len(mine) - first))
    return tuple(totals)


def _hours(
    sends: list[PlannedSend], opening: datetime, closing: datetime
) -> tuple[HourBucket, ...]:
    """One bucket per local hour of the window, by approximate send time."""
    tz = opening.tzinfo
    start = opening.astimezone(tz).replace(minute=0, second=0, microsecond=0)
    counts: dict[datetime, Counter[str]] = {}
    hour = start
    while hour < closing:
        counts[hour] = Counter()
        hour = (hour + timedelta(hours=1)).astimezone(tz)
    for send in sends:
        if send.send_at is None:
            continue
        bucket = send.send_at.astimezone(tz).replace(minute=0, second=0, microsecond=0)
        tally = counts.setdefault(bucket, Counter())
        tally["whatsapp" if send.channel == Channel.WHATSAPP else "email"] += 1
        tally["first" if send.first else "follow_ups"] += 1
    return tuple(
        HourBucket(at, c["whatsapp"], c["email"], c["first"], c["follow_ups"])
        for at, c in sorted(counts.items())
    )
