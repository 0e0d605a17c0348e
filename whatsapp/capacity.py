"""A tenant's WhatsApp capacity for new contacts today, and the "quota nearly exhausted"
alert (seed worker 43, `monitor:quota:usage`).

The alert (QUOTA_EXHAUSTED) is open while the tenant's usable numbers have used at least
settings.QUOTA_ALERT_SHARE (90 %) of today's new contacts: leads will wait for tomorrow
unless a number is added or resumed. It resolves when capacity frees (a number comes back,
a limit grows) and, at the latest, on the next day's first check, when usage starts at 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.conf import settings

from cerniq import reasons
from cerniq.alerts import raise_alert, resolve_alerts
from cerniq.models import Alert, Tenant
from whatsapp import quota
from whatsapp.models import Phone
from whatsapp.reasons import ALERT_QUOTA

SUBJECT = "quota:whatsapp"


@dataclass(frozen=True)
class Capacity:
    phones: int
    used: int
    limit: int

    @property
    def share(self) -> float:
        return self.used / self.limit if self.limit else 0.0


def capacity(tenant: Tenant, at: datetime | None = None) -> Capacity:
    """New contacts used and allowed today on the tenant's usable numbers (two queries,
    three when one is warming up)."""
    usable = list(Phone.objects.usable().filter(tenant=tenant))
    statuses = quota.status_many(usable, quota.quota_day(tenant, at)).values()
    return Capacity(
        phones=len(usable),
        used=sum(s.used for s in statuses),
        limit=sum(s.limit for s in statuses),
    )


def check_quota_alert(tenant: Tenant, at: datetime | None = None) -> Capacity:
    """Raise the tenant's QUOTA_EXHAUSTED alert when usage crosses the threshold (once: an
    open alert is not counted again every check), resolve it when it falls below."""
    today = capacity(tenant, at)
    if today.limit and today.share >= settings.QUOTA_ALERT_SHARE:
        already = Alert.objects.filter(
            tenant=tenant, kind=Alert.Kind.QUOTA_EXHAUSTED, subject=SUBJECT, resolved_at=None
        ).exists()
        if not already:
            raise_alert(
                tenant,
                Alert.Kind.QUOTA_EXHAUSTED,
                SUBJECT,
                reasons.code(
                    ALERT_QUOTA,
                    used=today.used,
                    limit=today.limit,
                    percent=round(100 * today.share),
                    phones=today.phones,
                ),
            )
    else:
        resolve_alerts(tenant, Alert.Kind.QUOTA_EXHAUSTED, SUBJECT)
    return today
