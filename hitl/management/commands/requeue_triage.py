"""Enqueue replies still waiting for their triage whose broker message was lost
(hitl.triage_jobs.requeue_stale): a crash between the reply's commit and its enqueue, a
flushed broker, a worker killed past its retries.

Cron: * * * * *. Safe to overlap a live run: a reply is routed once whatever the number of
its broker messages.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from hitl import triage_jobs


class Command(BaseCommand):
    help = "Re-enqueue the triage of replies still being analysed long after they arrived."

    def add_arguments(self, parser: CommandParser) -> None:
        default = int(triage_jobs.STALE_AFTER.total_seconds() // 60)
        parser.add_argument(
            "--minutes", type=int, default=default, help="waiting for more than this"
        )

    def handle(self, *args: Any, minutes: int, **opts: Any) -> None:
        count = triage_jobs.requeue_stale(timedelta(minutes=minutes))
        self.stdout.write(f"re-enqueued the triage of {count} replies")
