"""Score every WhatsApp number and act on it (outreach.phone_health), and raise or resolve
each tenant's "quota nearly exhausted" alert (whatsapp.capacity).

Cron: */5 * * * *. Safe to run at any time and twice: it acts on state changes only.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from cerniq.models import Tenant
from outreach import phone_health
from whatsapp import capacity


class Command(BaseCommand):
    help = "Score WhatsApp numbers (throttle, pause, resume) and check the quota alert."

    def handle(self, *args: Any, **opts: Any) -> None:
        for tenant in Tenant.objects.filter(is_active=True).order_by("pk"):
            run = phone_health.check_tenant(tenant)
            today = capacity.check_quota_alert(tenant)
            self.stdout.write(f"{run.summary()}; quota {today.used}/{today.limit}")
