"""Escalate review items whose SLA has passed (hitl.review.check_sla).

Cron: * * * * *. Safe to run every minute: an escalated item gets a new due time, so it
is escalated again only when that one passes too.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from hitl import review


class Command(BaseCommand):
    help = "Escalate review items past their SLA and raise SLA_BREACH alerts."

    def handle(self, *args: Any, **opts: Any) -> None:
        count = review.check_sla()
        self.stdout.write(f"escalated {count} items")
