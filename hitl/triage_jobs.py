"""A reply's triage, in a worker, after the transaction that stored the reply committed.

The webhook's transaction only stores the reply and does what must happen at once
(hitl.replies.process_reply); here the `ai.triage` workers (actor hitl.tasks.triage_reply)
read it. The model call (up to AI_TIMEOUT, 20 s, with the OpenAI-compatible backend) runs
outside any transaction, so it holds no row lock and no database connection in a
transaction; the routing that follows is one short transaction.

Once per reply: the routing transaction first turns the row from PENDING to DONE with a
conditional UPDATE, so of two runs of the same message (a redelivery, the reconciler) only
one routes; the other finds nothing to do. A run that fails is retried by Dramatiq with
back-off (the retry table's transient row, cerniq.retry: 3 retries, 15 s, 30 s, 60 s);
the last failure puts the reply in front of a person as "could not be analysed"
(hitl.replies.triage_failed): never lost, never silent. A reply whose broker message was
lost (a crash between the commit and the enqueue, a flushed broker) stays PENDING and is
enqueued again by `requeue_stale` (`manage.py requeue_triage`, every minute).
"""

from __future__ import annotations

import functools
import logging
from datetime import timedelta

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from cerniq import retry
from hitl import replies
from hitl.metrics import observe_reply_latency
from hitl.models import ReplyTriage
from outreach.models import Lead, Message

log = logging.getLogger(__name__)

State = ReplyTriage.State

QUEUE = "ai.triage"
RETRIES = retry.MAX_RETRIES_TRANSIENT
MAX_ATTEMPTS = 1 + RETRIES
BACKOFF_MS = int(retry.BACKOFF_BASE.total_seconds() * 1000)
# A reply PENDING this long since it was last handed to the workers lost its broker
# message: longer than the retries' back-off (15-30 s, 30-60 s, 60-120 s with jitter).
STALE_AFTER = timedelta(minutes=5)
REQUEUE_BATCH = 1000
ERROR_MAX = ReplyTriage._meta.get_field("error").max_length


def expect(lead: Lead, message: Message, *, opted_out: bool, held: dict) -> ReplyTriage:
    """Mark `message` as being analysed and hand it to the workers when the caller's
    transaction commits. `held`: what storing it stopped (hitl.reply_holds)."""
    job = ReplyTriage.objects.create(
        message=message,
        tenant_id=lead.tenant_id,
        lead=lead,
        opted_out=opted_out,
        held=held,
        queued_at=timezone.now(),
    )
    enqueue(message.pk)
    return job


def enqueue(message_id: int) -> None:
    """Send the triage actor once the current transaction commits. `robust`: a broker
    outage must not undo the stored reply (the reconciler sends it later)."""
    from hitl.tasks import triage_reply

    transaction.on_commit(functools.partial(triage_reply.send, message_id), robust=True)


def run(message_id: int) -> str:
    """Triage one stored reply and route it, once. Returns the decision, "skipped" (already
    triaged, or not ours), or the "could not be analysed" decision after the last attempt.
    Raises to be retried (hitl.tasks.triage_reply)."""
    claimed = ReplyTriage.objects.filter(pk=message_id, state=State.PENDING).update(
        attempts=F("attempts") + 1, queued_at=timezone.now()
    )
    if not claimed:
        log.info("triage of message %s: nothing pending, skipped", message_id)
        return "skipped"
    job = ReplyTriage.objects.select_related("message", "lead__tenant").get(pk=message_id)
    try:
        return _triage_and_route(job)
    except Exception as exc:
        if job.attempts < MAX_ATTEMPTS:
            log.warning(
                "triage of message %s failed (attempt %s of %s): %s",
                message_id,
                job.attempts,
                MAX_ATTEMPTS,
                type(exc).__name__,
            )
            raise
        log.exception("triage of message %s failed for good", message_id)
        return give_up(job, exc)


def _triage_and_route(job: ReplyTriage) -> str:
    message, lead = job.message, job.lead
    # The model call: outside any transaction (no lock held while it answers).
    result = replies.read(lead, message, opted_out=job.opted_out)
    with transaction.atomic():
        now = timezone.now()
        if not _finish(job, State.DONE, now):
            return "skipped"  # another run routed it meanwhile
        decision = replies.route_triaged(
            lead, message, result, opted_out=job.opted_out, held=job.held
        )
    observe_reply_latency("done", (now - job.created_at).total_seconds())
    return decision


def _finish(job: ReplyTriage, state: str, now, error: str = "") -> bool:
    """PENDING -> `state`, only if still PENDING: the one guard against routing twice."""
    return bool(
        ReplyTriage.objects.filter(pk=job.pk, state=State.PENDING).update(
            state=state, triaged_at=now, error=error[:ERROR_MAX]
        )
    )


def give_up(job: ReplyTriage, exc: BaseException) -> str:
    """The last attempt failed: a person reads the reply (hitl.replies.triage_failed)."""
    error = type(exc).__name__
    with transaction.atomic():
        now = timezone.now()
        if not _finish(job, State.FAILED, now, error=f"{error}: {exc}"):
            return "skipped"
        decision = replies.triage_failed(job.lead, job.message, error=error, attempts=job.attempts)
    observe_reply_latency("failed", (now - job.created_at).total_seconds())
    return decision


def requeue_stale(older_than: timedelta = STALE_AFTER) -> int:
    """Enqueue replies still PENDING `older_than` after they were last handed over (their
    broker message was lost). Safe to overlap a live run: routing is guarded."""
    from hitl.tasks import triage_reply

    now = timezone.now()
    stale = list(
        ReplyTriage.objects.filter(state=State.PENDING, queued_at__lt=now - older_than)
        .order_by("queued_at")
        .values_list("pk", flat=True)[:REQUEUE_BATCH]
    )
    ReplyTriage.objects.filter(pk__in=stale, state=State.PENDING).update(queued_at=now)
    for message_id in stale:
        triage_reply.send(message_id)
    return len(stale)
