"""Human review's metrics: how long reply triage takes (timed where the reply path calls
it, hitl.replies.analyse), how long a stored reply waits for it (hitl.triage_jobs), and
the open review queue with its SLA breaches per priority (scrape time, registered by
HitlConfig.ready)."""

from __future__ import annotations

from collections.abc import Iterator

from django.utils import timezone
from prometheus_client import Histogram
from prometheus_client.core import Metric

from cerniq.metrics.collectors import gauge

TRIAGE_SECONDS = Histogram(
    "cerniq_triage_duration_seconds",
    "Time to triage one reply, by backend (offline, openai_compatible) and whether it fell "
    "back to the offline rules (AI failure or the per-tenant AI rate limit).",
    ["backend", "fell_back"],
    buckets=(0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 20.0, 30.0),
)


REPLY_LATENCY_SECONDS = Histogram(
    "cerniq_reply_triage_latency_seconds",
    "Time from a reply stored (shown as being analysed) to its triage routed (the review "
    "item, the answer or the opt-out in place), by outcome (done, failed).",
    ["outcome"],
    buckets=(0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0, 900.0),
)


def observe_reply_latency(outcome: str, seconds: float) -> None:
    REPLY_LATENCY_SECONDS.labels(outcome).observe(max(seconds, 0.0))


def observe_triage(backend: str, fell_back: bool, seconds: float) -> None:
    TRIAGE_SECONDS.labels(backend, "true" if fell_back else "false").observe(seconds)


def collect() -> Iterator[Metric]:
    """Open review items and SLA breaches (open past their due time) by tenant and
    priority: one query."""
    from hitl.review import open_counts

    rows = list(open_counts(timezone.now(), "tenant__slug"))
    labels = ["tenant", "priority"]
    yield gauge(
        "cerniq_review_open_items",
        "Open (or assigned) review items by tenant and priority.",
        labels,
        (((row["tenant__slug"], row["priority"].lower()), row["open"]) for row in rows),
    )
    yield gauge(
        "cerniq_review_sla_breaches",
        "Open review items past their SLA due time, by tenant and priority.",
        labels,
        (((row["tenant__slug"], row["priority"].lower()), row["breached"]) for row in rows),
    )
