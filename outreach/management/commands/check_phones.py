"""Score every WhatsApp number and act on it (outreach.phone_health), rest the new chats of
a number showing a restriction sign and end the rests that are over
(outreach.restriction_signs), and raise or resolve each tenant's "quota nearly exhausted"
alert (whatsapp.capacity).

Cron: */5 * * * *. Safe to run at any time and twice: it acts on state changes only.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from cerniq.models import Tenant
from outreach import phone_health, restriction_signs
from whatsapp import capacity


class Command(BaseCommand):
    help = "Score WhatsApp numbers (throttle, pause, resume) and check the quota alert."

    def handle(self, *args: Any, **opts: Any) -> None:
        for tenant in Tenant.objects.filter(is_active=True).order_by("pk"):
            run = phone_health.check_tenant(tenant)
            signs = restriction_signs.check_tenant(tenant)
            today = capacity.check_quota_alert(tenant)
            self.stdout.write(
                f"{run.summary()}; new chats rested {len(signs.paused)}, "
                f"resumed {len(signs.resumed)}; quota {today.used}/{today.limit}"
            )
