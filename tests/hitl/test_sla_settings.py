"""Review deadlines per tenant (hitl.sla) and their page /outreach/settings/review/: the
queue's due times and escalations use them; only tenant admins change them."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import translation

from hitl import review, sla
from hitl.models import ReviewItem, ReviewSLA
from outreach.models import Priority
from tests.factories import make_user
from tests.whatsapp.conftest import MONDAY_10

URL = "/outreach/settings/review/"
FAST = {"URGENT": 15, "HIGH": 60, "MEDIUM": 240, "LOW": 480}


@pytest.fixture
def admin(tenant):
    return make_user(tenant, role="ADMIN")


def post(client, **minutes):
    return client.post(URL, {**FAST, **minutes})


def test_without_settings_the_design_defaults_apply(tenant, clock):
    assert sla.deadlines(tenant).minutes == {"URGENT": 60, "HIGH": 240, "MEDIUM": 1440, "LOW": 4320}
    assert review.sla_due(tenant, Priority.URGENT) == MONDAY_10 + timedelta(hours=1)


def test_a_tenants_minutes_set_the_due_time_and_the_escalation(tenant, other_tenant, lead, clock):
    sla.save(tenant, FAST, by=None)
    item = review.open_item(lead, reason="x", priority=Priority.HIGH)
    assert item.sla_due_at == MONDAY_10 + timedelta(minutes=60)
    # another tenant keeps the defaults
    assert review.sla_due(other_tenant, Priority.HIGH) == MONDAY_10 + timedelta(hours=4)
    clock.move_to(MONDAY_10 + timedelta(minutes=61))
    assert review.check_sla() == 1
    item.refresh_from_db()
    assert item.priority == Priority.URGENT
    assert item.sla_due_at == MONDAY_10 + timedelta(minutes=61 + 15)


def test_working_time_only(tenant, lead, clock):
    sla.save(tenant, {**FAST, "URGENT": 30}, by=None)
    clock.move_to(MONDAY_10.replace(hour=17, minute=50))  # 10 minutes before closing
    item = review.open_item(lead, reason="x", priority=Priority.URGENT)
    assert item.sla_due_at == MONDAY_10.replace(day=24, hour=9, minute=20)  # Tuesday 09:20


@pytest.mark.parametrize(
    ("minutes", "field"),
    [
        ({"URGENT": 4}, "URGENT"),  # below 5 minutes
        ({"LOW": 30 * 24 * 60 + 1}, "LOW"),  # above thirty days
        ({"HIGH": 10}, "HIGH"),  # HIGH sooner than URGENT (15)
        ({"MEDIUM": 480, "LOW": 300}, "LOW"),
    ],
)
def test_bad_minutes_are_refused_and_nothing_changes(tenant, minutes, field):
    with pytest.raises(sla.SLAError) as refused:
        sla.save(tenant, {**FAST, **minutes}, by=None)
    assert set(refused.value.errors) == {field}
    assert not ReviewSLA.objects.exists()


def test_the_admin_sees_and_changes_the_deadlines(client, tenant, admin, lead, clock):
    client.force_login(admin)
    page = client.get(URL)
    assert page.status_code == 200
    body = page.content.decode()
    assert "Review deadlines" in body and "24 h" in body and "uses the default deadlines" in body
    answer = post(client)
    assert answer.status_code == 302
    row = ReviewSLA.objects.get(tenant=tenant)
    assert (row.urgent_minutes, row.high_minutes, row.updated_by) == (15, 60, admin)
    body = client.get(URL).content.decode()
    assert "15 min" in body and "4 h" in body and "uses its own deadlines" in body
    item = review.open_item(lead, reason="x", priority=Priority.URGENT)
    assert item.sla_due_at == MONDAY_10 + timedelta(minutes=15)


def test_a_bad_form_says_which_field_in_romanian_and_saves_nothing(client, admin):
    client.force_login(admin)
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "ro"
    answer = post(client, HIGH=5)
    assert answer.status_code == 400
    body = answer.content.decode()
    assert 'data-error="HIGH"' in body
    with translation.override("ro"):
        assert "Ridicată nu poate avea un termen mai scurt decât Urgent (15 minute)." in body
    assert not ReviewSLA.objects.exists()


def test_operators_cannot_change_them(client, operator):
    client.force_login(operator)
    assert client.get(URL).status_code == 403
    assert post(client).status_code == 403
    assert not ReviewSLA.objects.exists()


def test_each_tenants_admin_changes_only_their_own(client, tenant, other_tenant):
    client.force_login(make_user(other_tenant, role="ADMIN"))
    assert post(client).status_code == 302
    assert ReviewSLA.objects.get().tenant == other_tenant
    assert sla.deadlines(tenant).customised is False


def test_the_review_page_says_the_deadline_and_links_admins_to_it(client, admin, operator, lead):
    review.open_item(lead, reason="x", priority=Priority.HIGH)
    client.force_login(admin)
    body = client.get("/outreach/review/").content.decode()
    assert "Answer within 4 h of working time." in body and URL in body
    client.force_login(operator)
    body = client.get("/outreach/review/").content.decode()
    assert "Answer within 4 h of working time." in body and URL not in body
    assert ReviewItem.objects.count() == 1
