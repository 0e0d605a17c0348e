"""The Analytics endpoints: figures from the roll-up tables (the analytics page's
functions), the tenant's own only, validated ranges, queries independent of the volume."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from outreach.analytics import local_today
from outreach.models import Channel, DailyStats, TemplateDailyStats
from tests.factories import make_phone, make_template

ANALYTICS = "/api/v1/analytics/"


@pytest.fixture
def today(tenant):
    return local_today(tenant, timezone.now())


def stats(tenant, day, channel=Channel.WHATSAPP, phone=None, **counts):
    return DailyStats.objects.create(tenant=tenant, day=day, channel=channel, phone=phone, **counts)


def template_stats(tenant, day, version, **counts):
    return TemplateDailyStats.objects.create(
        tenant=tenant, day=day, template_version=version, channel=Channel.WHATSAPP, **counts
    )


@pytest.mark.parametrize("name", ["overview", "daily", "templates", "phones"])
def test_every_analytics_endpoint_needs_a_key(anonymous, tenant, name):
    assert anonymous.get(f"{ANALYTICS}{name}/").status_code == 401


@pytest.mark.parametrize("name", ["overview", "daily", "templates", "phones"])
def test_a_read_key_reads_and_nothing_is_writable(read_api, api, tenant, name):
    assert read_api.get(f"{ANALYTICS}{name}/").status_code == 200
    assert api.post(f"{ANALYTICS}{name}/").status_code == 405


def test_overview_sums_today_and_the_last_7_days(api, tenant, other_tenant, today):
    stats(tenant, today, sent=10, new_contacts=6, replies=3, positive_replies=1)
    stats(tenant, today - timedelta(days=6), sent=5, replies=1)
    stats(tenant, today - timedelta(days=7), sent=1000)  # before the week
    stats(tenant, today, Channel.EMAIL_WARM, sent=2, bounces=1)
    stats(tenant, today, phone=make_phone(tenant), sent=10)  # a per-phone row: counted once
    stats(other_tenant, today, sent=500)
    body = api.get(f"{ANALYTICS}overview/").json()
    assert (body["day"], body["since"]) == (str(today), str(today - timedelta(days=6)))
    assert body["today"]["sent"] == 12 and body["last_7_days"]["sent"] == 17
    assert (body["today"]["replies"], body["today"]["positive_replies"]) == (3, 1)
    whatsapp = next(c for c in body["channels"] if c["channel"] == "WHATSAPP")
    assert (whatsapp["today"]["new_contacts"], whatsapp["last_7_days"]["sent"]) == (6, 15)
    email = next(c for c in body["channels"] if c["channel"] == "EMAIL_WARM")
    assert email["today"]["bounces"] == 1
    assert {c["channel"] for c in body["channels"]} == set(Channel.values)


def test_daily_series_by_channel(api, tenant, other_tenant, today):
    start = today - timedelta(days=2)
    stats(tenant, start, sent=4, replies=2, positive_replies=1)
    stats(tenant, today, sent=6)
    stats(other_tenant, today, sent=500)
    body = api.get(f"{ANALYTICS}daily/", {"start": str(start), "end": str(today)}).json()
    assert body["days"] == [str(start + timedelta(days=n)) for n in range(3)]
    whatsapp = next(c for c in body["channels"] if c["channel"] == "WHATSAPP")
    assert whatsapp["sent"] == [4, 0, 6]
    assert whatsapp["replies"] == [2, 0, 0]
    assert whatsapp["reply_rate"] == 20.0


def test_the_default_range_is_the_last_30_days(api, tenant, today):
    body = api.get(f"{ANALYTICS}daily/").json()
    assert (body["start"], body["end"]) == (str(today - timedelta(days=29)), str(today))
    assert len(body["days"]) == 30


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"start": "2026-11-10", "end": "2026-11-01"}, "end"),
        ({"start": "2024-01-01", "end": "2026-11-01"}, "start"),
        ({"start": "yesterday"}, "start"),
    ],
)
@pytest.mark.parametrize("name", ["daily", "templates", "phones"])
def test_a_bad_range_is_400_naming_the_field(api, tenant, name, params, field):
    response = api.get(f"{ANALYTICS}{name}/", params)
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == [field]


def test_results_per_template_version(api, tenant, other_tenant, today):
    version = make_template(tenant, name="Salut").versions.get()
    template_stats(tenant, today, version, sent=10, replies=4, positive_replies=2)
    template_stats(tenant, today - timedelta(days=1), version, sent=10, replies=1)
    template_stats(other_tenant, today, make_template(other_tenant).versions.get(), sent=9)
    body = api.get(f"{ANALYTICS}templates/").json()
    assert body["results"] == [
        {
            "channel": "WHATSAPP",
            "sent": 20,
            "replies": 5,
            "positive_replies": 2,
            "reply_rate": 25.0,
            "positive_rate": 10.0,
            "template_version": version.pk,
            "template": "Salut",
            "version": "v1",
        }
    ]


def test_results_per_phone(api, tenant, other_tenant, today):
    phone = make_phone(tenant, label="Vânzări")
    stats(tenant, today, phone=phone, sent=8, new_contacts=5, follow_ups=3, replies=2)
    stats(other_tenant, today, phone=make_phone(other_tenant), sent=9)
    [row] = api.get(f"{ANALYTICS}phones/").json()["results"]
    assert (row["phone"], row["number"], row["label"]) == (phone.pk, phone.number, "Vânzări")
    assert (row["sent"], row["new_contacts"], row["follow_ups"], row["replies"]) == (8, 5, 3, 2)


def _queries(api, name: str, params: dict) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert api.get(f"{ANALYTICS}{name}/", params).status_code == 200
    return len(queries)


def test_queries_do_not_grow_with_the_rows_or_the_range(api, tenant, today):
    api.get(f"{ANALYTICS}overview/")  # the key's first use of the minute records last_used_at
    few = {n: _queries(api, n, {}) for n in ("overview", "daily", "templates", "phones")}
    for n in range(20):
        day = today - timedelta(days=n)
        phone = make_phone(tenant)
        stats(tenant, day, sent=n)
        stats(tenant, day, phone=phone, sent=n)
        template_stats(tenant, day, make_template(tenant).versions.get(), sent=n)
    many = {n: _queries(api, n, {}) for n in ("overview", "daily", "templates", "phones")}
    assert many == few
    assert len(api.get(f"{ANALYTICS}templates/").json()["results"]) == 20
    long_range = {"start": str(today - timedelta(days=300)), "end": str(today)}
    assert _queries(api, "daily", long_range) == few["daily"]
