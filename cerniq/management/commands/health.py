"""Readiness from the command line: the checks of /health/ready, exit 1 when one fails.

docker-compose.yml's healthchecks use it for the processes that serve no HTTP: the worker
(`health workers`: every queue group consumed recently) and the scheduler
(`health scheduler`: its own heartbeat).
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from cerniq import health


class Command(BaseCommand):
    help = "Check the database, the broker, the workers' and the scheduler's heartbeats."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "checks",
            nargs="*",
            metavar="CHECK",
            help=f"only these checks ({', '.join(health.CHECKS)}); all by default",
        )

    def handle(self, *args: Any, checks: list[str], **opts: Any) -> None:
        try:
            report = health.readiness(checks or None)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(json.dumps(report, indent=2, sort_keys=True))
        failing = sorted(name for name, state in report.items() if state["status"] != health.OK)
        if failing:
            raise CommandError(f"not ready: {', '.join(failing)}")
