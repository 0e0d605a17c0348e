"""Outreach's metrics: every outcome of the send path, counted where it is recorded, and
the scrape-time facts dead letters and reply rates (registered by OutreachConfig.ready).

`cerniq_outreach_messages_total{channel,status}`: `sent` (record_sent, also a send found at
the provider after an uncertain attempt), `retry` (record_failure: due again later),
`failed` / `dead_letter` (_give_up), `cancelled` (sequences.cancel_message: no longer
wanted). Counted when the transaction that records it commits, so a rolled-back record is
never counted.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

from django.db import transaction
from django.db.models import Count, Sum
from django.utils import timezone
from prometheus_client import Counter
from prometheus_client.core import Metric

from cerniq.metrics.collectors import gauge
from outreach.models import DailyStats, Message

MESSAGES = Counter(
    "cerniq_outreach_messages_total",
    "Outbound messages by channel and what the send path recorded (sent, retry, failed, "
    "dead_letter, cancelled).",
    ["channel", "status"],
)
REPLY_RATE_DAYS = 7


def count_message(channel: str, status: str, amount: int = 1) -> None:
    """Count an outcome (`amount` messages of it: a batch recorded at once) once the current
    transaction commits (at once outside one)."""
    if amount <= 0:
        return
    child = MESSAGES.labels(channel.lower(), status)
    transaction.on_commit(lambda: child.inc(amount))


def collect() -> Iterator[Metric]:
    """Dead letters per tenant and channel; sends, replies and reply rate over the last
    REPLY_RATE_DAYS days from the daily roll-up (refreshed every 15 minutes). Two queries."""
    dead = (
        Message.objects.filter(status=Message.Status.DEAD_LETTER)
        .order_by()
        .values_list("tenant__slug", "channel")
        .annotate(n=Count("pk"))
    )
    yield gauge(
        "cerniq_outreach_dead_letters",
        "Messages in the dead letter state (retries spent), by tenant and channel.",
        ["tenant", "channel"],
        (((tenant, channel.lower()), n) for tenant, channel, n in dead),
    )
    since = timezone.localdate() - timedelta(days=REPLY_RATE_DAYS - 1)
    rows = list(
        DailyStats.objects.filter(day__gte=since, phone__isnull=True)  # all-phones rows only
        .order_by()
        .values_list("tenant__slug", "channel")
        .annotate(sent=Sum("sent"), replies=Sum("replies"))
    )
    labels = ["tenant", "channel"]
    yield gauge(
        "cerniq_outreach_sent_7d",
        "Messages sent in the last 7 days (daily roll-up), by tenant and channel.",
        labels,
        (((t, c.lower()), sent) for t, c, sent, _ in rows),
    )
    yield gauge(
        "cerniq_outreach_replies_7d",
        "Replies received in the last 7 days (daily roll-up), by tenant and channel.",
        labels,
        (((t, c.lower()), replies) for t, c, _, replies in rows),
    )
    yield gauge(
        "cerniq_outreach_reply_rate_7d",
        "Replies per message sent over the last 7 days (0..1), by tenant and channel; "
        "absent without sends.",
        labels,
        (((t, c.lower()), replies / sent) for t, c, sent, replies in rows if sent),
    )
