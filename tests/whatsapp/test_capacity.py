"""The "quota nearly exhausted" alert: raised at 90 % of today's usable capacity, once,
resolved when capacity frees and on the next day."""

from __future__ import annotations

from datetime import timedelta

from cerniq import reasons
from cerniq.models import Alert
from tests.factories import make_phone
from tests.whatsapp.conftest import MONDAY_10
from whatsapp import phones, quota
from whatsapp.capacity import Capacity, capacity, check_quota_alert
from whatsapp.models import Phone

MONDAY = MONDAY_10.date()


def use(phone: Phone, count: int) -> None:
    assert quota.reserve_many({phone.pk: count}, MONDAY) == {phone.pk: count}


def open_alerts(tenant):
    return Alert.objects.filter(
        tenant=tenant, kind=Alert.Kind.QUOTA_EXHAUSTED, resolved_at__isnull=True
    )


def test_capacity_counts_usable_phones_with_their_limits_today(tenant, clock):
    first = make_phone(tenant, daily_limit=100)
    warming = make_phone(tenant, warmup_started_at=MONDAY_10)  # day 1: 20
    make_phone(tenant, status=Phone.Status.PAUSED)
    make_phone(tenant, is_enabled=False)
    use(first, 30)
    use(warming, 5)
    assert capacity(tenant) == Capacity(phones=2, used=35, limit=120)


def test_alert_at_90_percent_once_then_resolved_when_capacity_frees(tenant, other_tenant, clock):
    phone = make_phone(tenant, daily_limit=100)
    spare = make_phone(tenant, daily_limit=100, status=Phone.Status.PAUSED)
    make_phone(other_tenant, daily_limit=100)
    use(phone, 89)
    check_quota_alert(tenant)
    assert not open_alerts(tenant).exists()

    use(phone, 1)
    check_quota_alert(tenant)
    check_quota_alert(tenant)  # a second check does not count it again
    alert = open_alerts(tenant).get()
    assert alert.occurrences == 1 and alert.severity == "WARNING"
    assert reasons.render(alert.message) == (
        "WhatsApp quota nearly exhausted: 90 of 100 new contacts used today (90%) on 1 usable "
        "phones"
    )
    check_quota_alert(other_tenant)
    assert not open_alerts(other_tenant).exists()

    phones.resume(spare)  # a second number frees capacity: 90 of 200
    check_quota_alert(tenant)
    assert not open_alerts(tenant).exists()


def test_the_next_day_resolves_it(tenant, clock):
    phone = make_phone(tenant, daily_limit=10)
    use(phone, 10)
    check_quota_alert(tenant)
    assert open_alerts(tenant).exists()
    clock.shift(timedelta(days=1))
    assert check_quota_alert(tenant).used == 0
    assert not open_alerts(tenant).exists()


def test_no_usable_phone_is_no_quota_alert(tenant, clock):
    make_phone(tenant, status=Phone.Status.OFFLINE)
    assert check_quota_alert(tenant).limit == 0
    assert not open_alerts(tenant).exists()


def test_the_threshold_is_a_setting(tenant, clock, settings):
    settings.QUOTA_ALERT_SHARE = 0.5
    phone = make_phone(tenant, daily_limit=10)
    use(phone, 5)
    check_quota_alert(tenant)
    assert open_alerts(tenant).exists()
