"""Periodic jobs (settings.PERIODIC_JOBS) run by APScheduler.

Embedded mode runs them in-process from `manage.py run`; production runs `manage.py
scheduler` once (or system cron calling the same commands). A job either enqueues an
actor (cheap, the work happens on a worker) or calls a management command.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from apscheduler.schedulers.base import BaseScheduler
from apscheduler.triggers.cron import CronTrigger
from django.conf import settings
from django.core.management import call_command
from django.db import close_old_connections
from django.utils.module_loading import import_string

log = logging.getLogger(__name__)


def job_callable(job: dict[str, str]) -> Callable[[], None]:
    """Turn one PERIODIC_JOBS entry into a function the scheduler can call."""
    if "actor" in job:
        actor = import_string(job["actor"])

        def enqueue() -> None:
            actor.send()

        return enqueue
    if "command" in job:
        args = job.get("args", "").split()

        def run_command() -> None:
            close_old_connections()
            try:
                call_command(job["command"], *args)
            finally:
                close_old_connections()

        return run_command
    raise ValueError(f"Periodic job {job.get('name')!r} needs an 'actor' or a 'command'.")


def add_jobs(scheduler: BaseScheduler, jobs: list[dict[str, Any]] | None = None) -> list[str]:
    """Register every periodic job; overlapping runs of one job are skipped, not stacked."""
    names = []
    for job in settings.PERIODIC_JOBS if jobs is None else jobs:
        scheduler.add_job(
            job_callable(job),
            CronTrigger.from_crontab(job["cron"], timezone=settings.TIME_ZONE),
            id=job["name"],
            name=job["name"],
            max_instances=1,
            coalesce=True,
            misfire_grace_time=60,
            replace_existing=True,
        )
        names.append(job["name"])
    log.info("scheduler: %d periodic jobs: %s", len(names), ", ".join(names))
    return names
