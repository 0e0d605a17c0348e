"""SendingWindow.working_time: the working-time duration between two instants (response
times are measured with it)."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest

from outreach.hours import SendingWindow

BUCHAREST = ZoneInfo("Europe/Bucharest")


def local(year: int, month: int, day: int, hour: int = 0, minute: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, tzinfo=BUCHAREST)


@pytest.fixture
def window() -> SendingWindow:
    """Mon–Fri 09:00–18:00 Bucharest, Romanian public holidays."""
    return SendingWindow(tz=BUCHAREST, start=time(9), end=time(18), days=frozenset(range(5)))


def test_within_one_working_day(window: SendingWindow) -> None:
    assert window.working_time(local(2026, 11, 24, 10), local(2026, 11, 24, 11, 20)) == timedelta(
        hours=1, minutes=20
    )


def test_the_night_counts_nothing(window: SendingWindow) -> None:
    # 17:30 -> 18:00 Tuesday, 09:00 -> 09:15 Wednesday.
    assert window.working_time(local(2026, 11, 24, 17, 30), local(2026, 11, 25, 9, 15)) == (
        timedelta(minutes=45)
    )


def test_weekend_and_two_romanian_holidays_count_nothing(window: SendingWindow) -> None:
    # Friday 27 Nov 17:30; Monday 30 Nov (Sfântul Andrei) and Tuesday 1 Dec (Ziua
    # Națională) are public holidays; answered Wednesday 2 Dec 09:30: 30 min + 30 min.
    friday, wednesday = local(2026, 11, 27, 17, 30), local(2026, 12, 2, 9, 30)
    assert window.working_time(friday, wednesday) == timedelta(hours=1)


def test_without_holidays_the_same_stretch_is_two_days_longer() -> None:
    plain = SendingWindow(
        tz=BUCHAREST, start=time(9), end=time(18), days=frozenset(range(5)), holiday_country=""
    )
    friday, wednesday = local(2026, 11, 27, 17, 30), local(2026, 12, 2, 9, 30)
    assert plain.working_time(friday, wednesday) == timedelta(hours=19)


def test_both_ends_outside_hours(window: SendingWindow) -> None:
    # Saturday night to Monday 07:00: nothing open in between.
    assert window.working_time(local(2026, 11, 21, 22), local(2026, 11, 23, 7)) == timedelta(0)


def test_end_before_start_is_zero(window: SendingWindow) -> None:
    assert window.working_time(local(2026, 11, 24, 12), local(2026, 11, 24, 10)) == timedelta(0)


def test_instants_in_other_zones_are_the_same_instants(window: SendingWindow) -> None:
    start = local(2026, 11, 24, 10).astimezone(UTC)
    assert window.working_time(start, local(2026, 11, 24, 12)) == timedelta(hours=2)


def test_across_the_october_clock_change() -> None:
    # 08:00–20:00 on all days: Saturday 24 Oct 19:00 -> Sunday 25 Oct 09:00 (clocks went
    # back at 04:00 that night) is 1 h + 1 h of open time, the repeated hour being closed.
    every_day = SendingWindow(tz=BUCHAREST, start=time(8), end=time(20), days=frozenset(range(7)))
    assert every_day.working_time(local(2026, 10, 24, 19), local(2026, 10, 25, 9)) == timedelta(
        hours=2
    )


def test_naive_instants_are_refused(window: SendingWindow) -> None:
    with pytest.raises(ValueError):
        window.working_time(datetime(2026, 11, 24, 10), local(2026, 11, 24, 12))  # noqa: DTZ001
