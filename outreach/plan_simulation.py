"""The scheduler's dispatch runs, replayed in memory for the plan preview.

The scheduler runs dispatch on its cron (settings.PERIODIC_JOBS, the "dispatch" job); each
run takes the due journeys in dispatch's order, a batch at a time, and plans them with
dispatch's own planning (outreach.dispatch_plan). This module replays those runs over a
stretch of time: at each run it loads the batch like dispatch does (outreach.dispatch_batch,
the quota of that run's day), plans it, and carries in memory what dispatch would have
written (the quota taken, a skipped journey's next try). Nothing is written.

Then `pace` spreads each phone's planned WhatsApp messages over the day the way its runs
send them (outreach.pacing): one at a time, follow-ups before new contacts, a gap between
two sends (the tenant's minimum plus half its jitter, on average).
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from apscheduler.triggers.cron import CronTrigger
from django.conf import settings

from cerniq import reasons
from cerniq.models import Tenant
from outreach import reasons as codes
from outreach.dispatch_batch import Batch
from outreach.dispatch_plan import Plan, Skip, plan_batch, split_queued
from outreach.hours import SendingWindow
from outreach.models import Journey
from whatsapp import quota
from whatsapp.models import Phone

DISPATCH_JOB = "dispatch"
_INSTANT = timedelta(microseconds=1)


def dispatch_trigger() -> CronTrigger:
    """The scheduler's trigger of the dispatch job (cerniq.scheduler builds the same)."""
    job = next(j for j in settings.PERIODIC_JOBS if j["name"] == DISPATCH_JOB)
    return CronTrigger.from_crontab(job["cron"], timezone=settings.TIME_ZONE)


def next_run(trigger: CronTrigger, at: datetime) -> datetime:
    """The first dispatch run at or after `at`."""
    fire = trigger.get_next_fire_time(None, at)
    if fire is None:  # a crontab always fires again
        raise ValueError("the dispatch job never runs")
    return fire


@dataclass(frozen=True)
class PlannedAt:
    """A plan and the dispatch run that queues it."""

    plan: Plan
    run: datetime
    first: bool  # the first step of its sequence (a first message), else a follow-up


@dataclass
class Replay:
    planned: list[PlannedAt] = field(default_factory=list)
    skips: list[tuple[datetime, Skip]] = field(default_factory=list)
    processed: set[int] = field(default_factory=set)  # lead ids planned or skipped
    phones: list[Phone] = field(default_factory=list)  # usable phones, as dispatch saw them
    quota: dict[int, quota.QuotaStatus] = field(default_factory=dict)  # the reported day's
    remaining: dict[int, int] = field(default_factory=dict)  # quota left after the day
    runs: int = 0  # dispatch runs that found work
    sequence_of: dict[int, int] = field(default_factory=dict)  # lead id -> enrolled sequence
    # Leads settled by runs before the reported day (a stored reason: why not that day).
    early: dict[int, str] = field(default_factory=dict)


class _Queue:
    """Due journeys in dispatch's order (next_action_at, pk)."""

    def __init__(
        self, window: SendingWindow, trigger: CronTrigger, start: datetime, end: datetime
    ) -> None:
        self.window, self.trigger, self.start, self.end = window, trigger, start, end
        self.heap: list[tuple[datetime, int, Journey]] = []
        self.later: dict[int, Journey] = {}  # due again only after `end`

    def push(self, journey: Journey) -> None:
        """Queue a journey due before `end`. A run that finds the window closed moves it to
        the next opening (dispatch_due does), which changes its place in the order."""
        at = journey.next_action_at
        if at is None:
            return
        run = next_run(self.trigger, max(at, self.start))  # the first run that sees it due
        if at < self.end and not self.window.is_open(run):
            at = journey.next_action_at = self.window.next_opening(run)
        if at >= self.end:
            self.later[journey.pk] = journey
            return
        heapq.heappush(self.heap, (at, journey.pk, journey))

    def take(self, run: datetime, size: int) -> list[Journey]:
        taken: list[Journey] = []
        while self.heap and self.heap[0][0] <= run and len(taken) < size:
            taken.append(heapq.heappop(self.heap)[2])
        return taken

    def earliest(self) -> datetime | None:
        return self.heap[0][0] if self.heap else None

    def left(self) -> list[Journey]:
        """Journeys still due at `end`: not reached, or due again only later."""
        return [item[2] for item in self.heap] + list(self.later.values())


def replay(
    tenant: Tenant,
    journeys: Iterable[Journey],
    window: SendingWindow,
    *,
    start: datetime,
    end: datetime,
    report_from: datetime,
    batch_size: int = 500,
) -> tuple[Replay, list[Journey]]:
    """Replay dispatch's runs from `start` to `end` over `journeys` (wanted, due before
    `end`); what runs at or after `report_from` is reported. Returns the replay and the
    journeys still waiting at `end`."""
    trigger = dispatch_trigger()
    queue = _Queue(window, trigger, start, end)
    for journey in journeys:
        queue.push(journey)
    result = Replay()
    carried: tuple[date, dict[int, int]] | None = None
    run = next_run(trigger, start)
    while run < end and (earliest := queue.earliest()) is not None:
        if earliest > run:
            run = next_run(trigger, earliest)
            continue
        taken = queue.take(run, batch_size)
        day = quota.quota_day(tenant, run)
        batch = Batch(tenant, taken, day)
        if carried is not None and carried[0] == day:
            batch.remaining = dict(carried[1])
        reported = run >= report_from
        if reported and not result.quota:
            result.phones, result.quota = batch.phones, batch.quota
        planned = plan_batch(taken, batch, window, run)
        fresh, queued = split_queued(planned.plans)
        skips = list(planned.skips)
        for plan in queued:  # dispatch skips it and reserves no quota for it
            plan.journey.next_action_at = None
            skips.append(Skip(plan.journey, reasons.code(codes.ALREADY_QUEUED)))
            if plan.quota_cost and plan.phone_id is not None:
                batch.remaining[plan.phone_id] += 1
        for plan in fresh:  # queued: the send schedules the next step (dispatch._write)
            plan.journey.next_action_at = None
        carried = (day, batch.remaining)
        if not reported:
            for skip in skips:
                result.early[skip.journey.lead_id] = skip.reason
            for plan in fresh:
                result.early[plan.journey.lead_id] = reasons.code(codes.ALREADY_QUEUED)
        else:
            result.runs += 1
            result.sequence_of |= {k: e.sequence_id for k, e in batch.enrollments.items()}
            result.processed |= {j.lead_id for j in taken}
            result.remaining = dict(batch.remaining)
            result.planned += [PlannedAt(p, run, _is_first(p, batch)) for p in fresh]
            result.skips += [(run, skip) for skip in skips]
        for journey in taken:
            queue.push(journey)  # a skip that tries again later (a full quota: tomorrow)
        run = next_run(trigger, run + _INSTANT)
    return result, queue.left()


def _is_first(plan: Plan, batch: Batch) -> bool:
    first = batch.first_step_of(plan.step.sequence_id, plan.step.sequence_version)
    return first is not None and first.pk == plan.step.pk


# --- pacing ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Waiting:
    """A message already queued on a phone before the day starts (it goes first)."""

    phone_id: int
    new_contact: bool


def mean_gap(tenant: Tenant) -> timedelta:
    """The average pause between two sends of a phone (outreach.pacing.gap_for)."""
    return timedelta(seconds=tenant.pacing_min_seconds + tenant.pacing_jitter_seconds / 2)


def pace(
    tenant: Tenant,
    planned: list[PlannedAt],
    waiting: list[Waiting],
    window: SendingWindow,
    opening: datetime,
) -> dict[int, datetime | None]:
    """Approximate send time of each planned WhatsApp message, by id(plan): None when the
    phone's turn does not come before the window closes (it goes at the next opening).
    A phone sends one message at a time, follow-ups before new contacts (pacing._priority),
    then in the order they were queued; messages already queued go first."""
    closing = window.closing_of(opening)
    gap = mean_gap(tenant)
    by_phone: dict[int, list[tuple[int, datetime, int, PlannedAt | None]]] = defaultdict(list)
    for order, before in enumerate(waiting):
        by_phone[before.phone_id].append((3 + before.new_contact, opening, order, None))
    for order, planned_at in enumerate(planned):
        plan = planned_at.plan
        if plan.phone_id is not None:
            rank = 2 if plan.solicited else 3 + plan.new_contact
            by_phone[plan.phone_id].append((rank, planned_at.run, len(waiting) + order, planned_at))
    times: dict[int, datetime | None] = {}
    for items in by_phone.values():
        items.sort(key=lambda x: x[1])  # by when they are queued
        ready: list[tuple[int, datetime, int, PlannedAt | None]] = []
        clock, index = opening, 0
        while index < len(items) or ready:
            if not ready and items[index][1] > clock:
                clock = items[index][1]  # idle until the next message is queued
            while index < len(items) and items[index][1] <= clock:
                heapq.heappush(ready, items[index])
                index += 1
            sent = heapq.heappop(ready)[3]
            if sent is not None:
                times[id(sent.plan)] = clock if clock < closing else None
            clock += gap
    return times
