"""The durable new-contact quota: exact under concurrency, per local day, cache-independent."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from datetime import UTC, date, datetime
from typing import TypeVar

import pytest
from django.conf import settings
from django.core.cache import cache
from django.db import OperationalError, connection, transaction

from tests.factories import make_phone, make_tenant
from whatsapp.models import Phone, QuotaUsage
from whatsapp.quota import (
    QuotaStatus,
    quota_day,
    release,
    reserve_many,
    reserve_new_contact,
    status,
    status_many,
)

DAY = date(2026, 3, 4)
T = TypeVar("T")


@pytest.fixture
def phone(tenant) -> Phone:
    return make_phone(tenant, daily_limit=5)


def run_in_threads(count: int, work: Callable[[int], None]) -> None:
    """Start `count` threads together; each closes its own DB connection when done."""
    barrier = threading.Barrier(count)
    errors: list[BaseException] = []

    def runner(index: int) -> None:
        try:
            barrier.wait()
            work(index)
        except BaseException as exc:  # surfaced in the main thread below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=runner, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors


def retry_shared_cache_lock(call: Callable[[], T], *, give_up_after: float = 60.0) -> T:
    """Retry only what SQLite's in-memory test database refuses without running it.

    pytest-django's SQLite test database is in-memory in shared-cache mode, where a
    conflicting statement fails at once with "database table is locked" (SQLITE_LOCKED;
    the busy timeout does not apply). Nothing was written, so a retry is safe. PostgreSQL
    and file-backed SQLite (the real deployments) wait on locks and never get here.
    """
    deadline = time.monotonic() + give_up_after
    pause = 0.001
    while True:
        try:
            return call()
        except OperationalError as exc:
            if "database table is locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(random.uniform(0, pause))
            pause = min(pause * 2, 0.05)  # back off so the lock holder gets to finish


# --- single reservations ----------------------------------------------------------------


def test_reserve_until_full(phone: Phone) -> None:
    results = [reserve_new_contact(phone, DAY) for _ in range(8)]
    assert results == [True] * 5 + [False] * 3
    row = QuotaUsage.objects.get(phone=phone, day=DAY)
    assert (row.used, row.limit, row.tenant_id) == (5, 5, phone.tenant_id)


def test_row_limit_is_fixed_for_the_day(phone: Phone) -> None:
    """Lowering a phone's limit mid-day does not shrink the day already started."""
    assert reserve_new_contact(phone, DAY)
    Phone.objects.filter(pk=phone.pk).update(daily_limit=1)
    phone.refresh_from_db()
    assert reserve_new_contact(phone, DAY)
    assert status(phone, DAY) == QuotaStatus(used=2, limit=5)
    assert status(phone, date(2026, 3, 5)) == QuotaStatus(used=0, limit=1)


def test_full_phone_costs_three_queries(phone: Phone, django_assert_num_queries) -> None:
    QuotaUsage.objects.create(tenant=phone.tenant, phone=phone, day=DAY, used=5, limit=5)
    with django_assert_num_queries(3):
        assert not reserve_new_contact(phone, DAY)
    release(phone, DAY)
    with django_assert_num_queries(1):
        assert reserve_new_contact(phone, DAY)


def test_quota_day_is_the_tenants_local_day(phone: Phone) -> None:
    """Winter Bucharest is UTC+2: 21:59:59Z is still the 4th, 22:00:00Z is already the 5th."""
    before = datetime(2026, 3, 4, 21, 59, 59, tzinfo=UTC)
    after = datetime(2026, 3, 4, 22, 0, 0, tzinfo=UTC)
    assert quota_day(phone.tenant, before) == date(2026, 3, 4)
    assert quota_day(phone.tenant, after) == date(2026, 3, 5)
    assert quota_day(phone.tenant, datetime(2026, 7, 4, 21, 0, tzinfo=UTC)) == date(2026, 7, 5)


def test_quota_day_uses_the_phones_tenant_zone(db) -> None:
    lisbon = make_phone(make_tenant(time_zone="Europe/Lisbon")).tenant
    assert quota_day(lisbon, datetime(2026, 3, 4, 22, 30, tzinfo=UTC)) == date(2026, 3, 4)
    assert isinstance(quota_day(lisbon), date)


def test_quota_day_rejects_naive_datetimes(phone: Phone) -> None:
    with pytest.raises(ValueError):
        quota_day(phone.tenant, datetime(2026, 3, 4, 12))  # noqa: DTZ001 - the point of the test


def test_next_local_day_starts_at_zero(phone: Phone) -> None:
    today = quota_day(phone.tenant, datetime(2026, 3, 4, 21, 59, 59, tzinfo=UTC))
    tomorrow = quota_day(phone.tenant, datetime(2026, 3, 4, 22, 0, 0, tzinfo=UTC))
    while reserve_new_contact(phone, today):
        pass
    assert status(phone, today) == QuotaStatus(used=5, limit=5)
    assert status(phone, tomorrow) == QuotaStatus(used=0, limit=5)
    assert reserve_new_contact(phone, tomorrow)
    assert status(phone, tomorrow).used == 1
    assert status(phone, today).used == 5


def test_release_gives_a_slot_back_and_never_goes_below_zero(phone: Phone) -> None:
    for _ in range(5):
        assert reserve_new_contact(phone, DAY)
    assert not reserve_new_contact(phone, DAY)
    release(phone, DAY)
    assert status(phone, DAY).used == 4
    assert reserve_new_contact(phone, DAY)
    release(phone.pk, DAY, count=3)
    assert status(phone, DAY).used == 2
    release(phone, DAY, count=10)
    assert status(phone, DAY).used == 0
    release(phone, DAY)
    assert status(phone, DAY).used == 0
    release(phone, date(2026, 3, 5))  # no row: nothing to give back, nothing created
    assert not QuotaUsage.objects.filter(phone=phone, day=date(2026, 3, 5)).exists()
    release(phone, DAY, count=0)
    with pytest.raises(ValueError):
        release(phone, DAY, count=-1)


def test_status_and_remaining(phone: Phone) -> None:
    assert status(phone, DAY) == QuotaStatus(used=0, limit=5)
    assert status(phone, DAY).remaining == 5
    reserve_new_contact(phone, DAY)
    reserve_new_contact(phone, DAY)
    assert status(phone, DAY) == QuotaStatus(used=2, limit=5)
    assert status(phone, DAY).remaining == 3
    assert QuotaStatus(used=7, limit=5).remaining == 0


def test_status_many_is_one_query(tenant, django_assert_num_queries) -> None:
    phones = [make_phone(tenant, daily_limit=5) for _ in range(3)]
    reserve_new_contact(phones[0], DAY)
    reserve_many({phones[1].pk: 5}, DAY)
    ids = [p.pk for p in phones]
    Phone.objects.filter(pk=ids[2]).update(daily_limit=7)
    phones[2].refresh_from_db()
    with django_assert_num_queries(1):
        result = status_many(iter(phones), DAY)
    assert result == {
        ids[0]: QuotaStatus(used=1, limit=5),
        ids[1]: QuotaStatus(used=5, limit=5),
        ids[2]: QuotaStatus(used=0, limit=7),  # no row yet: the phone's limit for the day
    }


# --- bulk reservations ------------------------------------------------------------------


def test_reserve_many_grants_partially_and_creates_rows(tenant) -> None:
    near_full = make_phone(tenant, daily_limit=5)
    fresh = make_phone(tenant, daily_limit=200)
    full = make_phone(tenant, daily_limit=5)
    QuotaUsage.objects.create(tenant=tenant, phone=near_full, day=DAY, used=3, limit=5)
    QuotaUsage.objects.create(tenant=tenant, phone=full, day=DAY, used=5, limit=5)
    wanted = {near_full.pk: 10, fresh.pk: 4, full.pk: 1}
    Phone.objects.filter(pk=fresh.pk).update(daily_limit=6)

    granted = reserve_many(wanted, DAY)

    assert granted == {near_full.pk: 2, fresh.pk: 4, full.pk: 0}
    assert status(near_full, DAY) == QuotaStatus(used=5, limit=5)
    assert status(fresh, DAY) == QuotaStatus(used=4, limit=6)  # created with its limit
    assert QuotaUsage.objects.get(phone=fresh, day=DAY).tenant_id == tenant.pk
    assert status(full, DAY) == QuotaStatus(used=5, limit=5)
    assert reserve_many({fresh.pk: 5}, DAY) == {fresh.pk: 2}


def test_reserve_many_ignores_zero_wants_and_unknown_phones(phone: Phone) -> None:
    assert reserve_many({}, DAY) == {}
    assert reserve_many({phone.pk: 0}, DAY) == {phone.pk: 0}
    assert not QuotaUsage.objects.filter(phone=phone).exists()
    missing_id = phone.pk + 10_000
    granted = reserve_many({phone.pk: 2, missing_id: 3}, DAY)
    assert granted == {phone.pk: 2, missing_id: 0}
    assert status(phone, DAY) == QuotaStatus(used=2, limit=5)  # limit from the phone


def test_reserve_many_rolls_back_with_the_callers_transaction(phone: Phone) -> None:
    """Dispatch reserves inside its transaction: a failed dispatch leaves the quota alone."""
    reserve_new_contact(phone, DAY)
    with pytest.raises(RuntimeError), transaction.atomic():
        assert reserve_many({phone.pk: 3}, DAY) == {phone.pk: 3}
        assert status(phone, DAY).used == 4
        raise RuntimeError("dispatch failed after reserving")
    assert status(phone, DAY) == QuotaStatus(used=1, limit=5)


@pytest.mark.parametrize("phone_count", [2, 20])
def test_reserve_many_uses_a_constant_number_of_queries(
    tenant, phone_count: int, django_assert_max_num_queries
) -> None:
    phones = [make_phone(tenant) for _ in range(phone_count)]
    wanted = {p.pk: 150 for p in phones}
    # Creating rows: existing check, phone lookup, insert, lock, update (+ savepoint pair).
    with django_assert_max_num_queries(7):
        granted = reserve_many(wanted, DAY)
    assert granted == wanted
    # Rows exist: existing check, lock, update (+ savepoint pair).
    with django_assert_max_num_queries(5):
        granted = reserve_many(wanted, DAY)
    assert granted == dict.fromkeys(wanted, 50)


# --- concurrency ------------------------------------------------------------------------


# 50 and 20 threads, each with its own database connection: never two of these at once on
# PostgreSQL's 100 (CI's clock phase ran two moments of the 50-thread test side by side:
# "too many clients"). --dist loadgroup keeps a group on one worker.
MANY_CONNECTIONS = pytest.mark.xdist_group("many-db-connections")


@MANY_CONNECTIONS
@pytest.mark.django_db(transaction=True)
def test_concurrent_single_reservations_grant_exactly_the_limit() -> None:
    """50 threads x 10 attempts on one 200-slot phone: exactly 200 succeed, row says 200."""
    phone = make_phone(make_tenant(), daily_limit=200)
    wins = [0] * 50

    def work(index: int) -> None:
        wins[index] = sum(
            retry_shared_cache_lock(lambda: reserve_new_contact(phone, DAY)) for _ in range(10)
        )

    run_in_threads(50, work)
    assert sum(wins) == 200
    assert status(phone, DAY) == QuotaStatus(used=200, limit=200)
    assert QuotaUsage.objects.filter(phone=phone).count() == 1


@MANY_CONNECTIONS
@pytest.mark.django_db(transaction=True)
def test_concurrent_bulk_and_single_reservations_never_exceed_the_limit() -> None:
    """reserve_many and reserve_new_contact racing over three phones stay within limits."""
    tenant = make_tenant()
    phones = [make_phone(tenant, daily_limit=limit) for limit in (30, 45, 200)]
    ids = [p.pk for p in phones]
    granted = [0] * len(phones)
    lock = threading.Lock()

    def work(index: int) -> None:
        for _ in range(5):
            if index % 2:
                got = retry_shared_cache_lock(lambda: reserve_many(dict.fromkeys(ids, 7), DAY))
                counts = [got[p.pk] for p in phones]
            else:
                counts = [
                    int(retry_shared_cache_lock(lambda p=p: reserve_new_contact(p, DAY)))
                    for p in phones
                ]
            with lock:
                for position, count in enumerate(counts):
                    granted[position] += count

    run_in_threads(20, work)
    for position, phone in enumerate(phones):
        used = status(phone, DAY).used
        assert used == granted[position]
        assert used <= phone.daily_limit
    # 10 bulk threads x 5 x 7 + 10 single threads x 5 = 400 asked per phone.
    assert granted[:2] == [30, 45]
    assert granted[2] == 200


# --- the cache is not the truth ---------------------------------------------------------


def test_quota_survives_a_redis_flush(phone: Phone) -> None:
    for _ in range(3):
        reserve_new_contact(phone, DAY)
    before = status(phone, DAY)
    if settings.REDIS_URL:
        import redis

        redis.Redis.from_url(settings.REDIS_URL).flushdb()
    cache.clear()  # locmem without Redis; a no-op second flush with it
    assert status(phone, DAY) == before == QuotaStatus(used=3, limit=5)
    assert reserve_new_contact(phone, DAY)
    assert reserve_new_contact(phone, DAY)
    assert not reserve_new_contact(phone, DAY)
