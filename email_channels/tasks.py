"""Email actors: thin wrappers over email_channels.sending."""

from __future__ import annotations

import logging

import dramatiq

from email_channels import sending
from outreach.delivery import EMAIL_QUEUES, enqueue_again

log = logging.getLogger(__name__)


@dramatiq.actor(queue_name="email.cold", max_retries=3, time_limit=60_000)
def send_email_message(message_id: int) -> None:
    """Send one queued email; re-enqueue when told to wait."""
    outcome = sending.send_queued_email(message_id)
    log.info("email message %s: %s %s", message_id, outcome.kind, outcome.detail)
    enqueue_again(message_id, outcome.retry_at)


for _queue in EMAIL_QUEUES.values():
    send_email_message.broker.declare_queue(_queue)
