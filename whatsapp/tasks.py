"""WhatsApp actors (sending itself is outreach.tasks.run_phone, on the phone's queue)."""

from __future__ import annotations

import logging

import dramatiq

from whatsapp import status_sync

log = logging.getLogger(__name__)


@dramatiq.actor(queue_name="wa.status", max_retries=0, time_limit=600_000)
def sync_delivery_status() -> None:
    """Poll TimelinesAI for delivered/read of recent sends (cron: every 5 minutes)."""
    moved = status_sync.sync_delivery_status()
    log.info("delivery status: %s messages advanced", moved)


@dramatiq.actor(queue_name="default", max_retries=3, time_limit=30_000)
def post_sandbox_reply(account_phone: str, to: str, chat_id: str) -> None:
    """Demo only: a sandbox lead answers through the real webhook endpoint."""
    from whatsapp.demo_replies import post_reply

    post_reply(account_phone, to, chat_id)
