"""Changing the sending window re-plans the waiting work at once (outreach.window_replanning)."""

from __future__ import annotations

from datetime import datetime, time
from zoneinfo import ZoneInfo

import pytest
from django.core.exceptions import ValidationError

from outreach.models import Enrollment, Journey
from outreach.window_replanning import WindowSettings, change_window
from tests.factories import make_lead, make_message, make_phone, make_tenant

BUCHAREST = ZoneInfo("Europe/Bucharest")
pytestmark = pytest.mark.django_db


def local(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=BUCHAREST)


def settings(**changes: object) -> WindowSettings:
    base = {
        "time_zone": "Europe/Bucharest",
        "window_start": time(9),
        "window_end": time(18),
        "working_days": [0, 1, 2, 3, 4],
        "holiday_country": "RO",
        "pacing_min_seconds": 30,
        "pacing_jitter_seconds": 120,
    }
    return WindowSettings(**{**base, **changes})


def test_opening_saturdays_brings_work_put_off_to_monday_forward_and_keeps_delays():
    tenant = make_tenant()
    friday_evening = local(2026, 11, 6, 20, 0)
    phone = make_phone(tenant)
    deferred = make_message(make_lead(tenant), phone=phone, scheduled_for=local(2026, 11, 9, 9, 0))
    delayed = make_message(make_lead(tenant), phone=phone, scheduled_for=local(2026, 11, 9, 11, 30))
    lead = make_lead(tenant)
    Journey.objects.filter(lead=lead).update(next_action_at=local(2026, 11, 9, 9, 0))
    moved = change_window(tenant, settings(working_days=[0, 1, 2, 3, 4, 5]), now=friday_evening)
    deferred.refresh_from_db()
    delayed.refresh_from_db()
    assert deferred.scheduled_for == local(2026, 11, 7, 9, 0)  # Saturday's opening
    assert delayed.scheduled_for == local(2026, 11, 9, 11, 30)  # a sequence delay stays
    assert Journey.objects.get(lead=lead).next_action_at == local(2026, 11, 7, 9, 0)
    assert (moved.messages, moved.leads) == (1, 1)


def test_shorter_hours_move_work_out_of_the_closed_part_and_the_enrollment_follows():
    tenant = make_tenant()
    now = local(2026, 11, 25, 10, 0)  # a Wednesday
    lead = make_lead(tenant)
    message = make_message(lead, phone=make_phone(tenant), scheduled_for=local(2026, 11, 25, 16, 0))
    other = make_lead(tenant)
    Journey.objects.filter(lead=other).update(next_action_at=local(2026, 11, 25, 17, 0))
    enrollment = Enrollment.objects.create(
        tenant=tenant,
        lead=other,
        sequence=_sequence(tenant),
        sequence_version=1,
        next_run_at=local(2026, 11, 25, 17, 0),
    )
    change_window(tenant, settings(window_end=time(15, 0)), now=now)
    message.refresh_from_db()
    enrollment.refresh_from_db()
    assert message.scheduled_for == local(2026, 11, 26, 9, 0)
    assert enrollment.next_run_at == local(2026, 11, 26, 9, 0)


def test_a_persons_message_is_not_moved_and_pacing_alone_moves_nothing():
    tenant = make_tenant()
    now = local(2026, 11, 25, 10, 0)
    manual = make_message(
        make_lead(tenant),
        phone=make_phone(tenant),
        is_manual=True,
        scheduled_for=local(2026, 11, 28, 10, 0),
    )
    assert change_window(tenant, settings(pacing_min_seconds=60), now=now).total == 0
    fewer_days = settings(working_days=[0, 1, 2], pacing_min_seconds=60)
    assert change_window(tenant, fewer_days, now=now).messages == 0
    manual.refresh_from_db()
    assert manual.scheduled_for == local(2026, 11, 28, 10, 0)
    tenant.refresh_from_db()
    assert tenant.pacing_min_seconds == 60


def test_wrong_settings_raise_per_field_and_save_nothing():
    tenant = make_tenant()
    with pytest.raises(ValidationError) as refused:
        change_window(tenant, settings(window_end=time(8), working_days=[]))
    assert set(refused.value.message_dict) == {"window_end", "working_days"}
    tenant.refresh_from_db()
    assert tenant.window_end == time(18)


def _sequence(tenant):
    from outreach.models import Sequence

    return Sequence.objects.create(tenant=tenant, name="Toamnă")
