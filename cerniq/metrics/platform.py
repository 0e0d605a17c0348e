"""The platform's scrape-time facts: open alerts, webhook events not done yet, and the
heartbeats, the outgoing webhooks owed (registered by CerniqConfig.ready). Three queries and
two cache reads."""

from __future__ import annotations

from collections.abc import Iterator

from django.db.models import Count, Min
from django.utils import timezone
from prometheus_client.core import Metric

from cerniq import heartbeats
from cerniq.metrics.collectors import gauge
from cerniq.models import Alert, WebhookDelivery, WebhookEvent

# Stored events still to be done, or failed (webhook dead letters until replayed).
PENDING_WEBHOOK_STATUSES = (
    WebhookEvent.Status.RECEIVED,
    WebhookEvent.Status.PROCESSING,
    WebhookEvent.Status.FAILED,
)
# Outgoing webhook deliveries not delivered: a status filter the outbox's index serves.
OWED_OR_FAILED = (
    WebhookDelivery.Status.PENDING,
    WebhookDelivery.Status.DELIVERING,
    WebhookDelivery.Status.FAILED,
)


def collect() -> Iterator[Metric]:
    alerts = (
        Alert.objects.filter(resolved_at__isnull=True)
        .order_by()
        .values_list("kind", "severity")
        .annotate(n=Count("pk"))
    )
    yield gauge(
        "cerniq_alerts_open",
        "Open alerts by kind and severity.",
        ["kind", "severity"],
        (((kind, severity), n) for kind, severity, n in alerts),
    )
    events = (
        WebhookEvent.objects.filter(status__in=PENDING_WEBHOOK_STATUSES)
        .order_by()
        .values_list("provider", "status")
        .annotate(n=Count("pk"))
    )
    yield gauge(
        "cerniq_webhook_events",
        "Stored webhook events waiting (RECEIVED), running (PROCESSING) or failed (FAILED).",
        ["provider", "status"],
        (((provider, status.lower()), n) for provider, status, n in events),
    )
    owed = list(
        WebhookDelivery.objects.filter(status__in=OWED_OR_FAILED)
        .order_by()
        .values_list("status")
        .annotate(n=Count("pk"), oldest=Min("created_at"))
    )
    yield gauge(
        "cerniq_outbound_webhook_deliveries",
        "Outgoing webhook deliveries owed (pending, delivering) or given up (failed).",
        ["status"],
        (((status.lower(),), n) for status, n, _ in owed),
    )
    waiting = [oldest for status, _, oldest in owed if status != WebhookDelivery.Status.FAILED]
    yield gauge(
        "cerniq_outbound_webhook_oldest_owed_seconds",
        "Age of the oldest outgoing webhook delivery still owed (absent: none owed).",
        [],
        [((), (timezone.now() - min(waiting)).total_seconds())] if waiting else [],
    )
    workers = heartbeats.worker_beats()
    yield gauge(
        "cerniq_worker_heartbeat_age_seconds",
        "Age of the oldest worker heartbeat of each queue group (absent: never beat).",
        ["group"],
        (((beat.group,), beat.age_seconds) for beat in workers if beat.age_seconds is not None),
    )
    yield gauge(
        "cerniq_worker_group_up",
        "1 when every queue of the group beat within HEALTH_WORKER_STALE_SECONDS.",
        ["group"],
        (((beat.group,), int(beat.state == heartbeats.OK)) for beat in workers),
    )
    scheduler = heartbeats.scheduler_beat()
    yield gauge(
        "cerniq_scheduler_heartbeat_age_seconds",
        "Age of the scheduler's last heartbeat (absent: never beat).",
        [],
        [((), scheduler.age_seconds)] if scheduler.age_seconds is not None else [],
    )
