"""Instantly actors."""

from __future__ import annotations

import dramatiq

from integrations.instantly import analytics, config, interest, withdrawal
from outreach.models import Channel, Message


@dramatiq.actor(queue_name="default", max_retries=5, time_limit=60_000)
def push_interest(journey_id: int, interest_value: int) -> None:
    """Our stage change, told to Instantly (interest.set_interest); retried on errors."""
    interest.set_interest(journey_id, interest_value)


@dramatiq.actor(queue_name="default", max_retries=0, time_limit=600_000)
def sync_analytics() -> None:
    """Hourly: campaign analytics into the daily statistics (analytics.sync_all)."""
    analytics.sync_all()


@dramatiq.actor(queue_name="default", max_retries=8, time_limit=60_000)
def forget_lead(instantly_lead_id: str) -> None:
    """A lead who opted out is deleted from Instantly (optouts.py); retried on errors."""
    config.client().delete_lead(instantly_lead_id)


@dramatiq.actor(queue_name="default", max_retries=3, time_limit=60_000)
def withdraw_push(message_id: int, failures: dict[str, int] | None = None) -> None:
    """Automation stopped for the lead of this pushed cold email: Instantly lets go of it
    if unsent (withdrawal.py). Provider faults follow the retry table: the run that must
    wait queues the next one, with the failures so far."""
    done = withdrawal.withdraw(message_id, failures)
    if done.retry_in is not None:
        delay = int(done.retry_in.total_seconds() * 1000)
        withdraw_push.send_with_options(args=(message_id, done.failures), delay=delay)


@dramatiq.actor(queue_name="default", max_retries=3, time_limit=60_000)
def withdraw_lead(instantly_lead_id: str) -> None:
    """What versions before `withdraw_push` queued (by Instantly's lead id): the same
    withdrawal, found by our row, so messages still in the broker are not lost."""
    for message_id in Message.objects.filter(
        channel=Channel.EMAIL_COLD, provider_message_id=instantly_lead_id
    ).values_list("pk", flat=True):
        withdraw_push.send(message_id)
