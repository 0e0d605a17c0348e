"""The durable WhatsApp new-contact quota: the QuotaUsage row is the truth, never a cache.

Every grant is a conditional UPDATE (`used < limit`) or happens under a row lock, so the
database's own check constraint (`used <= limit`) is never the thing that stops an overrun.

A day's limit is decided here only (`day_limits`): the phone's daily limit, lowered by its
warm-up ramp (whatsapp.warmup) and by the health guard's throttle (outreach.phone_health).
A day's row is created with it; when the warm-up or the throttle changes during the day,
`follow_limits` moves the row's limit too (never below what was already used). An operator
editing `daily_limit` changes the days to come, not the one already started (unless the
warm-up or the throttle moves that day's row later).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db import transaction
from django.db.models import Case, F, PositiveIntegerField, Value, When
from django.db.models.functions import Greatest, Now
from django.utils import timezone

from cerniq.models import Tenant
from whatsapp import warmup
from whatsapp.models import Phone, QuotaUsage


@dataclass(frozen=True)
class DayLimit:
    """A phone's new-contact limit for one day, and what set it (for the phone card)."""

    limit: int
    daily_limit: int
    warmup_day: int | None = None  # day N of its warm-up ramp; None when not warming up
    warmup_days: int | None = None  # the day the ramp reaches full volume
    warmup_limit: int | None = None
    throttled: bool = False


@dataclass(frozen=True)
class QuotaStatus:
    """A phone's usage on one day, as read from its QuotaUsage row."""

    used: int
    limit: int
    # Why the limit is what it is now (a row keeps the limit it was given or moved to).
    why: DayLimit | None = field(default=None, compare=False)

    @property
    def remaining(self) -> int:
        """Slots still free; never negative even if a limit was lowered below usage."""
        return max(self.limit - self.used, 0)


def cost(new_contact: bool, *, asked: bool = False) -> int:
    """What a message costs of its phone's new-contact quota (`Message.quota_cost`): one
    slot for a chat we start unasked, none for a follow-up in an existing chat or a first
    message the person asked for (a form's "contact me"). The quota limits unsolicited
    contacts; WhatsApp's own messaging limits still count every new chat at the provider."""
    return 1 if new_contact and not asked else 0


def quota_day(tenant: Tenant, at: datetime | None = None) -> date:
    """The quota day: the calendar day in the tenant's time zone, not UTC's (the one
    definition; dispatch, manual sends, releases, the dashboard and the admin use it)."""
    return _local_day(tenant.time_zone, at)


def _local_day(time_zone: str, at: datetime | None = None) -> date:
    moment = timezone.now() if at is None else at
    return timezone.localdate(moment, ZoneInfo(time_zone))


def throttled(limit: int) -> int:
    """A throttled phone's share of its limit (settings.PHONE_HEALTH_THROTTLE_SHARE)."""
    return max(1, math.floor(limit * settings.PHONE_HEALTH_THROTTLE_SHARE))


def day_limits(phones: Iterable[Phone], day: date) -> dict[int, DayLimit]:
    """Each phone's limit for `day`: the smallest of its daily limit, its warm-up ramp's
    limit for the day and, while the health guard throttles it, a share of those; none
    while a restriction sign rests it (outreach.restriction_signs).

    One query (the tenants' time zones and ramps) when a phone is warming up, else none.
    """
    phones = list(phones)
    horizon = timezone.now() - timedelta(days=warmup.MAX_DAYS + 1)
    warming = {p.pk for p in phones if p.warmup_started_at and p.warmup_started_at > horizon}
    tenants: dict[int, tuple[str, warmup.Ramp]] = {}
    if warming:
        tenants = {
            pk: (time_zone, warmup.stored_ramp(steps))
            for pk, time_zone, steps in Tenant.objects.filter(
                pk__in={p.tenant_id for p in phones if p.pk in warming}
            ).values_list("pk", "time_zone", "warmup_plan__steps")
        }
    return {phone.pk: _day_limit(phone, day, tenants.get(phone.tenant_id)) for phone in phones}


def _day_limit(phone: Phone, day: date, tenant: tuple[str, warmup.Ramp] | None) -> DayLimit:
    limit = phone.daily_limit
    ramp_day = ramp_limit = ramp_days = None
    if tenant is not None and phone.warmup_started_at:
        time_zone, ramp = tenant
        started = _local_day(time_zone, phone.warmup_started_at)
        ramp_limit = ramp.limit_on(warmup.day_number(started, day))
        if ramp_limit is not None:  # still ramping up on that day
            ramp_day, ramp_days = warmup.day_number(started, day), ramp.days
            limit = min(limit, ramp_limit)
    slowed = phone.health != Phone.Health.OK
    if slowed:
        limit = throttled(limit)
    if phone.new_contacts_paused:  # a restriction sign: no new chat until it has rested
        limit = 0
    return DayLimit(limit, phone.daily_limit, ramp_day, ramp_days, ramp_limit, slowed)


def follow_limits(phones: Iterable[Phone], day: date) -> int:
    """Move the day's existing rows of `phones` to their limits now (a throttle set or
    lifted, a ramp started or changed), in one UPDATE. A lowered limit stops at what was
    already used (`used <= limit` holds; the phone is simply full); rows being granted
    from are locked by their grant, so this waits for it. Returns the rows updated."""
    limits = {pk: day_limit.limit for pk, day_limit in day_limits(phones, day).items()}
    if not limits:
        return 0
    new_limit = Case(
        *(When(phone_id=pk, then=Value(limit)) for pk, limit in limits.items()),
        output_field=PositiveIntegerField(),
    )
    return QuotaUsage.objects.filter(phone_id__in=limits, day=day).update(
        limit=Greatest(F("used"), new_limit, output_field=PositiveIntegerField()),
        updated_at=Now(),
    )


def change_ramp(tenant: Tenant, ramp: warmup.Ramp) -> None:
    """The tenant's new warm-up plan, applied to today's rows of its warming phones."""
    with transaction.atomic():
        warmup.save_ramp(tenant.pk, ramp)
        warming = Phone.objects.filter(tenant=tenant, warmup_started_at__isnull=False)
        follow_limits(warming, quota_day(tenant))


def reserve_new_contact(phone: Phone, day: date) -> bool:
    """Take one new-contact slot atomically; False when the phone's day is full."""
    if _take_one(phone.pk, day):
        return True
    # Full, or no row yet. Create a missing row, then retry: a concurrent caller may
    # have created it between our UPDATE and the check, so "exists" does not mean "full".
    if not QuotaUsage.objects.filter(phone_id=phone.pk, day=day).exists():
        _create_rows([(phone.pk, phone.tenant_id, day_limits([phone], day)[phone.pk].limit)], day)
    return _take_one(phone.pk, day)


def reserve_many(wanted: Mapping[int, int], day: date) -> dict[int, int]:
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
    _create_missing_rows(asked, day)
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
    return status_many([phone], day)[phone.pk]


def status_many(phones: Iterable[Phone], day: date) -> dict[int, QuotaStatus]:
    """Usage of many phones (dashboards, dispatch planning, the phone card): one query,
    plus one when a phone is warming up. A day without a row has used nothing of the
    limit `day_limits` gives it."""
    phones = list(phones)
    why = day_limits(phones, day)
    rows = QuotaUsage.objects.filter(phone_id__in=[p.pk for p in phones], day=day).order_by()
    found = {pk: (used, limit) for pk, used, limit in rows.values_list("phone_id", "used", "limit")}
    return {
        p.pk: QuotaStatus(*found.get(p.pk, (0, why[p.pk].limit)), why=why[p.pk]) for p in phones
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


def _create_missing_rows(asked: Mapping[int, int], day: date) -> None:
    """Create the day's rows for phones that have none yet (two to four queries)."""
    existing = set(
        QuotaUsage.objects.filter(phone_id__in=asked, day=day)
        .order_by()
        .values_list("phone_id", flat=True)
    )
    missing = [phone_id for phone_id in asked if phone_id not in existing]
    if not missing:
        return
    phones = list(Phone.objects.filter(pk__in=missing).order_by())
    limits = day_limits(phones, day)
    _create_rows([(p.pk, p.tenant_id, limits[p.pk].limit) for p in phones], day)


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
