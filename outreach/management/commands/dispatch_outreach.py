"""Queue due outreach. Cron: */5 * * * *. Safe to overlap (rows are claimed)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from cerniq.models import Tenant
from outreach.dispatch import dispatch_due


class Command(BaseCommand):
    help = "Dispatch due leads of one or all tenants onto the send queues."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--tenant", help="tenant slug (default: all active tenants)")
        parser.add_argument("--batch-size", type=int, default=500)
        parser.add_argument("--dry-run", action="store_true", help="plan, write nothing")

    def handle(
        self, *args: Any, tenant: str | None, batch_size: int, dry_run: bool, **opts: Any
    ) -> None:
        if batch_size < 1:
            raise CommandError("--batch-size must be at least 1.")
        tenants = Tenant.objects.filter(is_active=True)
        if tenant:
            tenants = tenants.filter(slug=tenant)
            if not tenants.exists():
                raise CommandError(f"Unknown or inactive tenant {tenant!r}.")
        for each in tenants:
            result = dispatch_due(each, batch_size=batch_size, dry_run=dry_run)
            self.stdout.write(f"{each.slug}: {result.summary()}")
