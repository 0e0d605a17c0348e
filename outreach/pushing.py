"""Cold email in bulk: a tenant's due EMAIL_COLD messages handed to the provider in batches.

Instantly sends cold email itself, from campaigns; we hand it leads, up to 1,000 per call
(docs/providers.md §2.2). A cold message is still one `Message` row with its idempotency
key, and it goes through every rule of the one send path (outreach.sending), asked of a
whole batch at once through the same functions a single send calls, so a batch costs a
number of SQL statements that does not grow with the leads it holds
(docs/cold-email-push.md):

1. still wanted (`why_not_send`, over what it reads loaded for the batch:
   outreach.send_facts), else cancelled with the reason (`cancel_messages`);
2. an earlier attempt that may have reached the provider (`needs_reconcile`) is looked for
   there first, the batch in one lookup (`look_for_attempts`): found, it is recorded sent
   and never pushed again; not found, the send path's rule (`not_found`) looks again until
   the deadline, then pushes it again, or gives it up when its retries are spent;
3. the campaign's hourly limit (`EmailCampaign.hourly_limit`): the rest waits for the next
   hour, QUEUED with its `scheduled_for`;
4. the sender (`acquire_many`: the reputation guard, the provider's readiness): a paused
   sender's messages wait;
5. claimed QUEUED → SENDING by one conditional UPDATE, so two pushers never hand the same
   lead over twice, and the rendered email stored (`request_to_store`): a later attempt
   sends the same email under the same key;
6. one provider call per batch (`max_batch`); the results recorded together
   (`record_sent_many`; `record_failures`: the retry table per message, so one bad address
   fails alone).

A pusher that dies after the call leaves SENDING rows; `requeue_stale` hands them to
`send_message`, which looks for them at the provider first, so a retry never pushes twice.
The sending window does not apply here: the campaign's own schedule is the tenant's window
(the provider sends in it).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db.models import Count, F, Q
from django.utils import timezone

from cerniq.models import Tenant
from cerniq.provider_errors import ProviderError, SendResult
from cerniq.row_updates import update_rows
from email_channels.models import EmailCampaign
from outreach import send_facts
from outreach.email_transport import EmailTransport
from outreach.models import SENT_STATUSES, Channel, Message, SequenceStep
from outreach.recording import record_sent_many
from outreach.sending import (
    Outcome,
    defer_many,
    look_for_attempts,
    not_found,
    record_failures,
    why_not_send,
)
from outreach.sequences import cancel_messages
from outreach.transports import transport_for

log = logging.getLogger(__name__)

PUSH_LIMIT = 10_000  # messages one run looks at; the next run (a minute later) takes the rest
HOUR = timedelta(hours=1)
DEFAULT_HOURLY_LIMIT = EmailCampaign._meta.get_field("hourly_limit").default


@dataclass
class PushOutcome:
    sent: int = 0
    failed: int = 0  # a failed result: due again under the retry table, or given up
    cancelled: int = 0
    waiting: int = 0  # over a campaign's hourly limit: due again next hour
    reconciled: int = 0  # an earlier attempt found at the provider: recorded, not pushed
    deferred: int = 0  # looked for again later, or its sender paused
    calls: int = 0  # provider calls made to push
    reasons: dict[str, int] = field(default_factory=dict)

    def count(self, outcomes: dict[int, Outcome]) -> None:
        """Add what the send path's rules decided for some messages."""
        for outcome in outcomes.values():
            if outcome.kind == "cancelled":
                self.cancelled += 1
            elif outcome.kind in ("failed", "dead"):
                self.failed += 1
            elif outcome.kind == "reconciled":
                self.reconciled += 1
            else:
                self.deferred += 1


def due_cold_messages(tenant_id: int, now: datetime) -> list[Message]:
    """The tenant's due cold email, each with its lead, tenant and step (the tenant and the
    few steps read once and shared, not joined to every row)."""
    due = list(
        Message.objects.select_related("lead")
        .filter(
            tenant_id=tenant_id,
            channel=Channel.EMAIL_COLD,
            direction=Message.Direction.OUTBOUND,
            status=Message.Status.QUEUED,
            provider_thread_id="",  # answers in a thread go one by one (send_message)
        )
        .filter(Q(scheduled_for__isnull=True) | Q(scheduled_for__lte=now))
        .order_by("scheduled_for", "pk")[:PUSH_LIMIT]
    )
    if not due:
        return due
    tenant = Tenant.objects.get(pk=tenant_id)
    steps = SequenceStep.objects.in_bulk({m.step_id for m in due if m.step_id})
    for message in due:
        message.tenant = tenant
        message.step = steps.get(message.step_id) if message.step_id else None
    return due


def hourly_room(tenant_id: int, sequence_ids: set[int | None], now: datetime) -> dict:
    """How many more leads each sequence's campaign takes this hour (its hourly limit less
    what was handed over in the last 60 minutes)."""
    limits: dict[int | None, int] = dict(
        EmailCampaign.objects.filter(tenant_id=tenant_id, sequence_id__in=sequence_ids)
        .exclude(status=EmailCampaign.Status.COMPLETED)
        .values_list("sequence_id", "hourly_limit")
    )
    pushed: dict[int | None, int] = dict(
        Message.objects.filter(
            tenant_id=tenant_id,
            channel=Channel.EMAIL_COLD,
            direction=Message.Direction.OUTBOUND,
            status__in=SENT_STATUSES,
            sent_at__gt=now - HOUR,
        )
        .order_by()
        .values("sequence_id")
        .annotate(n=Count("pk"))
        .values_list("sequence_id", "n")
    )
    return {s: max(0, limits.get(s, DEFAULT_HOURLY_LIMIT) - pushed.get(s, 0)) for s in sequence_ids}


def push_due(tenant_id: int, *, now: datetime | None = None) -> PushOutcome:
    """Hand every due cold email of the tenant to the provider, in batches."""
    now = now or timezone.now()
    outcome = PushOutcome()
    transport = transport_for(Channel.EMAIL_COLD)
    assert isinstance(transport, EmailTransport)
    due = due_cold_messages(tenant_id, now)
    room = hourly_room(tenant_id, {m.sequence_id for m in due}, now) if due else {}
    size = max(1, transport.max_batch)
    for start in range(0, len(due), size):
        batch = wanted(due[start : start + size], transport, outcome)
        batch = reconcile(batch, transport, now, outcome)
        batch = _within_hourly_limit(batch, room, now, outcome)
        batch = _sender_ready(batch, transport, now, outcome)
        deliver(claim(batch, transport), transport, outcome)
    if due:
        log.info("cold email push for tenant %s: %s", tenant_id, outcome)
    return outcome


def wanted(batch: list[Message], transport: EmailTransport, outcome: PushOutcome) -> list[Message]:
    """The messages still wanted; the others cancelled, one UPDATE per reason."""
    facts = send_facts.load(batch, transport)
    keep: list[Message] = []
    dropped: dict[str, list[Message]] = {}
    for message in batch:
        if blocker := why_not_send(message, transport, facts):
            dropped.setdefault(blocker, []).append(message)
        else:
            keep.append(message)
    for reason, group in dropped.items():
        outcome.cancelled += cancel_messages(group, reason)
        outcome.reasons[reason] = outcome.reasons.get(reason, 0) + len(group)
    return keep


def reconcile(
    batch: list[Message], transport: EmailTransport, now: datetime, outcome: PushOutcome
) -> list[Message]:
    """Messages whose earlier attempt may have gone out are looked for at the provider
    first (the whole batch in one lookup); returns what is to be pushed."""
    uncertain = [m for m in batch if m.needs_reconcile]
    if not uncertain:
        return batch
    found, unanswered = look_for_attempts(uncertain, transport)
    outcome.count(unanswered)
    recorded = record_sent_many([(m, found[m.pk]) for m in uncertain if m.pk in found], transport)
    outcome.reconciled += len(recorded)
    absent = [m for m in uncertain if m.pk not in found and m.pk not in unanswered]
    again, decided = not_found(absent, transport, now)
    outcome.count(decided)
    settled = {m.pk for m in uncertain} - {m.pk for m in again}
    return [m for m in batch if m.pk not in settled]


def _within_hourly_limit(
    batch: list[Message], room: dict, now: datetime, outcome: PushOutcome
) -> list[Message]:
    taken: list[Message] = []
    later: list[int] = []
    for message in batch:
        if room.get(message.sequence_id, 0) > 0:
            room[message.sequence_id] -= 1
            taken.append(message)
        else:
            later.append(message.pk)
    if later:
        Message.objects.filter(pk__in=later, status=Message.Status.QUEUED).update(
            scheduled_for=now + HOUR
        )
        outcome.waiting += len(later)
    return taken


def _sender_ready(
    batch: list[Message], transport: EmailTransport, now: datetime, outcome: PushOutcome
) -> list[Message]:
    """A sender paused by the reputation guard or not ready at its provider: its messages
    wait (the send path's `acquire`)."""
    busy = transport.acquire_many(batch, now)
    waits: dict[datetime, list[Message]] = {}
    for message in batch:
        if message.pk in busy:
            waits.setdefault(busy[message.pk], []).append(message)
    for at, group in waits.items():
        defer_many(group, at)
    outcome.deferred += len(busy)
    return [m for m in batch if m.pk not in busy]


# What the send path may have written to a row since it was read (a pusher that claimed,
# failed and queued it again meanwhile): read again with the claim.
CLAIM_FIELDS = ("attempts", "needs_reconcile", "retries", "raw_request", "error")


def claim(batch: list[Message], transport: EmailTransport) -> list[Message]:
    """QUEUED → SENDING by one conditional UPDATE (another pusher's rows are left alone);
    the claimed rows with the email each attempt sends, rendered once and stored."""
    if not batch:
        return []
    at = timezone.now()
    ids = [m.pk for m in batch]
    Message.objects.filter(pk__in=ids, status=Message.Status.QUEUED).update(
        status=Message.Status.SENDING, attempts=F("attempts") + 1, attempt_started_at=at
    )
    fresh = {
        pk: values
        for pk, *values in Message.objects.filter(
            pk__in=ids, status=Message.Status.SENDING, attempt_started_at=at
        ).values_list("pk", *CLAIM_FIELDS)
    }
    claimed = [m for m in batch if m.pk in fresh]
    rendered = {}
    for message in claimed:
        for name, value in zip(CLAIM_FIELDS, fresh[message.pk], strict=True):
            setattr(message, name, value)
        message.status, message.attempt_started_at = Message.Status.SENDING, at
        request = transport.request_to_store(message)
        if request is not None:
            message.raw_request = request
            rendered[message.pk] = {"raw_request": request}
    update_rows(Message, rendered)
    return claimed


def deliver(claimed: list[Message], transport: EmailTransport, outcome: PushOutcome) -> None:
    """One provider call for the batch; its results recorded together."""
    if not claimed:
        return
    outcome.calls += 1
    try:
        results: list[SendResult | ProviderError] = transport.deliver_many(claimed)
    except ProviderError as error:  # the whole call failed: each message retries
        results = [error] * len(claimed)
    sent, failed = [], []
    for message, result in zip(claimed, results, strict=True):
        if isinstance(result, ProviderError):
            failed.append((message, result))
        else:
            sent.append((message, result))
    record_sent_many(sent, transport)
    record_failures(failed, transport)
    outcome.sent += len(sent)
    outcome.failed += len(failed)
