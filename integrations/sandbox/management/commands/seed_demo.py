"""Create the demo workspace: tenant, users, phones, sequences, companies; only what is
missing (outreach.seeding: what exists, leads above all, is never changed or enrolled);
then, once, its history (integrations.sandbox.demo_history). Here, not in outreach: the
history goes through the reply path (hitl), which outreach may not import."""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import translation

from integrations.sandbox.demo_history import HISTORY_DAYS, seed_history
from outreach.seeding import seed_demo


class Command(BaseCommand):
    help = "Create what is missing of the demo tenant (sandbox phones, generated companies)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--companies", type=int, default=300)
        parser.add_argument(
            "--history-days",
            type=int,
            default=HISTORY_DAYS,
            help="days of past activity to create once (0: none)",
        )
        parser.add_argument(
            "--allow-production",
            action="store_true",
            help="seed even when DEBUG is off (the demo users have well-known passwords)",
        )
        parser.add_argument(
            "--url",
            default="http://127.0.0.1:8000/",
            help="where the server answers, for the printed logins (make run: http://$ADDR/)",
        )

    def handle(
        self, *args: Any, companies: int, history_days: int, allow_production: bool, **opts: Any
    ) -> None:
        if not settings.DEBUG and not allow_production:
            raise CommandError(
                "Refusing to create demo users with known passwords while DEBUG is off; "
                "pass --allow-production if you really mean it."
            )
        if companies < 0:
            raise CommandError("--companies must be 0 or more.")
        if not 0 <= history_days <= 366:
            raise CommandError("--history-days must be between 0 and 366.")
        result = seed_demo(companies)
        made = ", ".join(f"{k} {v}" for k, v in result.created.items())
        self.stdout.write(f"Demo tenant '{result.tenant.slug}': created {made}.")
        self.stdout.write(f"Companies: {result.leads.summary()}.")
        with translation.override("en"):  # the command speaks English
            for row in result.leads.rejected:
                self.stderr.write(f"  line {row.line}: {row.text}")
        if history_days:
            # The history's alerts (hot replies, the banned phone) are weeks old: not news.
            alerts = logging.getLogger("cerniq.alerts")
            level = alerts.level
            alerts.setLevel(logging.ERROR)
            try:
                history = seed_history(result.tenant, days=history_days)
            finally:
                alerts.setLevel(level)
            self.stdout.write(f"History: {history.summary()}.")
        self.stdout.write(self.style.SUCCESS(f"Demo logins ({opts['url']}):"))
        for username, password, what in result.credentials:
            self.stdout.write(f"  {username:<9} / {password:<16} ({what})")
