"""The dashboard's slow figures are counted off the request path and say when: the leads
outreach cannot move (the scheduler's "reach-counts" job) and the six days before today."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.conf import settings

from outreach.analytics import reach
from outreach.models import Journey, Message
from tests.factories import make_lead, make_message, make_phone

pytestmark = pytest.mark.django_db

NOON = datetime(2026, 11, 18, 10, 0, tzinfo=UTC)  # a Wednesday, 12:00 in Bucharest


def kpi(html: str, name: str) -> str:
    found = re.search(rf'data-kpi="{re.escape(name)}">(?:<a [^>]*>)?([^<]*)<', html)
    assert found, f"no kpi {name}"
    return found.group(1).strip()


def opted_out_lead(tenant, name: str):
    lead = make_lead(tenant, name=name, email="")
    Journey.objects.filter(lead=lead).update(whatsapp_opted_out=True)
    return lead


def test_the_page_counts_once_then_shows_the_kept_figure_and_when_it_was_counted(
    client, operator, tenant
):
    opted_out_lead(tenant, "Ferma Unu SRL")
    with time_machine.travel(NOON, tick=False):
        client.force_login(operator)  # at the moment used: a session lasts two weeks
        html = client.get("/outreach/dashboard/").content.decode()
    assert kpi(html, "not-contactable") == "1"
    assert "counted at 12:00" in html  # the tenant's local time
    opted_out_lead(tenant, "Ferma Doi SRL")
    with time_machine.travel(NOON + timedelta(seconds=20), tick=False):
        html = client.get("/outreach/dashboard/").content.decode()
    assert kpi(html, "not-contactable") == "1", "kept between the scheduler's runs"
    with time_machine.travel(NOON + timedelta(minutes=1), tick=False):
        assert reach.refresh_all() >= 1
        html = client.get("/outreach/dashboard/").content.decode()
    assert kpi(html, "not-contactable") == "2"
    assert "counted at 12:01" in html


def test_the_scheduler_counts_every_minute():
    jobs = {job["name"]: job for job in settings.PERIODIC_JOBS}
    assert jobs["reach-counts"]["call"] == "outreach.analytics.reach.refresh_all"
    assert jobs["reach-counts"]["cron"] == "* * * * *"


def test_each_tenant_keeps_its_own_counts(tenant, other_tenant):
    opted_out_lead(other_tenant, "Ferma Lor SRL")
    reach.refresh_all()
    assert reach.reach(tenant).not_contactable == 0
    assert reach.reach(other_tenant).not_contactable == 1


def test_todays_figures_are_live_while_the_earlier_days_are_kept(client, operator, tenant):
    phone = make_phone(tenant, number="+40740000001")
    lead = make_lead(tenant)
    with time_machine.travel(NOON, tick=False):
        client.force_login(operator)  # at the moment used: a session lasts two weeks
        make_message(
            lead,
            phone=phone,
            status=Message.Status.SENT,
            quota_cost=1,
            sent_at=NOON - timedelta(days=2),
        )
        html = client.get("/outreach/dashboard/").content.decode()
        assert (kpi(html, "new-today"), kpi(html, "new-week")) == ("0", "1")
        other = make_lead(tenant, phone="+40740000777")
        make_message(other, phone=phone, status=Message.Status.SENT, quota_cost=1, sent_at=NOON)
        html = client.get("/outreach/dashboard/").content.decode()
    assert (kpi(html, "new-today"), kpi(html, "new-week")) == ("1", "2")
