"""Serve the whole product from one process: web, Dramatiq worker and scheduler."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandParser

from cerniq.embedded import EmbeddedRuntime


class Command(BaseCommand):
    help = (
        "Run the site with an in-process Dramatiq worker and the periodic scheduler "
        "(embedded mode). Production runs gunicorn, `rundramatiq` and `scheduler` instead."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("addrport", nargs="?", default="127.0.0.1:8000")
        parser.add_argument("--threads", type=int, default=4, help="worker threads")
        parser.add_argument("--no-scheduler", action="store_true")

    def handle(
        self, *args: Any, addrport: str, threads: int, no_scheduler: bool, **opts: Any
    ) -> None:
        if not settings.EMBEDDED:
            self.stderr.write(
                self.style.WARNING(
                    "REDIS_URL is set: messages go to Redis; this process also consumes them."
                )
            )
        runtime = EmbeddedRuntime(worker_threads=threads, with_scheduler=not no_scheduler)
        runtime.start()
        self.stdout.write(
            self.style.SUCCESS(f"Worker and scheduler running; serving http://{addrport}/")
        )
        try:
            # The autoreloader would fork a second worker, so it stays off.
            call_command("runserver", addrport, use_reloader=False, use_threading=True)
        finally:
            runtime.stop()
