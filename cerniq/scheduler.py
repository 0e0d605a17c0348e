"""Periodic jobs (settings.PERIODIC_JOBS) run by APScheduler.

Embedded mode runs them in-process from `manage.py run`; production runs `manage.py
scheduler` once (or system cron calling the same commands). A job either enqueues an
actor (cheap, the work happens on a worker), calls a management command, or calls a
function in the scheduler's own process ("call": for work that must not depend on a worker,
such as the heartbeats that prove the workers run). "at_start": the job also runs once as
soon as the scheduler starts.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime
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
    if "call" in job:
        function = import_string(job["call"])

        def run_function() -> None:
            close_old_connections()
            try:
                function()
            finally:
                close_old_connections()

        return run_function
    raise ValueError(f"Periodic job {job.get('name')!r} needs an 'actor', a 'command' or a 'call'.")


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
            **({"next_run_time": datetime.now(scheduler.timezone)} if job.get("at_start") else {}),
        )
        names.append(job["name"])
    log.info("scheduler: %d periodic jobs: %s", len(names), ", ".join(names))
    return names
