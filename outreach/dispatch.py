"""Dispatch (seed workers B#5–8): turn due leads into QUEUED messages on the right queue.

One batch costs a fixed number of queries whatever its size: the due journeys, their
enrollments, steps, template versions, phones, quota and earlier chats are each loaded in
one query; quota is reserved for all phones at once; messages and journey updates are
written in bulk. Messages are created in the same transaction as the journey updates and
handed to the broker only after commit (the database is the truth).
"""

from __future__ import annotations

import logging
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime
from functools import partial

from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from cerniq import reasons
from cerniq.models import Tenant
from outreach import automation, pacing, shared_limits, stalls, step_skips
from outreach import reasons as codes
from outreach.delivery import enqueue_message, plan_push
from outreach.dispatch_batch import Batch
from outreach.dispatch_plan import Plan, plan_batch, split_queued
from outreach.hours import SendingWindow
from outreach.models import (
    Channel,
    Enrollment,
    Journey,
    Message,
)
from whatsapp import quota

log = logging.getLogger(__name__)


@dataclass
class DispatchResult:
    tenant: str
    eligible: int = 0
    dispatched: Counter[str] = field(default_factory=Counter)
    skipped: Counter[str] = field(default_factory=Counter)  # by reason code (outreach.reasons)
    dry_run: bool = False

    def summary(self) -> str:
        sent = ", ".join(f"{k} {v}" for k, v in sorted(self.dispatched.items())) or "none"
        skipped = (
            ", ".join(f"{reasons.render(k)} {v}" for k, v in sorted(self.skipped.items())) or "none"
        )
        prefix = "DRY RUN — nothing written. " if self.dry_run else ""
        return f"{prefix}eligible {self.eligible}; dispatched: {sent}; skipped: {skipped}"


# The order dispatch takes due journeys in, a batch at a time (the plan preview follows it),
# after the people who asked to be contacted and wait for their first message (ASKED).
DUE_ORDER = ("next_action_at", "pk")
ASKED = Q(contact_requested_at__isnull=False, first_contact_at__isnull=True)


def due_journeys(tenant: Tenant, now: datetime, lead_ids: Iterable[int] | None = None):
    """Journeys of `tenant` due by `now` whose automation is wanted (outreach.automation);
    only those of `lead_ids` when given."""
    due = Journey.objects.filter(automation.wanted_q(), tenant=tenant, next_action_at__lte=now)
    return due if lead_ids is None else due.filter(lead_id__in=list(lead_ids))


def dispatch_due(
    tenant: Tenant,
    *,
    batch_size: int = 500,
    now: datetime | None = None,
    dry_run: bool = False,
    lead_ids: Iterable[int] | None = None,
) -> DispatchResult:
    """Queue the next step for up to `batch_size` due leads of `tenant` (of `lead_ids`
    when given: the people who just asked to be contacted, outreach.lead_rules)."""
    now = now or timezone.now()
    lead_ids = None if lead_ids is None else list(lead_ids)
    result = DispatchResult(tenant=tenant.slug, dry_run=dry_run)
    window = SendingWindow.for_tenant(tenant)
    if not window.is_open(now):
        opening = window.next_opening(now)
        due = due_journeys(tenant, now, lead_ids)
        result.skipped[codes.OUTSIDE_WINDOW] = (
            due.count() if dry_run else due.update(next_action_at=opening)
        )
        return result
    with transaction.atomic():
        journeys = _take(due_journeys(tenant, now, lead_ids), batch_size)
        result.eligible = len(journeys)
        if not journeys:
            return result
        batch = Batch(tenant, journeys, quota.quota_day(tenant, now))
        plans = _plan(journeys, batch, window, now, result)
        if dry_run:
            for plan in plans:
                result.dispatched[plan.channel] += 1
            transaction.set_rollback(True)
            return result
        messages = _write(tenant, plans, journeys, batch, window, now, result)
        # WhatsApp: one planned run per phone picks its messages up in turn (pacing);
        # cold email: one push hands them all to the provider (outreach.pushing);
        # warm email: one actor run per message.
        # (after commit: the phone row is not held locked while the batch commits)
        for phone_id in sorted({m.phone_id for m in messages if m.phone_id}):
            transaction.on_commit(partial(pacing.wake, phone_id, now))
        if any(m.channel == Channel.EMAIL_COLD for m in messages):
            transaction.on_commit(partial(plan_push, tenant.pk, now))
        for message in messages:
            if not message.phone_id and message.channel != Channel.EMAIL_COLD:
                transaction.on_commit(partial(enqueue_message, message))
    return result


def _take(due: QuerySet[Journey], batch_size: int) -> list[Journey]:
    """The batch, locked: those who asked to be contacted first, then the rest in
    DUE_ORDER (two queries, each served by an index)."""
    locked = due.select_related("lead").select_for_update(skip_locked=True, of=("self",))
    journeys = list(locked.filter(ASKED).order_by(*DUE_ORDER)[:batch_size])
    if len(journeys) < batch_size:
        rest = locked.exclude(ASKED).order_by(*DUE_ORDER)
        journeys += list(rest[: batch_size - len(journeys)])
    return journeys


def _plan(
    journeys: list[Journey],
    batch: Batch,
    window: SendingWindow,
    now: datetime,
    result: DispatchResult,
) -> list[Plan]:
    """The planning (outreach.dispatch_plan), its skips counted and the stalls kept."""
    planned = plan_batch(journeys, batch, window, now)
    for skip in planned.skips:
        result.skipped[skip.code] += 1
        enrollment = batch.enrollments.get(skip.journey.lead_id)
        if enrollment is not None and skip.code in stalls.STALLING:
            batch.stalls.append((enrollment, skip.reason))
    return planned.plans


def _write(
    tenant: Tenant,
    plans: list[Plan],
    journeys: list[Journey],
    batch: Batch,
    window: SendingWindow,
    now: datetime,
    result: DispatchResult,
) -> list[Message]:
    fresh, queued = split_queued(plans)
    for plan in queued:
        plan.journey.next_action_at = None
        result.skipped[codes.ALREADY_QUEUED] += 1
    fresh = _within_shared_limits(tenant, fresh, batch, now, result)
    # A new contact always has its phone (_allocate_phone): its quota is that phone's.
    # One the person asked for costs none (whatsapp.quota.cost).
    wanted = Counter(p.phone_id for p in fresh if p.quota_cost and p.phone_id is not None)
    granted = quota.reserve_many(dict(wanted), quota.quota_day(tenant, now))
    messages, keep = [], []
    for plan in fresh:
        if plan.quota_cost and plan.phone_id is not None:
            if granted.get(plan.phone_id, 0) <= 0:
                result.skipped[codes.QUOTA_EXHAUSTED] += 1
                continue
            granted[plan.phone_id] -= 1
        keep.append(plan)
        messages.append(_message(tenant, plan, now, quota.quota_day(tenant, now)))
        result.dispatched[plan.channel] += 1
    Message.objects.bulk_create(messages, batch_size=500)
    _switch_to_fallbacks(tenant, keep, now)
    for plan in keep:
        journey = plan.journey
        journey.next_action_at = None  # in flight; the send schedules the next step
        if plan.phone_id and journey.assigned_phone_id != plan.phone_id:
            journey.assigned_phone_id, journey.assigned_at = plan.phone_id, now
    step_skips.record(batch.skipped_steps, now)  # before the save: it moves their journeys
    _save_journeys(journeys)
    moved = [p.journey.lead_id for p in keep] + [j.lead_id for _, _, j, _ in batch.skipped_steps]
    stalls.record(batch.stalls, moved, now)
    return messages


def _within_shared_limits(
    tenant: Tenant, plans: list[Plan], batch: Batch, now: datetime, result: DispatchResult
) -> list[Plan]:
    """The plans a provider's limit for all its numbers together leaves room for
    (outreach.shared_limits); the others wait, their reason recorded."""
    caps = shared_limits.limits(tenant.pk, now)
    if not caps:
        return plans
    again: dict[str, set[int]] = {}
    for limit in caps:
        leads = {p.journey.lead_id for p in plans if limit.takes(p.phone_id)}
        again[limit.provider] = shared_limits.people_already_written(
            tenant.pk, limit.phone_ids, leads, now
        )
    kept = []
    for plan in plans:
        cap = next((c for c in caps if c.takes(plan.phone_id)), None)
        lead_id = plan.journey.lead_id
        if cap is None or lead_id in again[cap.provider]:
            kept.append(plan)
            continue
        if cap.left <= 0:
            result.skipped[codes.SHARED_LIMIT] += 1
            enrollment = batch.enrollments.get(lead_id)
            if enrollment is not None:
                said = reasons.code(codes.SHARED_LIMIT, provider=cap.label, limit=cap.limit)
                batch.stalls.append((enrollment, said))
            continue
        cap.left -= 1
        again[cap.provider].add(lead_id)
        kept.append(plan)
    return kept


def _save_journeys(journeys: list[Journey]) -> None:
    """One UPDATE per distinct set of new values (a handful: one per phone, plus skips),
    far cheaper than a CASE per row and still independent of the batch size."""
    groups: dict[tuple, list[int]] = defaultdict(list)
    for j in journeys:
        values = (j.next_action_at, j.assigned_phone_id, j.assigned_at, j.current_sequence_id)
        groups[values].append(j.pk)
    for (next_action_at, phone_id, assigned_at, sequence_id), ids in groups.items():
        Journey.objects.filter(pk__in=ids).update(
            next_action_at=next_action_at,
            assigned_phone_id=phone_id,
            assigned_at=assigned_at,
            current_sequence_id=sequence_id,
            updated_at=timezone.now(),
        )


def _message(tenant: Tenant, plan: Plan, at: datetime, day: date) -> Message:
    lead = plan.journey.lead
    return Message(
        tenant=tenant,
        lead=lead,
        channel=plan.channel,
        direction=Message.Direction.OUTBOUND,
        status=Message.Status.QUEUED,
        subject=plan.subject,
        body=plan.body,
        template_version=plan.version,
        variant_hash=plan.variant_hash,
        media_id=plan.version.media_id if plan.channel == Channel.WHATSAPP else None,
        phone_id=plan.phone_id,
        counterpart=lead.phone if plan.channel == Channel.WHATSAPP else lead.email,
        provider_thread_id=plan.chat_id,
        quota_cost=plan.quota_cost,
        quota_day=day if plan.quota_cost else None,
        solicited=plan.solicited,
        sequence_id=plan.step.sequence_id,
        step=plan.step,
        idempotency_key=plan.key,
        channel_reason=plan.reason,
        basis=plan.basis,
        scheduled_for=at,
    )


def _switch_to_fallbacks(tenant: Tenant, plans: list[Plan], now: datetime) -> None:
    """Leads sent to a fallback sequence leave their old one and enter the fallback."""
    moved = [p for p in plans if p.fallback_sequence is not None]
    if not moved:
        return
    Enrollment.objects.filter(
        lead_id__in=[p.journey.lead_id for p in moved], status=Enrollment.Status.ACTIVE
    ).update(
        status=Enrollment.Status.STOPPED,
        stop_reason=reasons.code(codes.CHANNEL_FALLBACK),
        stopped_at=now,
        stalled_reason="",
        stalled_since=None,
    )
    Enrollment.objects.bulk_create(
        [
            Enrollment(
                tenant=tenant,
                lead_id=p.journey.lead_id,
                sequence=p.fallback_sequence,
                sequence_version=p.step.sequence_version,
                next_run_at=now,
            )
            for p in moved
        ]
    )
    for plan in moved:
        plan.journey.current_sequence_id = plan.step.sequence_id
