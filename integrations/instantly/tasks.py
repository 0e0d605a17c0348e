"""Instantly actors."""

from __future__ import annotations

import dramatiq

from integrations.instantly import analytics, config, interest, optouts


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


@dramatiq.actor(queue_name="default", max_retries=8, time_limit=60_000)
def withdraw_lead(instantly_lead_id: str) -> None:
    """A stopped sequence's pushed lead leaves Instantly if still unsent (optouts.py)."""
    optouts.withdraw_if_unsent(instantly_lead_id)
