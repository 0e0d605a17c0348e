"""Platform actors."""

from __future__ import annotations

import dramatiq
from django.core.cache import cache
from django.utils import timezone

from cerniq import webhooks

HEARTBEAT_KEY = "cerniq:worker-heartbeat"


@dramatiq.actor(queue_name="default", max_retries=0, time_limit=10_000)
def record_heartbeat() -> None:
    """Prove a worker is consuming: /health reports the age of the last beat."""
    cache.set(HEARTBEAT_KEY, timezone.now().isoformat(), timeout=None)


@dramatiq.actor(queue_name="webhooks", max_retries=5, time_limit=120_000)
def process_webhook_event(event_id: int) -> None:
    """Process one stored webhook event (claimed, so safe to run twice); raises to retry."""
    webhooks.process_event(event_id)
