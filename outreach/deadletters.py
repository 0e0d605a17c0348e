"""Dead letters: outbound messages the send path gave up on (DEAD_LETTER), and webhook
events whose processing failed (cerniq.failed_events). The rule: kept 7 days, an alert above
100, retry or discard from the UI.

- **Retry** hands the message back to the one send path as it was: the same row, so the
  same idempotency key (the email providers dedupe on it), with a fresh retry budget.
  DEAD_LETTER → QUEUED is a conditional UPDATE, so a double click or two requests re-queue
  it once, and the send path's own claim sends it once. A dead letter that may have gone
  out (`needs_reconcile`, its quota slot kept) is looked for at the provider before any
  resend; a new contact whose slot was given back takes one of today's again, and is not
  retried when its phone has none left.
- **Discard** cancels it (CANCELLED, who discarded it and its last error kept in `error`,
  its idempotency key freed) and never leaves the lead stalled: a dead step is what keeps
  a journey without a next action, so the lead is either *re-planned* (due now: dispatch
  plans the step again, on whichever phone and channel can reach the lead now) or
  *paused* (stage PAUSED; resuming it makes it due).
- **Purge**: nothing is deleted. Dead letters older than DEAD_LETTER_RETENTION_DAYS are
  discarded with re-plan and failed webhook events are discarded (IGNORED, raw body kept):
  the rows stay as history, the list of things waiting for a person is emptied.
- **Alert**: a tenant with more than DEAD_LETTER_ALERT_THRESHOLD dead letters (both kinds)
  has an open DEAD_LETTERS alert; it is resolved once the count is back under.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Count, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from cerniq import failed_events, reasons
from cerniq.alerts import raise_alert, resolve_alerts
from cerniq.models import Alert, Tenant
from cerniq.tenancy import display_name
from outreach import reasons as codes
from outreach import stages
from outreach.delivery import enqueue_message, is_pushed, plan_push
from outreach.models import Channel, Journey, Message
from outreach.reasons import STAGE_DEAD_LETTER
from outreach.sending import ERROR_LIMIT
from outreach.sequences import cancel_message
from whatsapp.quota import quota_day, reserve_new_contact

log = logging.getLogger(__name__)

ALERT_SUBJECT = "dead-letters"
PURGE_BATCH = 500  # dead letters discarded per transaction by the purge

DEAD = Message.Status.DEAD_LETTER


@dataclass
class Result:
    """How many rows an action changed, and why the others were left as they were."""

    done: int = 0
    skipped: Counter[str] = field(default_factory=Counter)


def _not_found(result: Result, ids: set[int], found: list[Message]) -> None:
    """Ids that are no dead letter of the tenant (any more): retried or discarded by
    someone else meanwhile, or another tenant's (not said)."""
    if missing := len(ids) - len(found):
        result.skipped[_("no longer a dead letter")] += missing


class _NotRetried(Exception):
    """Raised inside a message's savepoint: its re-queueing is rolled back."""


def dead_letters(tenant: Tenant) -> QuerySet[Message]:
    """The tenant's dead-lettered outbound messages, the latest first."""
    return (
        Message.objects.filter(tenant=tenant, direction=Message.Direction.OUTBOUND, status=DEAD)
        .select_related("lead", "phone")
        .order_by("-failed_at", "-pk")
    )


# --- retry ------------------------------------------------------------------------------


def retry(tenant: Tenant, ids: Iterable[int]) -> Result:
    """Send the tenant's dead letters among `ids` again, through the one send path."""
    now = timezone.now()
    result = Result()
    queued: list[Message] = []
    ids = set(ids)
    found = list(dead_letters(tenant).filter(pk__in=ids))
    _not_found(result, ids, found)
    with transaction.atomic():
        for message in found:
            try:
                with transaction.atomic():
                    _requeue(tenant, message, now)
            except _NotRetried as refused:
                result.skipped[str(refused)] += 1
                continue
            result.done += 1
            queued.append(message)
        transaction.on_commit(lambda: _hand_over(tenant.pk, queued, now))
    resolve_alert_if_under(tenant)
    return result


def _requeue(tenant: Tenant, message: Message, now: datetime) -> None:
    if message.channel == Channel.WHATSAPP and message.phone_id is None:
        raise _NotRetried(_("its phone is gone: discard it to re-plan the lead"))
    requeued = Message.objects.filter(pk=message.pk, status=DEAD).update(
        status=Message.Status.QUEUED, retries={}, failed_at=None, scheduled_for=now
    )
    if not requeued:
        raise _NotRetried(_("no longer a dead letter"))
    if message.quota_cost and not message.needs_reconcile and message.phone is not None:
        day = quota_day(tenant, now)
        if not reserve_new_contact(message.phone, day):
            raise _NotRetried(
                _("%(phone)s has no new-contact quota left today") % {"phone": message.phone}
            )
        Message.objects.filter(pk=message.pk).update(quota_day=day)
    message.status = Message.Status.QUEUED


def _hand_over(tenant_id: int, messages: list[Message], now: datetime) -> None:
    """To the broker, as dispatch does: a phone's run, one cold-email push, warm email each."""
    pushes = False
    for message in messages:
        if is_pushed(message):
            pushes = True
        else:
            enqueue_message(message, at=now)
    if pushes:
        plan_push(tenant_id, now)


# --- discard ----------------------------------------------------------------------------


def discard(
    tenant: Tenant,
    ids: Iterable[int],
    *,
    pause: bool = False,
    by_user: User | None = None,
    why: str = "",
) -> Result:
    """Cancel the tenant's dead letters among `ids`; re-plan their leads, or pause them.
    `why` heads the note kept on each message (by default: who discarded it)."""
    why = why or f"dead letter discarded by {display_name(by_user)}"
    result = Result()
    ids = set(ids)
    found = list(dead_letters(tenant).filter(pk__in=ids))
    _not_found(result, ids, found)
    with transaction.atomic():
        discarded = _cancel(found, why, pause, result)
        if pause:
            _pause_leads(tenant, discarded, by_user, result)
        else:
            replan(discarded)
    resolve_alert_if_under(tenant)
    return result


def _cancel(messages: list[Message], why: str, pause: bool, result: Result) -> list[Message]:
    then = "the lead paused" if pause else "the lead re-planned"
    discarded = []
    for message in messages:
        note = f"{why}, {then}; it failed with: {message.error}"
        if cancel_message(message, note[:ERROR_LIMIT], status=DEAD):
            result.done += 1
            discarded.append(message)
        else:
            result.skipped[_("no longer a dead letter")] += 1
    return discarded


def replan(messages: list[Message]) -> None:
    """The leads of discarded sequence steps are due now: dispatch plans their next action
    (the step again, on whatever phone and channel reach the lead now). A person's message
    or an automated answer is no step: nothing waits on it."""
    leads = {m.lead_id for m in messages if m.step_id and m.lead_id}
    if leads:
        Journey.objects.filter(lead_id__in=leads).update(next_action_at=timezone.now())


def _pause_leads(
    tenant: Tenant, messages: list[Message], by_user: User | None, result: Result
) -> None:
    """Pause each lead (stage PAUSED: resuming makes it due). A lead that cannot be paused
    (already paused, dead, converted) has no automation to stall: it is re-planned."""
    leads = {m.lead_id for m in messages if m.lead_id}
    not_paused = []
    for journey in Journey.objects.filter(tenant=tenant, lead_id__in=leads):
        try:
            stages.pause(journey, reason=reasons.code(STAGE_DEAD_LETTER), by_user=by_user)
        except stages.IllegalTransition as refused:
            result.skipped[_("lead not paused: %(why)s") % {"why": refused}] += 1
            not_paused.append(journey.lead_id)
    replan([m for m in messages if m.lead_id in not_paused])


# --- purge and alert --------------------------------------------------------------------


@dataclass(frozen=True)
class Purged:
    messages: int
    events: int


def purge(now: datetime | None = None) -> Purged:
    """Discard every tenant's dead letters older than the retention period (see the module
    docstring: re-planned, never deleted) and expire failed webhook events as old."""
    now = now or timezone.now()
    before = now - timedelta(days=settings.DEAD_LETTER_RETENTION_DAYS)
    expired = Message.objects.filter(
        direction=Message.Direction.OUTBOUND, status=DEAD, failed_at__lt=before
    )
    by_tenant: dict[int, list[int]] = {}
    for tenant_id, pk in expired.order_by("tenant_id", "pk").values_list("tenant_id", "pk"):
        by_tenant.setdefault(tenant_id, []).append(pk)
    why = f"dead letter for {settings.DEAD_LETTER_RETENTION_DAYS} days, discarded"
    messages = 0
    for tenant in Tenant.objects.filter(pk__in=by_tenant):
        ids = by_tenant[tenant.pk]
        for start in range(0, len(ids), PURGE_BATCH):
            messages += discard(tenant, ids[start : start + PURGE_BATCH], why=why).done
    events = failed_events.expire(before, why)
    if messages or events:
        log.info("dead letters purged: %d messages, %d webhook events", messages, events)
    return Purged(messages, events)


def counts_by_tenant() -> Counter[int]:
    """Dead letters of both kinds per tenant, in two queries."""
    counts: Counter[int] = Counter(
        dict(
            Message.objects.filter(direction=Message.Direction.OUTBOUND, status=DEAD)
            .order_by()
            .values("tenant")
            .annotate(n=Count("pk"))
            .values_list("tenant", "n")
        )
    )
    counts.update(failed_events.counts_by_tenant())
    return counts


def check_alerts() -> list[int]:
    """Raise the alert of every tenant above the threshold, resolve it for the others;
    the ids of the tenants alerted. A constant number of queries, plus one per tenant
    whose alert is raised or resolved."""
    counts = counts_by_tenant()
    threshold = settings.DEAD_LETTER_ALERT_THRESHOLD
    open_for = set(
        Alert.objects.filter(
            kind=Alert.Kind.DEAD_LETTERS, subject=ALERT_SUBJECT, resolved_at__isnull=True
        ).values_list("tenant_id", flat=True)
    )
    above = {tenant_id for tenant_id, n in counts.items() if n > threshold}
    for tenant in Tenant.objects.filter(pk__in=above | open_for):
        _set_alert(tenant, counts.get(tenant.pk, 0), threshold)
    return sorted(above)


def resolve_alert_if_under(tenant: Tenant) -> None:
    """Right after an operator's action: the tenant's alert is resolved at once when the
    count is back under the threshold (raising it is the periodic check's job)."""
    threshold = settings.DEAD_LETTER_ALERT_THRESHOLD
    if dead_letters(tenant).count() + failed_events.failed(tenant).count() <= threshold:
        resolve_alerts(tenant, Alert.Kind.DEAD_LETTERS, ALERT_SUBJECT)


def _set_alert(tenant: Tenant, count: int, threshold: int) -> None:
    if count > threshold:
        raise_alert(
            tenant,
            Alert.Kind.DEAD_LETTERS,
            ALERT_SUBJECT,
            reasons.code(codes.ALERT_DEAD_LETTERS, count=count, threshold=threshold),
        )
    else:
        resolve_alerts(tenant, Alert.Kind.DEAD_LETTERS, ALERT_SUBJECT)
