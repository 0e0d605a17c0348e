"""The sending window on the pages: the closed-window banner, the same next moment on the
dashboard, the phone cards and the queue view, and the admins' sending hours page."""

from __future__ import annotations

from datetime import UTC, datetime, time
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.test import RequestFactory

from console.context_processors import tenant as tenant_context
from outreach.models import Message
from tests.factories import make_lead, make_message, make_phone, make_user

BUCHAREST = ZoneInfo("Europe/Bucharest")
SATURDAY = datetime(2026, 11, 28, 9, 0, tzinfo=UTC)  # 11:00 in Bucharest
WEDNESDAY = datetime(2026, 11, 25, 8, 0, tzinfo=UTC)  # 10:00 in Bucharest
OPENS = "2026-12-02T07:00:00+00:00"  # Wed 2 Dec 09:00 Bucharest (30 Nov, 1 Dec: holidays)
pytestmark = pytest.mark.django_db


def local(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=BUCHAREST)


@pytest.fixture
def admin(tenant):
    return make_user(tenant, role="ADMIN")


# --- the banner -------------------------------------------------------------------------


@time_machine.travel(SATURDAY, tick=False)
@pytest.mark.parametrize("page", ["/outreach/dashboard/", "/outreach/leads/", "/outreach/phones/"])
def test_a_weekend_shows_the_closed_window_banner_on_every_operator_page(client, operator, page):
    client.force_login(operator)
    html = client.get(page, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'data-window-banner="weekend"' in html
    assert "Sending is paused until Wed 2 Dec 09:00 (weekend, then public holidays:" in html
    assert "Messages you write yourself still go out." in html
    assert "/outreach/settings/sending/" not in html  # the settings link is for admins


@time_machine.travel(SATURDAY, tick=False)
def test_the_banner_is_in_romanian_for_a_romanian_reader(client, admin):
    client.force_login(admin)
    client.cookies["django_language"] = "ro"
    html = client.get("/outreach/dashboard/", HTTP_ACCEPT_LANGUAGE="ro").content.decode()
    assert "Trimiterea este oprită până miercuri, 2 decembrie, 09:00" in html
    assert "Ziua Națională a României" in html
    assert 'href="/outreach/settings/sending/"' in html


@time_machine.travel(WEDNESDAY, tick=False)
def test_no_banner_while_the_window_is_open(client, operator):
    client.force_login(operator)
    html = client.get("/outreach/dashboard/").content.decode()
    assert "data-window-banner" not in html


@time_machine.travel(SATURDAY, tick=False)
def test_no_banner_for_someone_signed_out(client):
    assert "data-window-banner" not in client.get("/accounts/login/").content.decode()


@time_machine.travel(SATURDAY, tick=False)
def test_the_banner_costs_no_query_beyond_the_loaded_tenant(operator, django_assert_num_queries):
    request = RequestFactory().get("/outreach/dashboard/")
    request.user, request.session = operator, {}
    closed_window = tenant_context(request)["closed_window"]  # loads the membership
    with django_assert_num_queries(0):
        assert closed_window().at == datetime.fromisoformat(OPENS)


# --- one next moment everywhere -----------------------------------------------------------


@time_machine.travel(SATURDAY, tick=False)
def test_dashboard_phone_cards_and_queue_view_agree_on_the_next_moment(client, operator, tenant):
    """Issue 19: the dashboard and the cards said "now" while the queue view said 02.12."""
    phone = make_phone(tenant, next_send_at=local(2026, 11, 27, 17, 58))  # gap ended Friday
    lead = make_lead(tenant)
    make_message(lead, phone=phone, scheduled_for=local(2026, 11, 28, 10, 0))
    client.force_login(operator)
    stamp = f'data-next-send="{OPENS}" data-reason="window_closed"'
    for page in ("/outreach/dashboard/", "/outreach/phones/", "/outreach/queues/"):
        html = client.get(page, HTTP_ACCEPT_LANGUAGE="en").content.decode()
        row = html[html.index(f'data-phone="{phone.number}"') :]
        assert stamp in row, page
        assert ">now<" not in row[: row.index(stamp) + 400], page
    lead_page = client.get(f"/outreach/leads/{lead.pk}/").content.decode()
    assert stamp in lead_page


# --- the sending hours page ---------------------------------------------------------------


def _form(**changes: object) -> dict[str, object]:
    data: dict[str, object] = {
        "time_zone": "Europe/Bucharest",
        "window_start": "09:00",
        "window_end": "18:00",
        "working_days": ["0", "1", "2", "3", "4"],
        "holiday_country": "RO",
        "pacing_min_seconds": "30",
        "pacing_jitter_seconds": "120",
        "contact_unverified_whatsapp": "on",
        "contact_unverified_email": "on",
    }
    data.update(changes)
    return data


@time_machine.travel(WEDNESDAY, tick=False)
def test_an_admin_sees_working_days_as_checkboxes(client, admin):
    client.force_login(admin)
    html = client.get("/outreach/settings/sending/").content.decode()
    assert 'type="checkbox" name="working_days" value="0"' in html
    assert '<option value="RO" selected>Romania</option>' in html
    assert "Sending is open now." in html


def test_an_operator_may_not_see_or_change_the_sending_hours(client, operator, tenant):
    client.force_login(operator)
    assert client.get("/outreach/settings/sending/").status_code == 403
    response = client.post("/outreach/settings/sending/", _form(window_end="20:00"))
    assert response.status_code == 403
    tenant.refresh_from_db()
    assert tenant.window_end == time(18, 0)


@pytest.mark.parametrize(
    ("changes", "field", "problem"),
    [
        ({"window_end": "08:00"}, "window_end", "The sending hours must end after they start."),
        ({"working_days": []}, "working_days", "Choose at least one working day."),
        ({"pacing_min_seconds": "1"}, "pacing_min_seconds", "greater than or equal to 5"),
        ({"pacing_jitter_seconds": "9000"}, "pacing_jitter_seconds", "less than or equal to 3600"),
        ({"time_zone": "Mars/Base"}, "time_zone", "Select a valid choice."),
    ],
)
def test_wrong_settings_are_refused_with_the_fields_error_and_change_nothing(
    client, admin, tenant, changes, field, problem
):
    client.force_login(admin)
    response = client.post("/outreach/settings/sending/", _form(**changes))
    assert response.status_code == 200
    html = response.content.decode()
    error = html[html.index(f'data-error="{field}"') :]
    assert problem in error[:300]
    tenant.refresh_from_db()
    assert (tenant.window_start, tenant.window_end) == (time(9, 0), time(18, 0))
    assert tenant.working_days == [0, 1, 2, 3, 4]


@time_machine.travel(WEDNESDAY, tick=False)
def test_saving_re_plans_a_message_queued_for_a_day_that_is_now_closed(client, admin, tenant):
    tenant.working_days = [0, 1, 2, 3, 4, 5]  # Saturdays too
    tenant.save()
    lead = make_lead(tenant)
    saturday = local(2026, 11, 28, 10, 0)
    queued = make_message(lead, phone=make_phone(tenant), scheduled_for=saturday)
    client.force_login(admin)
    response = client.post("/outreach/settings/sending/", _form(), follow=True)
    html = response.content.decode()
    assert "Re-planned at once: 1 queued message and the next steps of 0 leads." in html
    queued.refresh_from_db()
    assert queued.scheduled_for == local(2026, 12, 2, 9, 0)  # Mon, Tue are holidays
    assert queued.status == Message.Status.QUEUED
    tenant.refresh_from_db()
    assert tenant.working_days == [0, 1, 2, 3, 4]
