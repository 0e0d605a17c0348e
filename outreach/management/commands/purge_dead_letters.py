"""Discard dead letters older than the retention period, then raise or resolve each
tenant's DEAD_LETTERS alert (outreach.deadletters).

Cron: every 5 minutes (settings.PERIODIC_JOBS "purge-dead-letters"). Safe to repeat: a
run with nothing expired and no count crossing the threshold changes nothing.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from outreach.deadletters import check_alerts, purge


class Command(BaseCommand):
    help = "Discard expired dead letters (leads re-planned) and check the dead-letter alert."

    def handle(self, *args: Any, **opts: Any) -> None:
        purged = purge()
        alerted = check_alerts()
        self.stdout.write(
            f"discarded {purged.messages} expired dead letters and "
            f"{purged.events} failed webhook events; "
            f"{len(alerted)} tenant(s) above the alert threshold"
        )
