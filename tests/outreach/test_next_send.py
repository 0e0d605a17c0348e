"""One answer to "when can this tenant / phone / lead next send, and why not now"
(outreach.next_send), and its words in English and Romanian (outreach.next_send_text)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.utils import translation

from outreach.hours import Closure
from outreach.next_send import Reason, next_send_at
from outreach.next_send_text import banner_text, holiday_list, reason_text
from outreach.templatetags.sending_window import next_send
from tests.factories import make_lead, make_message, make_phone, make_tenant
from whatsapp.models import Phone

BUCHAREST = ZoneInfo("Europe/Bucharest")
pytestmark = pytest.mark.django_db


def local(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=BUCHAREST)


@pytest.fixture
def tenant():
    return make_tenant()  # Mon–Fri 09:00–18:00 Bucharest, Romanian holidays


def test_saturday_before_st_andrew_and_national_day_waits_for_wednesday(tenant):
    answer = next_send_at(tenant, now=local(2026, 11, 28, 11, 0))
    assert answer.reason == Reason.WINDOW_CLOSED
    assert answer.closure == Closure.WEEKEND
    assert answer.at == local(2026, 12, 2, 9, 0)  # Mon 30 Nov, Tue 1 Dec are holidays
    assert holiday_list(answer) == ["Saint Andrew's Day", "National Day"]
    assert banner_text(answer) == (
        "Sending is paused until Wed 2 Dec 09:00 "
        "(weekend, then public holidays: Saint Andrew's Day; National Day)."
    )


def test_the_banner_speaks_romanian_with_romanian_holiday_names(tenant):
    answer = next_send_at(tenant, now=local(2026, 11, 28, 11, 0))
    with translation.override("ro"):
        text = banner_text(answer)
    assert text.startswith("Trimiterea este oprită până miercuri, 2 decembrie, 09:00 (weekend")
    assert "Ziua Națională a României" in text
    assert "National Day" not in text


@pytest.mark.parametrize(
    ("now", "opens", "name"),
    [
        (local(2026, 12, 1, 10, 0), local(2026, 12, 2, 9, 0), "National Day"),
        (local(2026, 12, 25, 10, 0), local(2026, 12, 28, 9, 0), "Christmas Day"),
        (local(2026, 4, 13, 10, 0), local(2026, 4, 14, 9, 0), "Easter"),  # Orthodox Easter Monday
        (local(2027, 5, 3, 10, 0), local(2027, 5, 4, 9, 0), "Easter"),  # its date moves each year
    ],
)
def test_a_romanian_public_holiday_closes_the_window_and_is_named(tenant, now, opens, name):
    answer = next_send_at(tenant, now=now)
    assert (answer.reason, answer.closure, answer.at) == (
        Reason.WINDOW_CLOSED,
        Closure.HOLIDAY,
        opens,
    )
    assert name in holiday_list(answer)
    assert reason_text(answer).startswith(f"The sending window is closed (public holiday: {name}")


def test_a_weekday_evening_is_outside_hours_until_the_next_morning(tenant):
    answer = next_send_at(tenant, now=local(2026, 11, 25, 19, 30))  # a Wednesday
    assert (answer.closure, answer.at) == (Closure.OUTSIDE_HOURS, local(2026, 11, 26, 9, 0))
    assert answer.holidays == ()
    assert reason_text(answer) == (
        "The sending window is closed (outside sending hours, 09:00–18:00)."
    )


def test_inside_the_window_it_is_now(tenant):
    now = local(2026, 11, 25, 10, 0)
    answer = next_send_at(tenant, now=now)
    assert (answer.reason, answer.at, answer.is_now) == (Reason.NOW, now, True)


def test_a_day_off_that_is_not_a_weekend_says_so(tenant):
    tenant.working_days = [0, 1, 2, 3]  # Monday to Thursday
    answer = next_send_at(tenant, now=local(2026, 11, 27, 10, 0))  # a Friday
    assert (answer.closure, answer.at) == (Closure.DAY_OFF, local(2026, 12, 2, 9, 0))


@pytest.mark.parametrize(
    ("now", "opens_utc"),
    [
        # Saturday in summer time (UTC+3); Monday opens in winter time (UTC+2): 07:00 UTC.
        (local(2026, 10, 24, 20, 0), datetime(2026, 10, 26, 7, 0, tzinfo=UTC)),
        # Friday evening in winter time; Monday opens in summer time (UTC+3): 06:00 UTC.
        (local(2026, 3, 27, 19, 0), datetime(2026, 3, 30, 6, 0, tzinfo=UTC)),
    ],
)
def test_across_a_dst_change_the_opening_is_09_00_local(tenant, now, opens_utc):
    answer = next_send_at(tenant, now=now)
    assert answer.at == opens_utc
    assert answer.at.astimezone(BUCHAREST).hour == 9
    assert "Mon" in banner_text(answer) and "09:00" in banner_text(answer)


# --- phones -----------------------------------------------------------------------------


def test_a_phone_resting_between_two_sends_waits_for_its_gap(tenant):
    now = local(2026, 11, 25, 10, 0)
    phone = make_phone(tenant, next_send_at=now + timedelta(seconds=90))
    answer = next_send_at(tenant, phone=phone, now=now)
    assert (answer.reason, answer.at) == (Reason.PACING, now + timedelta(seconds=90))
    busy = make_phone(tenant, busy_until=now + timedelta(seconds=40))
    assert next_send_at(tenant, phone=busy, now=now).reason == Reason.SENDING


def test_a_narrow_cell_shows_a_send_later_today_as_its_time_alone(tenant):
    """The dashboard's quota cell: "14:31" for today, the whole moment for another day;
    the tooltip keeps the whole moment and the reason."""
    now = local(2026, 11, 25, 14, 30)  # a Wednesday, inside the window
    phone = make_phone(tenant, next_send_at=now + timedelta(seconds=90))
    answer = next_send_at(tenant, phone=phone, now=now)
    with translation.override("en"):
        today = next_send(answer, now.date())
        other_day = next_send(answer, now.date() - timedelta(days=1))
    assert today.endswith(">14:31</span>") and 'title="Wed 25 Nov 14:31 · ' in today
    assert other_day.endswith(">Wed 25 Nov 14:31</span>")


def test_a_gap_ending_after_closing_waits_for_the_next_opening_not_now(tenant):
    """The bug of issue 19: at a weekend the cards said "now" while the queue said 02.12."""
    friday_evening = local(2026, 11, 27, 17, 59)
    phone = make_phone(tenant, next_send_at=friday_evening + timedelta(minutes=2))
    answer = next_send_at(tenant, phone=phone, now=friday_evening)
    assert (answer.reason, answer.at) == (Reason.WINDOW_CLOSED, local(2026, 12, 2, 9, 0))
    saturday = next_send_at(tenant, phone=phone, now=local(2026, 11, 28, 11, 0))
    assert saturday.at == answer.at and not saturday.is_now


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"status": Phone.Status.PAUSED}, Reason.PHONE_PAUSED),
        ({"status": Phone.Status.OFFLINE}, Reason.PHONE_OFFLINE),
        ({"status": Phone.Status.BANNED}, Reason.PHONE_BANNED),
        ({"is_enabled": False}, Reason.PHONE_DISABLED),
    ],
)
def test_a_phone_out_of_rotation_will_not_send(tenant, fields, reason):
    phone = make_phone(tenant, **fields)
    answer = next_send_at(tenant, phone=phone, now=local(2026, 11, 25, 10, 0))
    assert (answer.at, answer.reason) == (None, reason)


# --- leads ------------------------------------------------------------------------------


def test_a_leads_step_due_on_saturday_goes_out_at_the_opening(tenant):
    lead = make_lead(tenant)
    lead.journey.next_action_at = local(2026, 11, 28, 10, 0)
    answer = next_send_at(tenant, lead=lead, now=local(2026, 11, 27, 12, 0))
    assert (answer.reason, answer.at) == (Reason.WINDOW_CLOSED, local(2026, 12, 2, 9, 0))


def test_a_leads_step_planned_later_inside_the_window_is_scheduled(tenant):
    lead = make_lead(tenant)
    lead.journey.next_action_at = local(2026, 11, 26, 11, 0)
    answer = next_send_at(tenant, lead=lead, now=local(2026, 11, 25, 10, 0))
    assert (answer.reason, answer.at) == (Reason.SCHEDULED, local(2026, 11, 26, 11, 0))


def test_a_persons_queued_message_does_not_wait_for_the_window_but_for_the_phone(tenant):
    saturday = local(2026, 11, 28, 11, 0)
    phone = make_phone(tenant, next_send_at=saturday + timedelta(seconds=30))
    lead = make_lead(tenant)
    make_message(lead, phone=phone, is_manual=True, scheduled_for=saturday)
    answer = next_send_at(tenant, lead=lead, now=saturday)
    assert (answer.reason, answer.at) == (Reason.PACING, saturday + timedelta(seconds=30))


def test_a_lead_in_review_or_taken_over_or_with_nothing_planned_will_not_send(tenant):
    now = local(2026, 11, 25, 10, 0)
    lead = make_lead(tenant)
    assert next_send_at(tenant, lead=lead, now=now).reason == Reason.NOTHING_PLANNED
    lead.journey.next_action_at = now
    lead.journey.requires_human_review = True
    assert next_send_at(tenant, lead=lead, now=now).reason == Reason.IN_REVIEW
    lead.journey.stage = "WARM_REPLY"
    answer = next_send_at(tenant, lead=lead, now=now)
    assert (answer.at, answer.reason) == (None, Reason.NOT_AUTOMATED)


def test_a_stalled_lead_says_its_sequence_is_stalled_not_that_nothing_is_planned(tenant):
    """The lead page's next send and its Stalled row must not contradict each other."""
    from outreach.models import Enrollment
    from tests.factories import make_sequence

    now = local(2026, 11, 25, 10, 0)
    lead = make_lead(tenant)
    enrollment = Enrollment.objects.create(
        tenant=tenant, lead=lead, sequence=make_sequence(tenant), stalled_since=now
    )
    answer = next_send_at(tenant, lead=lead, now=now)
    assert (answer.at, answer.reason) == (None, Reason.STALLED)
    with translation.override("en"):
        assert "stalled" in reason_text(answer)
    Enrollment.objects.filter(pk=enrollment.pk).update(stalled_since=None)
    assert next_send_at(tenant, lead=lead, now=now).reason == Reason.NOTHING_PLANNED
