"""Fill DailyStats / TemplateDailyStats from the messages (outreach.analytics.rollup_day).

Cron: */15 * * * * (settings.PERIODIC_JOBS "rollup-stats"). Without options it recomputes
yesterday and today (each tenant's local days) for every active tenant; safe to repeat,
since each run replaces the rows of the days it covers.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db.models import Q
from django.utils import timezone

from cerniq.models import Tenant
from outreach.analytics import MAX_RANGE_DAYS, local_today, rollup_range


def parse_day(value: str, option: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise CommandError(f"{option}: {value!r} is not a date (YYYY-MM-DD).") from None


class Command(BaseCommand):
    help = "Recompute the daily statistics (default: yesterday and today, every tenant)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--date", help="one day, YYYY-MM-DD")
        parser.add_argument("--from", dest="from_", help="first day, YYYY-MM-DD")
        parser.add_argument("--to", help="last day, YYYY-MM-DD (default: the tenant's today)")
        parser.add_argument("--tenant", help="tenant slug or id (default: all active tenants)")

    def handle(
        self,
        *args: Any,
        date: str | None,
        from_: str | None,
        to: str | None,
        tenant: str | None,
        **opts: Any,
    ) -> None:
        if date and (from_ or to):
            raise CommandError("Use either --date or --from/--to, not both.")
        if to and not from_:
            raise CommandError("--to needs --from.")
        day = parse_day(date, "--date") if date else None
        first = parse_day(from_, "--from") if from_ else None
        last = parse_day(to, "--to") if to else None
        if first and last and last < first:
            raise CommandError(f"--to {last} is before --from {first}.")

        tenants = Tenant.objects.filter(is_active=True).order_by("slug")
        if tenant:
            lookup = Q(slug=tenant) | Q(pk=int(tenant)) if tenant.isdigit() else Q(slug=tenant)
            tenants = tenants.filter(lookup)
            if not tenants.exists():
                raise CommandError(f"Unknown or inactive tenant {tenant!r}.")

        now = timezone.now()
        total = 0
        for each in tenants:
            today = local_today(each, now)
            if day:
                start = end = day
            elif first:
                start, end = first, last or today
                if end < start:
                    raise CommandError(f"--from {start} is after {each.slug}'s today ({end}).")
                if (end - start).days + 1 > MAX_RANGE_DAYS:
                    raise CommandError(f"At most {MAX_RANGE_DAYS} days per run.")
            else:
                start, end = today - timedelta(days=1), today
            for counts in rollup_range(each, start, end):
                self.stdout.write(f"{each.slug} {counts}")
                total += 1
        self.stdout.write(f"rolled up {total} tenant-days")
