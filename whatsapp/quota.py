"""The durable WhatsApp new-contact quota: the QuotaUsage row is the truth, never a cache.

Every grant is a conditional UPDATE (`used < limit`) or happens under a row lock, so the
database's own check constraint (`used <= limit`) is never the thing that stops an overrun.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date, datetime
from zoneinfo import ZoneInfo

from django.db import transaction
from django.db.models import Case, F, PositiveIntegerField, Value, When
from django.db.models.functions import Greatest, Now
from django.utils import timezone

from cerniq.models import Tenant
from whatsapp.models import DEFAULT_DAILY_LIMIT, Phone, QuotaUsage


@dataclass(frozen=True)
class QuotaStatus:
    """A phone's usage on one day, as read from its QuotaUsage row."""

    used: int
    limit: int

    @property
    def remaining(self) -> int:
        """Slots still free; never negative even if a limit was lowered below usage."""
        return max(self.limit - self.used, 0)


def quota_day(tenant: Tenant, at: datetime | None = None) -> date:
    """The quota day: the calendar day in the tenant's time zone, not UTC's (the one
    definition; dispatch, manual sends, releases, the dashboard and the admin use it)."""
    moment = timezone.now() if at is None else at
    return timezone.localdate(moment, ZoneInfo(tenant.time_zone))


def reserve_new_contact(phone: Phone, day: date) -> bool:
    """Take one new-contact slot atomically; False when the phone's day is full."""
    if _take_one(phone.pk, day):
        return True
    # Full, or no row yet. Create a missing row, then retry: a concurrent caller may
    # have created it between our UPDATE and the check, so "exists" does not mean "full".
    if not QuotaUsage.objects.filter(phone_id=phone.pk, day=day).exists():
        _create_rows([(phone.pk, phone.tenant_id, phone.daily_limit)], day)
    return _take_one(phone.pk, day)


def reserve_many(
    wanted: Mapping[int, int], day: date, *, limits: Mapping[int, int]
) -> dict[int, int]:
    """Grant up to `wanted[phone_id]` slots per phone in a constant number of queries.

    Missing rows are inserted in phone order before any row is locked, then rows are
    locked in phone order, so concurrent callers cannot deadlock. Inside a caller's
    transaction (dispatch) the grant commits or rolls back with it, and the row locks are
    held until then, which serialises dispatchers per phone.
    """
    granted = dict.fromkeys(wanted, 0)
    asked = {phone_id: count for phone_id, count in wanted.items() if count > 0}
    if not asked:
        return granted
    _create_missing_rows(asked, day, limits)
    with transaction.atomic():
        rows = (
            QuotaUsage.objects.select_for_update()
            .filter(phone_id__in=asked, day=day)
            .order_by("phone_id")
            .values_list("phone_id", "used", "limit")
        )
        grants = {
            phone_id: min(asked[phone_id], max(limit - used, 0)) for phone_id, used, limit in rows
        }
        grants = {phone_id: count for phone_id, count in grants.items() if count > 0}
        if grants:
            _add_usage(grants, day)
    granted.update(grants)
    return granted


def release(phone: Phone | int, day: date, count: int = 1) -> None:
    """Give back slots of a send that did not happen (never below zero)."""
    if count < 0:
        raise ValueError(f"cannot release a negative count ({count})")
    if count == 0:
        return
    phone_id = phone if isinstance(phone, int) else phone.pk
    QuotaUsage.objects.filter(phone_id=phone_id, day=day, used__gt=0).update(
        used=Greatest(F("used") - Value(count), Value(0), output_field=PositiveIntegerField()),
        updated_at=Now(),
    )


def status(phone: Phone, day: date) -> QuotaStatus:
    """A phone's usage for a day; a day without a row has used nothing."""
    row = QuotaUsage.objects.filter(phone_id=phone.pk, day=day).values_list("used", "limit")
    used_limit = row.first()
    if used_limit is None:
        return QuotaStatus(used=0, limit=phone.daily_limit)
    return QuotaStatus(used=used_limit[0], limit=used_limit[1])


def status_many(
    phone_ids: Iterable[int], day: date, *, limits: Mapping[int, int]
) -> dict[int, QuotaStatus]:
    """Usage of many phones in one query (dashboards, dispatch planning)."""
    ids = list(phone_ids)
    found = {
        phone_id: QuotaStatus(used=used, limit=limit)
        for phone_id, used, limit in QuotaUsage.objects.filter(phone_id__in=ids, day=day)
        .order_by()
        .values_list("phone_id", "used", "limit")
    }
    return {
        phone_id: found.get(phone_id)
        or QuotaStatus(used=0, limit=limits.get(phone_id, DEFAULT_DAILY_LIMIT))
        for phone_id in ids
    }


def _take_one(phone_id: int, day: date) -> bool:
    """One conditional UPDATE: the database serialises concurrent takers on the row."""
    taken = QuotaUsage.objects.filter(phone_id=phone_id, day=day, used__lt=F("limit")).update(
        used=F("used") + 1, updated_at=Now()
    )
    return taken == 1


def _add_usage(grants: Mapping[int, int], day: date) -> None:
    """Add each phone's grant to its row in one UPDATE (rows are already locked)."""
    increment = Case(
        *(When(phone_id=phone_id, then=Value(count)) for phone_id, count in grants.items()),
        default=Value(0),
        output_field=PositiveIntegerField(),
    )
    QuotaUsage.objects.filter(phone_id__in=grants, day=day).update(
        used=F("used") + increment, updated_at=Now()
    )


def _create_missing_rows(asked: Mapping[int, int], day: date, limits: Mapping[int, int]) -> None:
    """Create the day's rows for phones that have none yet (two or three queries)."""
    existing = set(
        QuotaUsage.objects.filter(phone_id__in=asked, day=day)
        .order_by()
        .values_list("phone_id", flat=True)
    )
    missing = [phone_id for phone_id in asked if phone_id not in existing]
    if not missing:
        return
    phones = (
        Phone.objects.filter(pk__in=missing)
        .order_by()
        .values_list("pk", "tenant_id", "daily_limit")
    )
    _create_rows(
        [(pk, tenant_id, limits.get(pk, daily_limit)) for pk, tenant_id, daily_limit in phones],
        day,
    )


def _create_rows(rows: Iterable[tuple[int, int, int]], day: date) -> None:
    """Insert (phone_id, tenant_id, limit) rows; a row a concurrent caller made first wins.

    `ignore_conflicts` is the create race's IntegrityError handled by the database itself
    (ON CONFLICT DO NOTHING / INSERT OR IGNORE), with no savepoint and no exception.
    """
    QuotaUsage.objects.bulk_create(
        [
            QuotaUsage(tenant_id=tenant_id, phone_id=phone_id, day=day, used=0, limit=limit)
            for phone_id, tenant_id, limit in sorted(rows)
        ],
        ignore_conflicts=True,
    )
