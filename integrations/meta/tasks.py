"""Meta actors."""

from __future__ import annotations

import dramatiq

from integrations.meta import leadgen


@dramatiq.actor(queue_name="default", max_retries=3, time_limit=60_000)
def fetch_lead_ad(lead_ad_id: int) -> None:
    """A Lead Ads notification: fetch the lead and make it ours (leadgen.process). Provider
    faults follow the retry table: the run that must wait queues the next one."""
    done = leadgen.process(lead_ad_id)
    if done.retry_in_seconds is not None:
        fetch_lead_ad.send_with_options(args=(lead_ad_id,), delay=done.retry_in_seconds * 1000)


@dramatiq.actor(queue_name="default", max_retries=0, time_limit=300_000)
def fetch_waiting() -> None:
    """Every few minutes: notifications whose fetch was lost with its broker message."""
    for lead_ad_id in leadgen.waiting():
        fetch_lead_ad.send(lead_ad_id)
