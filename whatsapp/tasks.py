"""WhatsApp actors: thin wrappers over whatsapp.sending."""

from __future__ import annotations

import logging

import dramatiq

from outreach.delivery import enqueue_again
from whatsapp import sending, status_sync
from whatsapp.queues import all_phone_queues

log = logging.getLogger(__name__)


@dramatiq.actor(queue_name="wa.send", max_retries=3, time_limit=150_000)
def send_whatsapp_message(message_id: int) -> None:
    """Send one queued WhatsApp message (safe to run twice); re-enqueue when told to wait."""
    outcome = sending.send_queued_message(message_id)
    log.info("whatsapp message %s: %s %s", message_id, outcome.kind, outcome.detail)
    enqueue_again(message_id, outcome.retry_at)


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


# Workers consume only declared queues: declare every per-phone queue at start-up.
for _queue in all_phone_queues():
    send_whatsapp_message.broker.declare_queue(_queue)
