"""The lifetime contact allotment (whatsapp.lifetime): used so far per provider, the pace of
the last 14 days from the quota rows, and when it runs out; shown on the phones page."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
import time_machine

from tests.factories import make_phone, make_tenant
from whatsapp.lifetime import PACE_DAYS, allotments
from whatsapp.models import Phone, QuotaUsage

pytestmark = pytest.mark.django_db

TODAY = date(2026, 12, 2)


def _pace(phone: Phone, per_day: int, days: int = PACE_DAYS) -> None:
    for back in range(days):
        QuotaUsage.objects.create(
            tenant=phone.tenant,
            phone=phone,
            day=TODAY - timedelta(days=back),
            used=per_day,
            limit=per_day,
        )


def test_the_forecast_adds_the_numbers_and_divides_what_is_left_by_the_pace(tenant, settings):
    settings.WHATSAPP_LIFETIME_CONTACTS = {"timelinesai": 100_000}
    one = make_phone(tenant, provider="timelinesai", total_new_contacts=60_000)
    two = make_phone(tenant, provider="timelinesai", total_new_contacts=20_000)
    _pace(one, 600)
    _pace(two, 400)
    # Older rows and another workspace's do not count.
    old = TODAY - timedelta(days=30)
    QuotaUsage.objects.create(tenant=tenant, phone=one, day=old, used=9999, limit=9999)
    theirs = make_phone(make_tenant(), provider="timelinesai", total_new_contacts=99_000)
    _pace(theirs, 5000)
    (found,) = allotments(tenant, TODAY)
    assert (found.provider, found.used, found.limit, found.remaining) == (
        "timelinesai",
        80_000,
        100_000,
        20_000,
    )
    assert found.per_day == 1000 and found.percent == 80
    assert found.runs_out_on == TODAY + timedelta(days=20)


def test_no_pace_means_no_end_date_and_a_full_allotment_says_so(tenant, settings):
    settings.WHATSAPP_LIFETIME_CONTACTS = {"timelinesai": 1000}
    make_phone(tenant, provider="timelinesai", total_new_contacts=10)
    (quiet,) = allotments(tenant, TODAY)
    assert quiet.per_day == 0 and quiet.runs_out_on is None and not quiet.used_up
    Phone.objects.update(total_new_contacts=1200)
    (full,) = allotments(tenant, TODAY)
    assert full.used_up and full.remaining == 0 and full.runs_out_on is None


def test_a_provider_without_an_allotment_is_not_listed(tenant, settings):
    settings.WHATSAPP_LIFETIME_CONTACTS = {"timelinesai": 100_000}
    make_phone(tenant, provider="sandbox", total_new_contacts=10)
    assert allotments(tenant, TODAY) == []


def test_the_phones_page_shows_the_allotment_and_each_numbers_contacts(
    client, operator, tenant, settings
):
    settings.WHATSAPP_LIFETIME_CONTACTS = {"timelinesai": 100_000}
    phone = make_phone(tenant, provider="timelinesai", total_new_contacts=80_000)
    _pace(phone, 1000)
    client.force_login(operator)
    with time_machine.travel("2026-12-02T10:00:00+02:00", tick=False):
        html = client.get("/outreach/phones/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    block = html[html.index('data-lifetime="timelinesai"') :]
    assert "80,000 of 100,000 used (80 %)" in block
    assert "At 1,000 new contacts a day (the last 14 days), it runs out around 22 Dec 2026" in block
    assert "data-lifetime-contacts>80,000<" in html
