"""TimelinesAI actors."""

from __future__ import annotations

import logging

import dramatiq

from integrations.timelinesai import status_sync

log = logging.getLogger(__name__)


@dramatiq.actor(queue_name="wa.status", max_retries=0, time_limit=600_000)
def sync_delivery_status() -> None:
    """Poll TimelinesAI for delivered/read of recent sends (cron: every 5 minutes)."""
    result = status_sync.sync_delivery_status()
    log.info("delivery status: %s", result)
