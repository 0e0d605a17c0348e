"""Platform actors."""

from __future__ import annotations

import dramatiq
from django.core.cache import cache
from django.utils import timezone

HEARTBEAT_KEY = "cerniq:worker-heartbeat"


@dramatiq.actor(queue_name="default", max_retries=0, time_limit=10_000)
def record_heartbeat() -> None:
    """Prove a worker is consuming: /health reports the age of the last beat."""
    cache.set(HEARTBEAT_KEY, timezone.now().isoformat(), timeout=None)
