"""Run the periodic jobs (settings.PERIODIC_JOBS) in the foreground, for production."""

from __future__ import annotations

from typing import Any

from apscheduler.schedulers.blocking import BlockingScheduler
from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from cerniq.scheduler import add_jobs


class Command(BaseCommand):
    help = "Run periodic jobs until stopped (one instance per deployment)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--list", action="store_true", dest="show_list", help="print the jobs and exit"
        )

    def handle(self, *args: Any, show_list: bool, **opts: Any) -> None:
        if show_list:
            for job in settings.PERIODIC_JOBS:
                target = (
                    job.get("actor")
                    or (job.get("call") and f"{job['call']}()")
                    or f"manage.py {job.get('command')} {job.get('args', '')}"
                )
                self.stdout.write(f"{job['cron']:<15} {job['name']:<24} {target.strip()}")
            return
        scheduler = BlockingScheduler(timezone=settings.TIME_ZONE)
        add_jobs(scheduler)
        self.stdout.write(f"Scheduler running {len(settings.PERIODIC_JOBS)} jobs; Ctrl-C stops.")
        try:
            scheduler.start()
        except (KeyboardInterrupt, SystemExit):
            scheduler.shutdown(wait=False)
