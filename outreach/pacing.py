"""Pacing: one send in flight per phone, and a randomised gap between two of its sends.

The phone row is the lock, so the guarantee holds across worker threads, processes and
hosts: a sender claims the phone with a conditional UPDATE that only succeeds when no send
holds it (`busy_until`, a lease long enough to cover the provider call) and the gap after
the previous send has passed (`next_send_at`). When the send ends the lease is dropped
and `next_send_at` becomes end + gap. Nobody sleeps: a sender that finds the phone busy
re-enqueues its message for when the phone should be free.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from django.db.models import F, Q
from django.utils import timezone

from cerniq.models import Tenant
from whatsapp.models import Phone

# Longer than the provider call can take (read timeout 30 s + reconcile), so a crashed
# sender's claim expires on its own.
SEND_LEASE = timedelta(seconds=120)
IN_FLIGHT_POLL = timedelta(seconds=1)


def gap_for(tenant: Tenant, rng: random.Random | None = None) -> timedelta:
    """The pause after a send: min + random(0..jitter) seconds, from the tenant's bounds."""
    jitter = (rng or random).uniform(0, tenant.pacing_jitter_seconds)  # noqa: S311 - not crypto
    return timedelta(seconds=tenant.pacing_min_seconds + jitter)


def average_gap(tenant: Tenant) -> timedelta:
    return timedelta(seconds=tenant.pacing_min_seconds + tenant.pacing_jitter_seconds / 2)


def claim_phone(phone_id: int, now: datetime | None = None) -> datetime | None:
    """Take the phone's single send slot. None when taken; else when to try again."""
    now = now or timezone.now()
    taken = (
        Phone.objects.filter(pk=phone_id)
        .filter(Q(busy_until__isnull=True) | Q(busy_until__lte=now))
        .filter(Q(next_send_at__isnull=True) | Q(next_send_at__lte=now))
        .update(busy_until=now + SEND_LEASE)
    )
    if taken:
        return None
    busy_until, next_send_at = Phone.objects.filter(pk=phone_id).values_list(
        "busy_until", "next_send_at"
    ).first() or (None, None)
    if busy_until and busy_until > now:
        # A send is in flight; it usually ends within seconds, then its gap starts.
        return now + IN_FLIGHT_POLL + timedelta(seconds=random.uniform(0, 1))  # noqa: S311
    return max(next_send_at or now, now)


def finish_send(phone_id: int, tenant: Tenant, *, sent: bool, new_contact: bool) -> datetime:
    """Release the phone after a provider call; the next send waits a fresh gap."""
    finished = timezone.now()
    changes: dict[str, object] = {"busy_until": None, "next_send_at": finished + gap_for(tenant)}
    if sent:
        changes |= {"last_sent_at": finished, "total_sent": F("total_sent") + 1}
        if new_contact:
            changes["total_new_contacts"] = F("total_new_contacts") + 1
    Phone.objects.filter(pk=phone_id).update(**changes)
    return finished


def release_unused(phone_id: int) -> None:
    """Give the slot back without a gap: the claim ended before any provider call."""
    Phone.objects.filter(pk=phone_id).update(busy_until=None)


def plan_slots(start: datetime, count: int, tenant: Tenant) -> list[datetime]:
    """Expected send times of `count` messages queued on one phone from `start`.

    Used to enqueue with a delay so messages do not wake up only to find their phone
    busy; the claim above is what actually guarantees the spacing.
    """
    step = average_gap(tenant)
    return [start + step * i for i in range(count)]
