"""Sending the outbox: claim a due row, sign, POST, record what the receiver said.

Who sends: `deliver` (enqueued on commit for each new row) and `deliver_due` (every minute,
settings.PERIODIC_JOBS, for rows whose message the broker lost and for retries). Either
claims the row first with a conditional UPDATE (PENDING and due → DELIVERING until the claim
ends), so two workers never both send it. Delivery is at least once: a worker that dies
after the POST and before recording it leaves the row to be claimed again when the claim
ends, and the receiver drops the repeat by its `webhook-id`.

Answers: 2xx delivered; 410 Gone disables the endpoint (the integrator removed it); any
other status, a timeout or a refused connection is retried after RETRY_SCHEDULE, and after
MAX_ATTEMPTS the row is FAILED (an operator may redeliver it from the page).
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import requests
from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from cerniq import net_guard, reasons
from cerniq.logging import mask_log_text
from cerniq.metrics.outbound import DELIVERIES
from cerniq.models import WebhookDelivery, WebhookEndpoint
from cerniq.outbound import endpoints as endpoint_rules
from cerniq.outbound import events

log = logging.getLogger(__name__)

Status = WebhookDelivery.Status

# The wait after the n-th failed attempt (attempt 1 is at once): ~11 h in all, 9 attempts.
RETRY_SCHEDULE = (
    timedelta(seconds=5),
    timedelta(seconds=30),
    timedelta(minutes=2),
    timedelta(minutes=10),
    timedelta(minutes=30),
    timedelta(hours=1),
    timedelta(hours=3),
    timedelta(hours=6),
)
MAX_ATTEMPTS = len(RETRY_SCHEDULE) + 1
CLAIM_FOR = timedelta(minutes=2)  # longer than one POST can take (TIMEOUT)
TIMEOUT = (3, 10)  # connect, read (seconds)
EXCERPT_LIMIT = 500
BATCH = 500  # rows per periodic run; the rest wait for the next minute
RUN_BUDGET = timedelta(minutes=4)  # a periodic run's time for POSTs (its actor has 10)
USER_AGENT = "Cerniq-Webhooks/1.0 (+https://cerniq.ro)"


@dataclass(frozen=True)
class Attempt:
    """What one POST came to: a status code (None when no answer came) and text to keep."""

    status_code: int | None
    excerpt: str = ""
    error: str = ""

    @property
    def delivered(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


def retry_delay(attempts: int) -> timedelta | None:
    """The wait after `attempts` failed attempts, None when it is the last."""
    return RETRY_SCHEDULE[attempts - 1] if attempts < MAX_ATTEMPTS else None


def sign(secret: str, event_id: str, at: datetime, body: str) -> dict[str, str]:
    """The Standard Webhooks headers: `webhook-signature` is `v1,<base64 HMAC-SHA256 of
    id.timestamp.body>` under the secret's key. The `standardwebhooks` package (svix's own
    signer, installed with it) is imported here, not the `svix` package whose API client
    costs a worker ~26 MiB."""
    from standardwebhooks import Webhook

    return {
        "webhook-id": event_id,
        "webhook-timestamp": str(int(at.timestamp())),
        "webhook-signature": Webhook(secret).sign(event_id, at.astimezone(UTC), body),
    }


def post(endpoint: WebhookEndpoint, payload: dict, now: datetime) -> Attempt:
    """One signed POST, no redirects, short timeouts, only to the address vetted for the
    URL's host (net_guard); never raises. A refusal is stored as a reason code."""
    body = json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
    headers = {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        **sign(endpoint.secret, payload["id"], now, body),
    }
    try:
        host = endpoint_rules.url_host(endpoint.url)
        with net_guard.guarded(host) as guard:
            try:
                response = requests.post(
                    endpoint.url,
                    data=body.encode(),
                    headers=headers,
                    timeout=TIMEOUT,
                    allow_redirects=False,
                )
            except requests.RequestException as exc:
                if guard.refused:
                    return Attempt(None, error=guard.refusal)
                error = mask_log_text(f"{type(exc).__name__}: {exc}")
                return Attempt(None, error=error[:EXCERPT_LIMIT])
    except endpoint_rules.EndpointURLError as refused:
        return Attempt(None, error=str(refused))
    except net_guard.DestinationRefused as refused:  # before any connection
        return Attempt(None, error=refused.reason)
    return Attempt(response.status_code, excerpt=excerpt(response))


def excerpt(response: requests.Response) -> str:
    """The start of the receiver's answer, masked like a log line, bounded."""
    text = response.content[: EXCERPT_LIMIT * 2].decode("utf-8", errors="replace")
    return mask_log_text(text)[:EXCERPT_LIMIT]


def _claim(delivery_id: int, now: datetime) -> bool:
    """Take the row until CLAIM_FOR from now; False when it is not due, its endpoint is
    disabled, or another worker has it. A DELIVERING row whose claim ended (its worker
    died) is due again. The UPDATE filters on the row's own columns only: PostgreSQL then
    re-checks them on the row a concurrent claim just changed (a join would turn the filter
    into a subquery read before that change, and both workers would win)."""
    enabled = (
        WebhookDelivery.objects.filter(pk=delivery_id)
        .values_list("endpoint__enabled", flat=True)
        .first()
    )
    if not enabled:
        return False
    return bool(
        WebhookDelivery.objects.filter(
            pk=delivery_id,
            status__in=(Status.PENDING, Status.DELIVERING),
            next_attempt_at__lte=now,
        ).update(
            status=Status.DELIVERING, next_attempt_at=now + CLAIM_FOR, attempts=F("attempts") + 1
        )
    )


def deliver(delivery_id: int, now: datetime | None = None) -> str | None:
    """Send one row if it is due and unclaimed; its new status, or None when not sent."""
    now = now or timezone.now()
    if not _claim(delivery_id, now):
        return None
    row = WebhookDelivery.objects.select_related("endpoint").get(pk=delivery_id)
    attempt = post(row.endpoint, row.payload, now)
    return record(row, attempt, now)


def record(row: WebhookDelivery, attempt: Attempt, now: datetime) -> str:
    """Store the outcome of the claimed attempt `row.attempts` (only if the row is still
    ours: a claim that ran out may belong to another worker now)."""
    endpoint = row.endpoint
    fields: dict[str, object] = {
        "last_attempt_at": now,
        "last_status_code": attempt.status_code,
        "last_response_excerpt": attempt.excerpt,
        "last_error": attempt.error,
    }
    if attempt.delivered:
        status, outcome = Status.DELIVERED, "delivered"
        fields |= {"delivered_at": now, "next_attempt_at": None}
    elif attempt.status_code == 410:
        status, outcome = Status.FAILED, "gone"
        fields["next_attempt_at"] = None
        WebhookEndpoint.objects.filter(pk=endpoint.pk).update(
            enabled=False,
            disabled_reason=WebhookEndpoint.DisabledBy.GONE,
            last_failure_at=now,
        )
    else:
        delay = retry_delay(row.attempts)
        status, outcome = (Status.PENDING, "retry") if delay else (Status.FAILED, "failed")
        fields["next_attempt_at"] = now + delay if delay else None
    WebhookDelivery.objects.filter(
        pk=row.pk, status=Status.DELIVERING, attempts=row.attempts
    ).update(status=status, **fields)
    if attempt.delivered:
        WebhookEndpoint.objects.filter(pk=endpoint.pk).update(last_success_at=now)
    elif outcome != "gone":
        WebhookEndpoint.objects.filter(pk=endpoint.pk).update(last_failure_at=now)
        log.warning(
            "webhook %s to endpoint %s: attempt %s failed (%s)",
            row.event_id,
            endpoint.pk,
            row.attempts,
            attempt.status_code or reasons.render(attempt.error),
        )
    DELIVERIES.labels(outcome).inc()
    return status


def deliver_due(now: datetime | None = None, *, limit: int = BATCH) -> int:
    """Send the rows due now (the periodic catch-up), oldest first; how many went out. It
    starts no new POST after RUN_BUDGET (receivers that time out must not hold the run past
    its actor's time limit): the rest are taken by the next run."""
    now = now or timezone.now()
    started = time.monotonic()
    due = WebhookDelivery.objects.filter(
        status__in=(Status.PENDING, Status.DELIVERING),
        next_attempt_at__lte=now,
        endpoint__enabled=True,
    ).order_by("next_attempt_at", "pk")
    sent = 0
    for delivery_id in list(due.values_list("pk", flat=True)[:limit]):
        if time.monotonic() - started > RUN_BUDGET.total_seconds():
            break
        sent += deliver(delivery_id, now) == Status.DELIVERED
    return sent


def purge(now: datetime | None = None, *, batch: int = BATCH) -> int:
    """Delete DELIVERED and FAILED rows whose last attempt is older than
    OUTBOUND_WEBHOOK_RETENTION_DAYS (their payloads hold reply texts, kept no longer than
    needed); how many. Rows still owed (PENDING, DELIVERING) are never deleted, nor is a
    FAILED row an operator redelivers meanwhile (the DELETE re-checks the status). In
    batches, so no long lock on the outbox."""
    now = now or timezone.now()
    before = now - timedelta(days=settings.OUTBOUND_WEBHOOK_RETENTION_DAYS)
    done = WebhookDelivery.objects.filter(
        status__in=(Status.DELIVERED, Status.FAILED), last_attempt_at__lt=before
    )
    deleted = 0
    while ids := list(done.order_by().values_list("pk", flat=True)[:batch]):
        count, _ = done.filter(pk__in=ids).delete()
        deleted += count
        if len(ids) < batch:
            break
    if deleted:
        log.info("deleted %s webhook deliveries older than %s", deleted, before.date())
    return deleted


def redeliver(row: WebhookDelivery) -> bool:
    """An operator asks for it again: same event id (receivers may drop it as a repeat),
    a fresh run of attempts, due now. False while a worker is sending it (nothing changes)."""
    due = timezone.now()
    changed = (
        WebhookDelivery.objects.filter(pk=row.pk)
        .exclude(status=Status.DELIVERING)
        .update(status=Status.PENDING, attempts=0, next_attempt_at=due, delivered_at=None)
    )
    if changed:
        transaction.on_commit(lambda: events.enqueue([row.pk]))
        row.status, row.attempts, row.next_attempt_at, row.delivered_at = (
            Status.PENDING,
            0,
            due,
            None,
        )
    return bool(changed)
