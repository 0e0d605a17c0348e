"""Response-time figures (hitl.response_times) on the analytics page and the dashboard's
replies waiting longest: working time, per operator, per day, fixed queries, tenancy."""

from __future__ import annotations

from datetime import date, datetime
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext

from hitl import responses
from hitl.models import ReplyResponse
from hitl.response_times import duration_label, percentile, response_times, waiting_longest
from outreach.models import Message
from tests.factories import make_lead, make_message, make_user

pytestmark = pytest.mark.django_db
BUCHAREST = ZoneInfo("Europe/Bucharest")


def at(*args: int) -> datetime:
    return datetime(*args, tzinfo=BUCHAREST)


def conversation(tenant, received: datetime, answered: datetime | None, by=None, **lead_kw):
    """A lead's reply at `received`, answered by `by` at `answered` (None: still waiting)."""
    lead = make_lead(tenant, **lead_kw)
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


def test_duration_labels():
    assert duration_label(80 * 60) == "1 h 20 min"
    assert duration_label(45 * 60 + 59) == "45 min"
    assert duration_label(2 * 3600) == "2 h"
    assert duration_label(30) == "under 1 min"
    assert duration_label(None) == "—"


def test_percentile_is_the_nearest_rank():
    assert percentile(list(range(1, 11)), 0.9) == 9
    assert percentile([5], 0.9) == 5
    assert percentile([], 0.9) is None


def test_figures_per_operator_and_per_day(tenant, other_tenant):
    ana, ion = make_user(tenant, first_name="Ana"), make_user(tenant, first_name="Ion")
    # Tuesday 24 Nov: Ana answers in 10 min and 1 h; Ion in 30 min.
    conversation(tenant, at(2026, 11, 24, 10), at(2026, 11, 24, 10, 10), ana)
    conversation(tenant, at(2026, 11, 24, 11), at(2026, 11, 24, 12), ana)
    conversation(tenant, at(2026, 11, 24, 14), at(2026, 11, 24, 14, 30), ion)
    # Friday 27 Nov 17:30, answered by Ion on Wednesday 2 Dec 09:30 (weekend, Sf. Andrei
    # and Ziua Națională between): 1 working hour. Another reply still waiting.
    conversation(tenant, at(2026, 11, 27, 17, 30), at(2026, 12, 2, 9, 30), ion)
    conversation(tenant, at(2026, 11, 27, 17, 45), None)
    # 00:30 in Bucharest on 25 Nov is 24 Nov in UTC: counted on the 25th.
    conversation(tenant, at(2026, 11, 25, 0, 30), at(2026, 11, 25, 9, 5), ana)
    # Another tenant's reply, and a reply outside the range.
    conversation(other_tenant, at(2026, 11, 24, 10), at(2026, 11, 24, 18), make_user(other_tenant))
    conversation(tenant, at(2026, 11, 20, 10), at(2026, 11, 20, 10, 1), ana)

    figures = response_times(tenant, date(2026, 11, 23), date(2026, 11, 29))

    assert figures.total.answered == 5 and figures.total.waiting == 1
    assert sorted(figures.total.seconds) == [300, 600, 1800, 3600, 3600]
    assert figures.total.median_label == "30 min" and figures.total.p90_label == "1 h"
    by_name = {row.name: row.figures for row in figures.operators}
    assert set(by_name) == {"Ana", "Ion"}
    assert sorted(by_name["Ana"].seconds) == [300, 600, 3600]
    assert by_name["Ion"].median_seconds == (1800 + 3600) // 2
    by_day = {row.day: row.figures for row in figures.days}
    assert set(by_day) == {date(2026, 11, 24), date(2026, 11, 25), date(2026, 11, 27)}
    assert by_day[date(2026, 11, 25)].seconds == [300]
    assert by_day[date(2026, 11, 27)].answered == 1 and by_day[date(2026, 11, 27)].waiting == 1
    # MEDIUM's deadline (24 working hours): all answered within it.
    assert figures.total.within_sla_share == 100.0


def test_share_within_the_deadline_uses_each_replys_deadline(tenant):
    ana = make_user(tenant)
    conversation(tenant, at(2026, 11, 23, 9), at(2026, 11, 23, 10), ana)
    late = conversation(tenant, at(2026, 11, 23, 9), at(2026, 11, 26, 10), ana)  # 28 h
    assert ReplyResponse.objects.get(lead=late).working_seconds == 28 * 3600
    figures = response_times(tenant, date(2026, 11, 23), date(2026, 11, 23))
    assert figures.total.within_sla_share == 50.0


def test_waiting_longest_oldest_first_in_working_time(tenant, other_tenant):
    newest = conversation(tenant, at(2026, 12, 2, 9, 0), None, name="Ferma Nouă SRL")
    oldest = conversation(tenant, at(2026, 11, 27, 17, 0), None, name="Ferma Veche SRL")
    middle = conversation(tenant, at(2026, 11, 27, 17, 30), None)
    conversation(tenant, at(2026, 11, 26, 9, 0), at(2026, 11, 26, 9, 5), make_user(tenant))
    conversation(other_tenant, at(2026, 11, 20, 9), None)
    rows = waiting_longest(tenant, at(2026, 12, 2, 10, 0))
    assert [row.response.lead for row in rows] == [oldest, middle, newest]
    # Friday 17:00–18:00 + Wednesday 09:00–10:00, the weekend and two holidays between.
    assert rows[0].waited_label == "2 h" and rows[2].waited_label == "1 h"
    assert len(waiting_longest(tenant, at(2026, 12, 2, 10), limit=2)) == 2


def _add_operators(tenant, count: int, day: int) -> None:
    for n in range(count):
        user = make_user(tenant, first_name=f"Op {day}-{n}")
        conversation(tenant, at(2026, 11, day, 10, n), at(2026, 11, day, 11, n), user)
        conversation(tenant, at(2026, 11, day, 12, n), None)


def test_analytics_page_shows_response_times_in_fixed_queries(client, operator, tenant):
    url = "/outreach/analytics/?start=2026-11-16&end=2026-11-29"
    with time_machine.travel(at(2026, 11, 28, 12), tick=False):
        client.force_login(operator)  # at the moment used: a session lasts two weeks
        _add_operators(tenant, 1, 23)
        with CaptureQueriesContext(connection) as small:
            assert client.get(url).status_code == 200
        _add_operators(tenant, 6, 24)
        with CaptureQueriesContext(connection) as large:
            html = client.get(url).content.decode()
    assert len(large) == len(small), [q["sql"] for q in large.captured_queries]
    assert html.count("data-operator=") == 7
    assert 'data-day="2026-11-24"' in html and 'data-day="2026-11-23"' in html
    assert "<dd data-median>1 h</dd>" in html and "<dd data-waiting>7</dd>" in html


def test_analytics_page_hides_other_tenants(client, operator, tenant, other_tenant):
    conversation(
        other_tenant,
        at(2026, 11, 24, 10),
        at(2026, 11, 24, 11),
        make_user(other_tenant, first_name="Secret"),
    )
    with time_machine.travel(at(2026, 11, 28, 12), tick=False):
        client.force_login(operator)  # at the moment used: a session lasts two weeks
        html = client.get("/outreach/analytics/").content.decode()
    assert "Secret" not in html and "data-operator=" not in html


def test_dashboard_lists_replies_waiting_longest_in_fixed_queries(
    client, operator, tenant, other_tenant
):
    conversation(other_tenant, at(2026, 11, 20, 9), None, name="Secret Farm SRL")
    with time_machine.travel(at(2026, 12, 2, 10), tick=False):
        client.force_login(operator)  # at the moment used: a session lasts two weeks
        first = conversation(tenant, at(2026, 11, 27, 17, 0), None, name="Ferma Veche SRL")
        client.get("/outreach/dashboard/")  # the figures the dashboard keeps between polls
        with CaptureQueriesContext(connection) as small:
            assert client.get("/outreach/dashboard/").status_code == 200
        for n in range(12):
            conversation(tenant, at(2026, 12, 1, 10, n), None)
        with CaptureQueriesContext(connection) as large:
            html = client.get("/outreach/dashboard/").content.decode()
    assert len(large) == len(small), [q["sql"] for q in large.captured_queries]
    assert html.count("data-waiting-reply=") == 8
    assert "Secret Farm SRL" not in html
    rows = html.split("data-waiting-reply=")[1]
    assert "Ferma Veche SRL" in rows and f"/outreach/inbox/{first.pk}/" in rows
    assert (
        f"/outreach/leads/{first.pk}/" in rows and '<td class="waited" data-waited>2 h</td>' in rows
    )
