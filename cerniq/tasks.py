"""Platform actors."""

from __future__ import annotations

import dramatiq

from cerniq import heartbeats, notifications, webhook_alerts, webhooks

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


# --- Alerts -----------------------------------------------------------------------------


@dramatiq.actor(queue_name="alerts", max_retries=3, time_limit=300_000)
def notify_alert(alert_id: int) -> None:
    """Send what one alert owes, right after it opened (claimed, so safe to run twice)."""
    notifications.deliver_alert(alert_id)


@dramatiq.actor(queue_name="alerts", max_retries=0, time_limit=900_000)
def deliver_alert_notifications() -> None:
    """Every minute: every notice owed (openings, reminders, "resolved", retries)."""
    notifications.deliver_pending()


@dramatiq.actor(queue_name="alerts", max_retries=0, time_limit=60_000)
def check_webhook_health() -> None:
    """Every minute: resolve webhook-failure alerts that recovered; alert on a burst of
    rejected (unauthenticated) webhook requests."""
    webhook_alerts.check()


# --- Outgoing webhooks (cerniq.outbound) ----------------------------------------------


@dramatiq.actor(queue_name="webhooks.out", max_retries=0, time_limit=60_000)
def deliver_webhook(delivery_id: int) -> None:
    """Send one outbox row at once, after the event's commit (claimed, so safe to run twice;
    a failure is retried by the row's schedule, not by Dramatiq)."""
    from cerniq.outbound import delivery

    delivery.deliver(delivery_id)


@dramatiq.actor(queue_name="webhooks.out", max_retries=0, time_limit=600_000)
def purge_webhook_deliveries() -> None:
    """Hourly: delete deliveries done for longer than OUTBOUND_WEBHOOK_RETENTION_DAYS."""
    from cerniq.outbound import delivery

    delivery.purge()


@dramatiq.actor(queue_name="webhooks.out", max_retries=0, time_limit=600_000)
def deliver_due_webhooks() -> None:
    """Every minute: outbox rows due (retries, and rows whose message the broker lost)."""
    from cerniq.outbound import delivery

    delivery.deliver_due()
