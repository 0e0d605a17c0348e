"""Recompute the first human response to every reply (hitl.responses.rebuild): the backfill
after deploying response times, or a repair. Safe to run again: it gives the same rows."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from cerniq.models import Tenant
from hitl import responses


class Command(BaseCommand):
    help = "Recompute reply response times from messages and closed review items."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--tenant", type=int, help="only this tenant id")

    def handle(self, *args: Any, **opts: Any) -> None:
        tenants = Tenant.objects.order_by("pk")
        if opts.get("tenant"):
            tenants = tenants.filter(pk=opts["tenant"])
        for tenant in tenants:
            count = responses.rebuild(tenant)
            self.stdout.write(f"{tenant.pk}: {count} replies")
