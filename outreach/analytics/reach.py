"""The dashboard's "leads outreach cannot move" figures, counted off the request path.

Counting the leads that cannot be contacted evaluates the readiness rules over every lead
of the tenant (outreach.readiness.contactable): hundreds of milliseconds at 50,000 leads,
too slow for a page polled every 15 seconds. The scheduler counts them once a minute
(`refresh_all`, job "reach-counts") and keeps the figures in the cache; the dashboard reads
them with the moment they were counted, which it shows. With nothing cached yet (a new
deploy, a cleared cache) the page counts them itself once and caches what it found.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.core.cache import cache
from django.utils import timezone

from cerniq.models import Tenant
from outreach import readiness, stalls
from outreach.models import Lead

# Long enough to outlive a missed scheduler run or two, short enough that a stopped
# scheduler shows as the page counting for itself rather than as old figures for ever.
KEEP_SECONDS = 5 * 60


@dataclass(frozen=True)
class Reach:
    stalled: int
    not_contactable: int
    counted_at: datetime


def tenant_key(tenant: Tenant) -> str:
    """A tenant's part of a cache key: its id, slug and creation moment, since a database
    rebuilt (tests, a restore) reuses ids while the cache may outlive it."""
    return f"{tenant.pk}:{tenant.slug}:{tenant.created_at.timestamp() if tenant.created_at else 0}"


def _key(tenant: Tenant) -> str:
    return f"dashboard-reach:{tenant_key(tenant)}"


def count(tenant: Tenant, now: datetime | None = None) -> Reach:
    """Count now (two aggregate queries) and keep the figures for the dashboard."""
    leads = Lead.objects.filter(tenant=tenant)
    found = Reach(
        stalled=stalls.stalled_leads(leads).count(),
        not_contactable=readiness.contactable(leads, False).count(),
        counted_at=now or timezone.now(),
    )
    cache.set(_key(tenant), found, KEEP_SECONDS)
    return found


def reach(tenant: Tenant) -> Reach:
    """The figures as last counted, or counted now when none are kept."""
    kept = cache.get(_key(tenant))
    return kept if isinstance(kept, Reach) else count(tenant)


def refresh_all() -> int:
    """The scheduler's job: count every tenant's figures; returns how many tenants."""
    tenants = list(Tenant.objects.all())
    for tenant in tenants:
        count(tenant)
    return len(tenants)
