"""A WhatsApp provider's lifetime contact allotment, and when it runs out at the current pace.

TimelinesAI allots a workspace 100,000 contacts for its whole life, counting each number ×
contact pair once its chat holds a message (settings.WHATSAPP_LIFETIME_CONTACTS). We count
the new contacts each number started (`Phone.total_new_contacts`, kept by the send path)
and the pace from the daily quota's rows (each new contact takes one), so the phones page
can say how much is left and roughly when it ends. An approximation on the safe side for
the pace, short of it for the total: a chat a stranger opens also counts at the provider.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date, timedelta

from django.conf import settings
from django.db.models import Sum

from cerniq.models import Tenant
from whatsapp.models import Phone, QuotaUsage

PACE_DAYS = 14  # the pace is the average new contacts a day over these last days


@dataclass(frozen=True)
class Allotment:
    provider: str
    limit: int
    used: int
    per_day: float  # new contacts a day, average of the last PACE_DAYS days (today included)
    runs_out_on: date | None  # at that pace; None without a pace or once used up

    @property
    def remaining(self) -> int:
        return max(0, self.limit - self.used)

    @property
    def percent(self) -> int:
        return min(100, round(100 * self.used / self.limit)) if self.limit else 100

    @property
    def pace(self) -> int:
        """New contacts a day, rounded, for people to read."""
        return round(self.per_day)

    @property
    def used_up(self) -> bool:
        return self.used >= self.limit


def allotments(tenant: Tenant, today: date) -> list[Allotment]:
    """One per provider with an allotment that the tenant has numbers on: three queries."""
    limits: dict[str, int] = settings.WHATSAPP_LIFETIME_CONTACTS
    phones = Phone.objects.filter(tenant=tenant, provider__in=list(limits)).order_by()
    used = dict(
        phones.values("provider").annotate(n=Sum("total_new_contacts")).values_list("provider", "n")
    )
    since = today - timedelta(days=PACE_DAYS - 1)
    recent = dict(
        QuotaUsage.objects.filter(
            tenant=tenant, phone__provider__in=list(used), day__gte=since, day__lte=today
        )
        .order_by()
        .values("phone__provider")
        .annotate(n=Sum("used"))
        .values_list("phone__provider", "n")
    )
    found = []
    for provider in sorted(used):
        limit, so_far = limits[provider], used[provider] or 0
        per_day = (recent.get(provider) or 0) / PACE_DAYS
        runs_out_on = None
        if per_day > 0 and so_far < limit:
            runs_out_on = today + timedelta(days=math.ceil((limit - so_far) / per_day))
        found.append(Allotment(provider, limit, so_far, per_day, runs_out_on))
    return found
