"""Mailchimp actors: thin wrappers over sync.py and backfill.py. Provider faults follow the
retry table: the run that must wait queues the next one, with the failures so far."""

from __future__ import annotations

import dramatiq

from integrations.mailchimp import backfill as backfilling
from integrations.mailchimp import sync


@dramatiq.actor(queue_name="default", max_retries=0, time_limit=60_000)
def sync_lead(lead_id: int, failures: dict[str, int] | None = None) -> None:
    """A lead reached a chosen stage (or changed while in the audience): upsert its member."""
    done = sync.sync_lead(lead_id, failures)
    if done.retry_in is not None:
        delay = int(done.retry_in.total_seconds() * 1000)
        sync_lead.send_with_options(args=(lead_id, done.failures), delay=delay)


@dramatiq.actor(queue_name="default", max_retries=0, time_limit=900_000)
def backfill(tenant_id: int, failures: dict[str, int] | None = None) -> None:
    """Sync now (or the settings changed): every lead of the chosen stages, in batches."""
    done = backfilling.backfill(tenant_id, failures)
    if done.retry_in is not None:
        delay = int(done.retry_in.total_seconds() * 1000)
        backfill.send_with_options(args=(tenant_id, done.failures), delay=delay)
