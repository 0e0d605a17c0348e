"""Pacing: a phone's sends are planned, one at a time, with a randomised gap between them.

Two guarantees, both held by the phone row (so they hold across threads, processes and
hosts): at most one send in flight per phone (`claim_phone` takes a lease, `busy_until`,
long enough to cover the provider call, and expiring on its own if the sender dies), and
a gap of min + random(0..jitter) seconds after each send (`next_send_at`).

Nobody polls. Each phone has at most one scheduled *run* (`run_phone`, on the phone's
queue): it sends the phone's next due message through the one send path, then plans the
next run for the moment something can happen: the end of the gap, a retry that comes
due, the window's opening. Whoever queues work for a phone calls `wake(phone, at)`, which
adds a run only when none is already planned at or before `at` (`Phone.wake_at`). So a
phone's 200 messages of a day cost about 200 actor runs, not one re-poll every second.
A run in progress holds a lease (`Phone.run_until`): one run of a phone at a time, and
the reconciler (outreach.delivery.requeue_stale) leaves a running phone alone.
"""

from __future__ import annotations

import logging
import random
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Case, F, IntegerField, Min, Q, Value, When
from django.utils import timezone

from cerniq.models import Tenant
from outreach.hours import SendingWindow
from outreach.models import Message
from whatsapp.models import Phone
from whatsapp.queues import phone_queue

log = logging.getLogger(__name__)

# Longer than the provider call can take (read timeout 30 s + reconcile), so a crashed
# sender's claim expires on its own.
SEND_LEASE = timedelta(seconds=120)
# A planned run that has not started this long after it was due was lost (Redis flushed,
# enqueue failed after commit): the next `wake` plans a new one instead of trusting it.
WAKE_GRACE = timedelta(minutes=2)
# A run holds its phone this long at most (renewed when its send starts). The run actor's
# time limit is this lease (outreach.tasks), so a run never outlives it; a run whose worker
# died frees the phone when it ends.
RUN_LEASE = timedelta(seconds=150)

PENDING = (Message.Status.QUEUED, Message.Status.SENDING)


def gap_for(tenant: Tenant, rng: random.Random | None = None) -> timedelta:
    """The pause after a send: min + random(0..jitter) seconds, from the tenant's bounds."""
    jitter = (rng or random).uniform(0, tenant.pacing_jitter_seconds)  # noqa: S311 - not crypto
    return timedelta(seconds=tenant.pacing_min_seconds + jitter)


# --- the lease --------------------------------------------------------------------------


def claim_phone(phone_id: int, now: datetime | None = None) -> datetime | None:
    """Take the phone's single send slot. None when taken; else when it should be free."""
    now = now or timezone.now()
    taken = (
        Phone.objects.filter(pk=phone_id)
        .filter(Q(busy_until__isnull=True) | Q(busy_until__lte=now))
        .filter(Q(next_send_at__isnull=True) | Q(next_send_at__lte=now))
        .update(busy_until=now + SEND_LEASE)
    )
    if taken:
        return None
    busy_until, next_send_at = Phone.objects.filter(pk=phone_id).values_list(
        "busy_until", "next_send_at"
    ).first() or (None, None)
    if busy_until and busy_until > now:
        # Another send is in flight; its run plans the next one when it ends. Should it
        # have died, its lease ends then.
        return busy_until
    return max(next_send_at or now, now)


def finish_send(phone_id: int, tenant: Tenant) -> datetime:
    """Release the phone after a provider call; the next send waits a fresh gap, only the
    minimum when a first message someone asked for is waiting (`Message.solicited`: it goes
    next, see `_priority`). (What went out is counted where it is recorded: `count_send`.)"""
    finished = timezone.now()
    asked = Message.objects.filter(
        phone_id=phone_id, status=Message.Status.QUEUED, solicited=True
    ).exists()
    gap = timedelta(seconds=tenant.pacing_min_seconds) if asked else gap_for(tenant)
    Phone.objects.filter(pk=phone_id).update(busy_until=None, next_send_at=finished + gap)
    return finished


def count_send(phone_id: int, *, new_contact: bool, at: datetime) -> None:
    """Count one send on its phone: the totals and the last send, which the health guard
    reads. Called once per message, in the transaction that records it sent
    (outreach.recording.record_sent), whether its own attempt or a reconciliation found it."""
    changes: dict[str, object] = {"last_sent_at": at, "total_sent": F("total_sent") + 1}
    if new_contact:
        changes["total_new_contacts"] = F("total_new_contacts") + 1
    Phone.objects.filter(pk=phone_id).update(**changes)


def release_unused(phone_id: int) -> None:
    """Give the slot back without a gap: the claim ended before any provider call."""
    Phone.objects.filter(pk=phone_id).update(busy_until=None)


# --- planned runs -----------------------------------------------------------------------


def wake(phone_id: int, at: datetime | None = None, *, after_gap: bool = False) -> bool:
    """Make sure a run of the phone is planned no later than `at` (now by default), or
    than the end of its pacing gap when that is later.

    Adds a run only when none is planned at or before `at` (or the planned one is lost).
    Inside a transaction the run is enqueued once it commits. True if a run was added.
    `after_gap`: the caller's `at` already lies after the phone's pacing gap.
    """
    now = timezone.now()
    at = max(at or now, now)
    if not after_gap:  # nothing goes out before the phone's gap ends: plan for then
        resting_until = (
            Phone.objects.filter(pk=phone_id).order_by().values_list("next_send_at", flat=True)
        )
        at = max(at, resting_until.first() or at)
    planned = (
        Phone.objects.filter(pk=phone_id)
        .filter(Q(wake_at__isnull=True) | Q(wake_at__gt=at) | Q(wake_at__lt=now - WAKE_GRACE))
        .update(wake_at=at)
    )
    if planned:
        transaction.on_commit(lambda: _enqueue_run(phone_id, at), robust=True)
    return bool(planned)


def _enqueue_run(phone_id: int, at: datetime) -> None:
    from outreach.tasks import run_phone  # the actor module imports this one

    delay_ms = max(0, int((at - timezone.now()).total_seconds() * 1000))
    message = run_phone.message(phone_id).copy(queue_name=phone_queue_for(phone_id))
    run_phone.broker.enqueue(message, delay=delay_ms or None)


def phone_queue_for(phone_id: int) -> str:
    return phone_queue(phone_id)


def run_phone(phone_id: int) -> str:
    """One planned run: send the phone's next due message, then plan the next run.

    The run holds the phone's run lease (`Phone.run_until`) from start to end: a second
    run that arrives meanwhile (a copy, a wake) leaves at once, and the reconciler does not
    wake a phone whose run is in progress. The lease ends with the run, or on its own if
    the worker dies. Returns what happened, for the log ("idle" when nothing was due)."""
    from outreach.sending import send_message  # sending → transports → pacing

    now = timezone.now()
    lease = _start_run(phone_id, now)
    if lease is None:
        return "already running"
    at = None
    try:
        phone = Phone.objects.select_related("tenant").filter(pk=phone_id).first()
        if phone is None:
            return "no such phone"
        window = SendingWindow.for_tenant(phone.tenant)
        resting = max(phone.busy_until or now, phone.next_send_at or now) > now
        message_id = None if resting else next_due(phone, window, now)
        result = "resting" if resting else "idle"
        if message_id is not None:
            lease = _hold_run(phone_id, lease)  # from the send's start, like the send's own
            outcome = send_message(message_id)
            result = f"message {message_id}: {outcome.kind} {outcome.detail}"
        at = next_run_at(phone_id, window)
    finally:
        _end_run(phone_id, lease, at)
    return result


def _start_run(phone_id: int, now: datetime) -> datetime | None:
    """Take the run lease (None when another run holds it); the planned run that brought
    us here, due by now, is no longer planned. Returns the lease's end: it names the lease,
    so that a run whose lease expired and was taken never frees its successor's."""
    lease = now + RUN_LEASE
    taken = (
        Phone.objects.filter(pk=phone_id)
        .filter(Q(run_until__isnull=True) | Q(run_until__lte=now))
        .update(run_until=lease, wake_at=_unless_due(now))
    )
    return lease if taken else None


def _hold_run(phone_id: int, lease: datetime) -> datetime:
    renewed = timezone.now() + RUN_LEASE
    held = Phone.objects.filter(pk=phone_id, run_until=lease).update(run_until=renewed)
    return renewed if held else lease


def _end_run(phone_id: int, lease: datetime, at: datetime | None) -> None:
    """Give the lease back and plan the next run at `at`, in one transaction, so that the
    reconciler never sees the phone with neither a run nor a plan. A run that came due
    while this one held the lease left without working: this plan replaces it."""
    now = timezone.now()
    with transaction.atomic():
        Phone.objects.filter(pk=phone_id).update(
            run_until=Case(When(run_until=lease, then=Value(None)), default=F("run_until")),
            wake_at=_unless_due(now),
        )
        if at is not None:
            wake(phone_id, at, after_gap=True)


def _unless_due(now: datetime) -> Case:
    """`wake_at`, or None when it is due by `now`."""
    return Case(When(wake_at__lte=now, then=Value(None)), default=F("wake_at"))


def _priority() -> Case:
    """A person's messages first, then automated replies and first messages people asked
    for (a form's "contact me"), follow-ups, new contacts."""
    return Case(
        When(status=Message.Status.SENDING, then=Value(0)),
        When(is_manual=True, then=Value(1)),
        When(step__isnull=True, then=Value(2)),
        When(solicited=True, then=Value(2)),
        When(quota_cost=0, then=Value(3)),
        default=Value(4),
        output_field=IntegerField(),
    )


def next_due(phone: Phone, window: SendingWindow, now: datetime) -> int | None:
    """The message the phone should send now, if any (a lost SENDING attempt comes first:
    it must be reconciled before anything else goes out)."""
    due = Q(status=Message.Status.QUEUED) & (
        Q(scheduled_for__isnull=True) | Q(scheduled_for__lte=now)
    )
    if not window.is_open(now):
        due &= Q(is_manual=True)
    lost = Q(status=Message.Status.SENDING, attempt_started_at__lte=now - SEND_LEASE) & (
        Q(scheduled_for__isnull=True) | Q(scheduled_for__lte=now)
    )
    return (
        Message.objects.filter(phone_id=phone.pk, direction=Message.Direction.OUTBOUND)
        .filter(due | lost)
        .order_by(_priority(), "scheduled_for", "pk")
        .values_list("pk", flat=True)
        .first()
    )


def next_run_at(phone_id: int, window: SendingWindow) -> datetime | None:
    """When the phone next has something to do, or None when nothing is pending on it."""
    rows = (
        Message.objects.filter(
            phone_id=phone_id, direction=Message.Direction.OUTBOUND, status__in=PENDING
        )
        .values("status", "is_manual")
        .annotate(first=Min("scheduled_for"), started=Min("attempt_started_at"))
        .order_by()
    )
    now = timezone.now()
    candidates = []
    for row in rows:
        if row["status"] == Message.Status.SENDING:
            lease_end = (row["started"] or now) + SEND_LEASE
            candidates.append(max(lease_end, row["first"] or lease_end))
            continue
        at = max(row["first"] or now, now)
        if not row["is_manual"] and not window.is_open(at):
            at = window.next_opening(at)
        candidates.append(at)
    if not candidates:
        return None
    at = min(candidates)
    busy_until, next_send_at = (
        Phone.objects.filter(pk=phone_id).values_list("busy_until", "next_send_at").get()
    )
    return max(at, next_send_at or at, busy_until or at)


def phones_needing_a_run(now: datetime | None = None) -> list[int]:
    """Phones with pending messages, no live planned run and no run in progress (the
    reconciler's list)."""
    now = now or timezone.now()
    stalled = (Q(wake_at__isnull=True) | Q(wake_at__lt=now - WAKE_GRACE)) & (
        Q(run_until__isnull=True) | Q(run_until__lte=now)
    )
    pending = Message.objects.filter(
        direction=Message.Direction.OUTBOUND, status__in=PENDING, phone_id__isnull=False
    ).values("phone_id")
    return list(
        Phone.objects.filter(stalled, pk__in=pending).order_by("pk").values_list("pk", flat=True)
    )
