"""The warm-up ramp: its rule, the limit the quota gives each day, and dispatch honouring it."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.core.exceptions import ValidationError

from cerniq.models import Alert
from outreach import reasons as codes
from outreach.dispatch import dispatch_due
from outreach.models import Message
from tests.factories import make_outreach_world, make_phone, make_tenant
from tests.whatsapp.conftest import MONDAY_10
from whatsapp import phones, quota, warmup
from whatsapp.models import Phone, PhoneStatusChange, QuotaUsage

BUCHAREST = ZoneInfo("Europe/Bucharest")
MONDAY = MONDAY_10.date()


# --- the rule -----------------------------------------------------------------------------


def test_default_ramp_goes_from_20_to_the_full_200_in_two_weeks():
    ramp = warmup.Ramp()
    by_day = [ramp.limit_on(n) for n in range(1, 16)]
    assert by_day == [20, 20, 40, 40, 60, 60, 90, 90, 120, 120, 160, 160, 160, None, None]
    assert ramp.days == 14


def test_day_number_counts_calendar_days_from_the_start():
    assert warmup.day_number(date(2026, 11, 23), date(2026, 11, 23)) == 1
    assert warmup.day_number(date(2026, 11, 23), date(2026, 11, 30)) == 8
    assert warmup.day_number(date(2026, 11, 23), date(2026, 11, 22)) == 1  # never before day 1


def test_parse_reads_day_limit_pairs():
    ramp = warmup.parse("1:10; 2:50\n 5 : 120, 7:200")
    assert ramp.steps == ((1, 10), (2, 50), (5, 120), (7, 200))
    assert ramp.as_text() == "1:10, 2:50, 5:120, 7:200"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "at least one step"),
        ("1:20, 3:forty", '"3:forty" is not a step'),
        ("2:20, 5:200", "must start on day 1"),
        ("1:20, 3:40, 3:60, 9:200", "day 3 must come after day 3"),
        ("1:50, 3:40, 9:200", "the limit must grow (40 is not above 50)"),
        ("1:20, 3:250", "the limit must be 1 to 200"),
        ("1:0, 3:200", "the limit must be 1 to 200"),
        ("1:20, 5:150", "must reach the full 200"),
        ("1:20, 120:200", "the day must be 1 to 90"),
    ],
)
def test_parse_refuses_a_bad_ramp_with_a_clear_reason(text, problem):
    with pytest.raises(ValidationError) as refused:
        warmup.parse(text)
    assert any(problem in message for message in refused.value.messages), refused.value.messages


# --- the day's limit ------------------------------------------------------------------------


def test_a_new_phone_starts_its_ramp_and_an_established_one_has_its_daily_limit(tenant, clock):
    new = Phone.objects.create(tenant=tenant, number="+40740000001")  # created: warms up
    old = make_phone(tenant)  # established (no ramp)
    limits = quota.day_limits([new, old], MONDAY)
    assert new.warmup_started_at == MONDAY_10
    assert (limits[new.pk].limit, limits[new.pk].warmup_day, limits[new.pk].warmup_days) == (
        20,
        1,
        14,
    )
    assert (limits[old.pk].limit, limits[old.pk].warmup_day) == (200, None)
    assert quota.day_limits([new], MONDAY + timedelta(days=6))[new.pk].limit == 90
    assert quota.day_limits([new], MONDAY + timedelta(days=13))[new.pk].warmup_day is None


def test_the_ramp_never_raises_a_lower_daily_limit(tenant, clock):
    small = make_phone(tenant, daily_limit=30, warmup_started_at=MONDAY_10)
    assert quota.day_limits([small], MONDAY + timedelta(days=2))[small.pk].limit == 30  # not 40


def test_ramp_days_are_the_tenants_calendar_days(db):
    """Started 00:30 on the 24th in Bucharest, still the 23rd in UTC and in Lisbon: the
    24th is day 1 for a Bucharest tenant, day 2 for a Lisbon one."""
    started = datetime(2026, 11, 24, 0, 30, tzinfo=BUCHAREST)
    plan = warmup.parse("1:20, 2:40, 3:200")
    limits = []
    for zone in ("Europe/Bucharest", "Europe/Lisbon"):
        tenant = make_tenant(time_zone=zone)
        phone = make_phone(tenant, warmup_started_at=started)
        quota.change_ramp(tenant, plan)
        limits.append(quota.day_limits([phone], date(2026, 11, 24))[phone.pk].limit)
    assert limits == [20, 40]


def test_a_tenants_plan_applies_to_its_phones_only(tenant, other_tenant, clock):
    ours = make_phone(tenant, warmup_started_at=MONDAY_10)
    theirs = make_phone(other_tenant, warmup_started_at=MONDAY_10)
    quota.change_ramp(tenant, warmup.parse("1:5, 4:200"))
    limits = quota.day_limits([ours, theirs], MONDAY)
    assert (limits[ours.pk].limit, limits[theirs.pk].limit) == (5, 20)


def test_changing_the_plan_moves_todays_rows_of_warming_phones(tenant, clock):
    warming = make_phone(tenant, warmup_started_at=MONDAY_10)
    established = make_phone(tenant)
    for phone in (warming, established):
        assert quota.reserve_new_contact(phone, MONDAY)
    quota.change_ramp(tenant, warmup.parse("1:50, 3:200"))
    assert quota.status(warming, MONDAY) == quota.QuotaStatus(used=1, limit=50)
    assert quota.status(established, MONDAY) == quota.QuotaStatus(used=1, limit=200)


# --- dispatch follows the ramp ----------------------------------------------------------------


def test_dispatch_gives_a_new_phone_at_most_its_ramp_limit_however_many_leads_are_due(
    tenant, clock
):
    world = make_outreach_world(tenant, phones=1, leads=60)
    established = world["phones"][0]
    Phone.objects.filter(pk=established.pk).update(daily_limit=25)
    new = Phone.objects.create(tenant=tenant, number="+40740009999")  # day 1: 20

    result = dispatch_due(tenant)

    assert result.dispatched["WHATSAPP"] == 45
    assert result.skipped[codes.QUOTA_EXHAUSTED] == 15
    on_new = Message.objects.filter(phone=new, quota_cost=1).count()
    assert on_new == 20
    assert QuotaUsage.objects.get(phone=new, day=MONDAY).limit == 20
    assert quota.status(established, MONDAY) == quota.QuotaStatus(used=25, limit=25)


def test_the_ramp_raises_the_limit_day_by_day_through_dispatch(tenant, clock):
    make_outreach_world(tenant, phones=0, leads=120, steps=1)
    new = Phone.objects.create(tenant=tenant, number="+40740009999")
    sent = []
    for days in (0, 1, 2):  # Monday (day 1), Tuesday (day 2), Wednesday (day 3)
        clock.move_to(MONDAY_10 + timedelta(days=days))
        dispatch_due(tenant)
        sent.append(QuotaUsage.objects.get(phone=new, day=MONDAY + timedelta(days=days)).used)
    assert sent == [20, 20, 40]


# --- re-activation starts the ramp again --------------------------------------------------------


def test_a_banned_number_reactivated_warms_up_from_day_1(tenant, clock):
    phone = make_phone(tenant, status=Phone.Status.BANNED)
    Alert.objects.create(
        tenant=tenant, kind=Alert.Kind.PHONE_BANNED, subject=f"phone:{phone.number}", message="x"
    )
    phones.reactivate(phone)
    phone.refresh_from_db()
    assert phone.status == Phone.Status.ACTIVE and phone.warmup_started_at == MONDAY_10
    assert quota.status(phone, MONDAY).limit == 20
    assert not Alert.objects.filter(resolved_at__isnull=True).exists()
    assert PhoneStatusChange.objects.filter(phone=phone, status="ACTIVE").exists()
    with pytest.raises(phones.PhoneActionRefused):
        phones.reactivate(phone)  # only a banned phone


def test_back_after_a_long_disconnection_it_warms_up_after_a_short_one_it_does_not(tenant, clock):
    short = make_phone(tenant)
    long = make_phone(tenant)
    phones.mark_offline(short, "disconnected")
    phones.mark_offline(long, "disconnected")
    assert quota.reserve_new_contact(long, MONDAY)  # today's row exists: it must follow
    Phone.objects.filter(pk=long.pk).update(status_changed_at=MONDAY_10 - timedelta(days=8))
    long.refresh_from_db()
    phones.mark_active(short)
    phones.mark_active(long)
    assert quota.status(short, MONDAY).limit == 200
    assert quota.status(long, MONDAY) == quota.QuotaStatus(used=1, limit=20)
