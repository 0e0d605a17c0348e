"""Outreach actors: dispatch runs on a worker when the scheduler asks for it."""

from __future__ import annotations

import logging

import dramatiq

from cerniq.models import Tenant
from outreach.dispatch import dispatch_due

log = logging.getLogger(__name__)


@dramatiq.actor(queue_name="outreach.dispatch", max_retries=0, time_limit=600_000)
def dispatch_all_tenants(batch_size: int = 500) -> None:
    """Queue due outreach for every active tenant (cron: every 5 minutes)."""
    for tenant in Tenant.objects.filter(is_active=True):
        result = dispatch_due(tenant, batch_size=batch_size)
        log.info("dispatch %s", result.summary())


@dramatiq.actor(queue_name="outreach.imports", max_retries=0, time_limit=1_800_000)
def run_import_job(job_id: int) -> None:
    """Import a CSV uploaded on the leads page (progress is kept on the job row)."""
    from outreach.import_jobs import run_import

    run_import(job_id)
