"""Platform actors."""

from __future__ import annotations

import dramatiq

from cerniq import heartbeats, webhooks

RETRY_DELAY_MS = 15_000  # a failed event of a batch: its first retry, as Retries would wait


@dramatiq.actor(queue_name="default", max_retries=0, time_limit=10_000)
def record_heartbeat(queue: str = "default") -> None:
    """Prove a worker consumes `queue`: the scheduler sends this onto every queue
    (cerniq.heartbeats.beat); /health/ready reports each queue group's last beat."""
    heartbeats.record(queue)


@dramatiq.actor(queue_name="webhooks", max_retries=5, time_limit=120_000)
def process_webhook_event(event_id: int) -> None:
    """Process one stored webhook event (claimed, so safe to run twice); raises to retry."""
    webhooks.process_event(event_id)


@dramatiq.actor(queue_name="webhooks", max_retries=0, time_limit=600_000)
def process_webhook_events(event_ids: list[int]) -> None:
    """Process a batch handed over by the intake (cerniq.relay), in order. An event that
    fails, and every event after an interruption (time limit, shutdown), goes on to
    `process_webhook_event` on its own, which retries it with back-off."""
    for done, event_id in enumerate(event_ids):
        try:
            webhooks.process_event(event_id)
        except Exception:
            process_webhook_event.send_with_options(args=(event_id,), delay=RETRY_DELAY_MS)
        except BaseException:
            for left in event_ids[done:]:
                process_webhook_event.send_with_options(args=(left,), delay=RETRY_DELAY_MS)
            raise
