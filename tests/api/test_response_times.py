"""GET /api/v1/analytics/response-times/: first human response times per operator and per
day (hitl.response_times), the tenant's own only, validated dates, fixed queries."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext

from hitl import responses
from outreach.models import Message
from tests.factories import make_lead, make_message, make_user

URL = "/api/v1/analytics/response-times/"
BUCHAREST = ZoneInfo("Europe/Bucharest")
RANGE = "?start=2026-11-23&end=2026-11-29"


def at(*args: int) -> datetime:
    return datetime(*args, tzinfo=BUCHAREST)


@pytest.fixture(autouse=True)
def saturday():
    with time_machine.travel(at(2026, 11, 28, 12), tick=False):
        yield


def conversation(tenant, received: datetime, answered: datetime | None, by=None):
    lead = make_lead(tenant)
    with time_machine.travel(received, tick=False):
        message = make_message(
            lead,
            direction=Message.Direction.INBOUND,
            status=Message.Status.RECEIVED,
            idempotency_key=None,
        )
        responses.reply_received(message)
    if answered is not None:
        with time_machine.travel(answered, tick=False):
            make_message(lead, is_manual=True, sent_by=by, idempotency_key=None)
    return lead


def test_needs_a_key_and_is_read_only(anonymous, read_api, tenant):
    assert anonymous.get(URL).status_code == 401
    assert read_api.get(URL).status_code == 200
    assert read_api.post(URL).status_code in (403, 405)


def test_figures_per_operator_and_per_day(api, tenant, other_tenant):
    ana = make_user(tenant, first_name="Ana", last_name="Pop")
    conversation(tenant, at(2026, 11, 24, 10), at(2026, 11, 24, 10, 20), ana)
    conversation(tenant, at(2026, 11, 24, 11), at(2026, 11, 24, 12, 20), ana)
    # Friday 17:30 answered Wednesday 09:30: weekend + 30 Nov + 1 Dec, one working hour.
    conversation(tenant, at(2026, 11, 27, 17, 30), at(2026, 12, 2, 9, 30), ana)
    conversation(tenant, at(2026, 11, 27, 17, 40), None)
    conversation(other_tenant, at(2026, 11, 24, 10), at(2026, 11, 24, 11), make_user(other_tenant))
    body = api.get(URL + RANGE).json()
    assert (body["start"], body["end"]) == ("2026-11-23", "2026-11-29")
    assert body["total"] == {
        "answered": 3,
        "closed_without_message": 0,
        "waiting": 1,
        "median_seconds": 3600,
        "p90_seconds": 4800,
        "within_deadline_percent": 100.0,
    }
    assert [(o["user_id"], o["name"], o["answered"]) for o in body["operators"]] == [
        (ana.pk, "Ana Pop", 3)
    ]
    days = {d["day"]: d for d in body["days"]}
    assert list(days) == ["2026-11-24", "2026-11-27"]
    assert days["2026-11-24"]["median_seconds"] == (1200 + 4800) // 2
    assert days["2026-11-27"]["median_seconds"] == 3600 and days["2026-11-27"]["waiting"] == 1


def test_another_tenants_replies_are_invisible(api, tenant, other_tenant):
    conversation(other_tenant, at(2026, 11, 24, 10), at(2026, 11, 24, 11), make_user(other_tenant))
    body = api.get(URL + RANGE).json()
    assert body["total"]["answered"] == 0 and body["operators"] == [] and body["days"] == []


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ("?start=2026-13-01", "start"),
        ("?end=yesterday", "end"),
        ("?start=2026-11-29&end=2026-11-23", "end"),
        ("?start=2024-01-01&end=2026-11-28", "start"),
    ],
)
def test_a_bad_date_is_400_naming_the_field(api, tenant, params, field):
    response = api.get(URL + params)
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == [field]


def test_queries_do_not_grow_with_replies_or_operators(api, tenant):
    conversation(tenant, at(2026, 11, 24, 10), at(2026, 11, 24, 11), make_user(tenant))
    api.get(URL + RANGE)  # the key's first use of the day is noted once
    with CaptureQueriesContext(connection) as small:
        assert api.get(URL + RANGE).status_code == 200
    for n in range(6):
        conversation(tenant, at(2026, 11, 25, 10, n), at(2026, 11, 25, 11), make_user(tenant))
        conversation(tenant, at(2026, 11, 26, 10, n), None)
    with CaptureQueriesContext(connection) as large:
        body = api.get(URL + RANGE).json()
    assert len(body["operators"]) == 7
    assert len(large) == len(small), [q["sql"] for q in large.captured_queries]


def test_the_schema_documents_the_endpoint(api):
    schema = api.get("/api/schema/?format=json").json()
    operation = schema["paths"][URL]["get"]
    assert {p["name"] for p in operation["parameters"]} >= {"start", "end"}
    assert "400" in operation["responses"]
