"""The sending window: hours, working days, Romanian holidays, DST and delays."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest

from outreach.hours import SendingWindow, window_for
from tests.factories import make_tenant

BUCHAREST = ZoneInfo("Europe/Bucharest")
WEEKDAYS = frozenset(range(5))
ALL_DAYS = frozenset(range(7))


def local(year: int, month: int, day: int, hour: int = 0, minute: int = 0, **kw: int) -> datetime:
    """A Bucharest wall time (fold=0: the first of a repeated hour)."""
    return datetime(year, month, day, hour, minute, tzinfo=BUCHAREST, **kw)


def utc(year: int, month: int, day: int, hour: int = 0, minute: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, tzinfo=UTC)


@pytest.fixture
def window() -> SendingWindow:
    """The product default: Mon–Fri 09:00–18:00 Bucharest, Romanian holidays."""
    return SendingWindow(tz=BUCHAREST, start=time(9), end=time(18), days=WEEKDAYS)


def all_days(start: time, end: time) -> SendingWindow:
    """Every day of the week, to put DST changes (always on a Sunday) inside the window."""
    return SendingWindow(tz=BUCHAREST, start=start, end=end, days=ALL_DAYS)


# --- open / next opening ----------------------------------------------------------------


def test_friday_just_before_closing_is_open(window: SendingWindow) -> None:
    assert window.is_open(local(2026, 3, 6, 17, 59))  # a Friday
    assert window.is_open(local(2026, 3, 6, 17, 59, second=59, microsecond=999999))


def test_friday_at_closing_is_closed_until_monday_morning(window: SendingWindow) -> None:
    friday_close = local(2026, 3, 6, 18, 0)
    assert not window.is_open(friday_close)
    opening = window.next_opening(friday_close)
    assert opening == local(2026, 3, 9, 9, 0)
    assert opening.tzinfo == BUCHAREST
    assert opening.utcoffset() == timedelta(hours=2)


def test_weekend_waits_for_monday(window: SendingWindow) -> None:
    saturday = local(2026, 3, 7, 11, 0)
    assert not window.is_open(saturday)
    assert window.next_opening(saturday) == local(2026, 3, 9, 9, 0)
    assert window.next_opening(local(2026, 3, 8, 23, 59)) == local(2026, 3, 9, 9, 0)


def test_before_opening_waits_for_the_same_day(window: SendingWindow) -> None:
    early = local(2026, 3, 4, 8, 59)
    assert not window.is_open(early)
    assert window.next_opening(early) == local(2026, 3, 4, 9, 0)
    assert window.is_open(local(2026, 3, 4, 9, 0))


def test_open_moment_is_its_own_next_opening(window: SendingWindow) -> None:
    at = utc(2026, 3, 4, 10, 15)  # 12:15 in Bucharest
    opening = window.next_opening(at)
    assert opening == at
    assert opening.tzinfo == BUCHAREST


def test_input_in_another_zone_is_judged_in_the_window_zone(window: SendingWindow) -> None:
    """07:30 UTC is 09:30 in Bucharest (winter): open, although 07:30 looks early."""
    assert window.is_open(utc(2026, 3, 4, 7, 30))
    assert not window.is_open(utc(2026, 3, 4, 16, 0))  # 18:00 local


@pytest.mark.parametrize(
    ("at", "expected"),
    [
        # 1 December (national day, a Tuesday in 2026); 30 November is Saint Andrew's.
        (local(2026, 12, 1, 10), local(2026, 12, 2, 9)),
        (local(2026, 11, 30, 10), local(2026, 12, 2, 9)),
        # Orthodox Easter Monday 2026 is 13 April; Good Friday 10 April is a holiday too.
        (local(2026, 4, 13, 10), local(2026, 4, 14, 9)),
        (local(2026, 4, 9, 18), local(2026, 4, 14, 9)),
        # 1 January (a Thursday) and 2 January (a Friday) are both holidays.
        (local(2026, 1, 1, 10), local(2026, 1, 5, 9)),
        (local(2025, 12, 31, 18), local(2026, 1, 5, 9)),
    ],
)
def test_public_holidays_are_closed(
    window: SendingWindow, at: datetime, expected: datetime
) -> None:
    assert not window.is_open(at)
    assert not window.is_working_day(at.date()) or at.hour >= 18
    assert window.next_opening(at) == expected


def test_friday_before_a_holiday_monday_reopens_tuesday(window: SendingWindow) -> None:
    """1 June 2026 (Children's Day, Pentecost Monday) is a Monday."""
    assert not window.is_working_day(date(2026, 6, 1))
    assert window.next_opening(local(2026, 5, 29, 18, 0)) == local(2026, 6, 2, 9, 0)


def test_working_day_rules(window: SendingWindow) -> None:
    assert window.is_working_day(date(2026, 3, 4))  # Wednesday
    assert not window.is_working_day(date(2026, 3, 7))  # Saturday
    assert not window.is_working_day(date(2026, 12, 1))  # national day


def test_empty_holiday_country_means_no_holidays() -> None:
    window = SendingWindow(
        tz=BUCHAREST, start=time(9), end=time(18), days=WEEKDAYS, holiday_country=""
    )
    assert window.is_working_day(date(2026, 12, 1))
    assert window.is_open(local(2026, 12, 1, 10))


def test_custom_hours_days_and_time_zone() -> None:
    """Saturday allowed, 08:00–20:00 in Lisbon (UTC+0 in winter), Portuguese holidays."""
    lisbon = ZoneInfo("Europe/Lisbon")
    window = SendingWindow(
        tz=lisbon,
        start=time(8),
        end=time(20),
        days=frozenset({0, 1, 2, 3, 4, 5}),
        holiday_country="PT",
    )
    saturday = datetime(2026, 3, 7, 19, 30, tzinfo=lisbon)
    assert window.is_open(saturday)
    assert window.is_open(utc(2026, 3, 7, 8, 0))
    assert not window.is_open(utc(2026, 3, 7, 7, 59))
    # Saturday 20:00 -> Monday 08:00 Lisbon; Sunday is not a working day here.
    opening = window.next_opening(datetime(2026, 3, 7, 20, 0, tzinfo=lisbon))
    assert opening == datetime(2026, 3, 9, 8, 0, tzinfo=lisbon)
    assert opening.tzinfo == lisbon
    # 1 December is a Portuguese holiday too (Restoration of Independence); 2 Dec reopens.
    assert window.next_opening(datetime(2026, 12, 1, 9, tzinfo=lisbon)) == datetime(
        2026, 12, 2, 8, tzinfo=lisbon
    )
    # 30 November is Romanian, not Portuguese.
    assert window.is_working_day(date(2026, 11, 30))


def test_closing_of_an_open_moment(window: SendingWindow) -> None:
    assert window.closing_of(local(2026, 3, 4, 10)) == local(2026, 3, 4, 18)
    with pytest.raises(ValueError, match="closed"):
        window.closing_of(local(2026, 3, 4, 18))


# --- validation -------------------------------------------------------------------------


def test_naive_datetimes_are_rejected(window: SendingWindow) -> None:
    naive = datetime(2026, 3, 4, 10, 0)  # noqa: DTZ001 - the point of the test
    for call in (window.is_open, window.next_opening, window.local_date, window.closing_of):
        with pytest.raises(ValueError, match="naive"):
            call(naive)
    with pytest.raises(ValueError, match="naive"):
        window.add_delay(naive, 1, "HOURS")


def test_a_window_without_days_never_opens() -> None:
    window = SendingWindow(tz=BUCHAREST, start=time(9), end=time(18), days=frozenset())
    assert not window.is_open(local(2026, 3, 4, 10))
    with pytest.raises(ValueError, match="no working days"):
        window.next_opening(local(2026, 3, 4, 10))
    with pytest.raises(ValueError):
        window.add_delay(local(2026, 3, 4, 10), 1, "WORKING_DAYS")


def test_search_for_an_opening_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """A calendar where every day is a holiday gives up instead of looping forever."""

    def every_day(country: str, year: int) -> frozenset[date]:
        return frozenset(date(year, 1, 1) + timedelta(days=n) for n in range(366))

    monkeypatch.setattr("outreach.hours._holiday_dates", every_day)
    window = SendingWindow(tz=BUCHAREST, start=time(9), end=time(18), days=WEEKDAYS)
    with pytest.raises(ValueError, match="does not open within 366 days"):
        window.next_opening(local(2026, 3, 4, 10))
    with pytest.raises(ValueError, match="no working day within"):
        window.add_delay(local(2026, 3, 4, 10), 1, "WORKING_DAYS")


@pytest.mark.parametrize(
    "kwargs",
    [
        {"start": time(18), "end": time(9)},
        {"start": time(9), "end": time(9)},
        {"days": frozenset({7})},
        {"holiday_country": "XX"},
        {"start": time(9, tzinfo=UTC)},
    ],
)
def test_invalid_windows_fail_at_construction(kwargs: dict) -> None:
    base = {"tz": BUCHAREST, "start": time(9), "end": time(18), "days": WEEKDAYS}
    with pytest.raises(ValueError):
        SendingWindow(**{**base, **kwargs})


# --- DST --------------------------------------------------------------------------------


def test_monday_opening_after_march_change_is_summer_time(window: SendingWindow) -> None:
    """Clocks go forward on Sunday 29 March 2026: Monday 09:00 is +03:00 (06:00 UTC)."""
    opening = window.next_opening(local(2026, 3, 27, 18))
    assert opening == utc(2026, 3, 30, 6, 0)
    assert opening.utcoffset() == timedelta(hours=3)
    assert opening.hour == 9


def test_monday_opening_after_october_change_is_winter_time(window: SendingWindow) -> None:
    """Clocks go back on Sunday 25 October 2026: Monday 09:00 is +02:00 (07:00 UTC)."""
    opening = window.next_opening(local(2026, 10, 23, 18))
    assert opening == utc(2026, 10, 26, 7, 0)
    assert opening.utcoffset() == timedelta(hours=2)
    assert opening.hour == 9


def test_local_date_follows_the_tenant_zone(window: SendingWindow) -> None:
    assert window.local_date(utc(2026, 1, 14, 21, 59)) == date(2026, 1, 14)
    assert window.local_date(utc(2026, 1, 14, 22, 0)) == date(2026, 1, 15)
    assert window.local_date(utc(2026, 7, 14, 21, 0)) == date(2026, 7, 15)  # summer: +03:00


def test_spring_forward_day_is_an_hour_shorter() -> None:
    """01:00–05:00 on 29 March 2026 is 3 real hours: 03:00–04:00 never happens."""
    window = all_days(time(1), time(5))
    opening = window.next_opening(local(2026, 3, 28, 23))
    assert opening == utc(2026, 3, 28, 23, 0)  # 01:00 +02:00
    closing = window.closing_of(opening)
    assert closing == utc(2026, 3, 29, 2, 0)  # 05:00 +03:00
    assert closing.utcoffset() == timedelta(hours=3)
    assert closing.astimezone(UTC) - opening.astimezone(UTC) == timedelta(hours=3)
    # 2h30 of sending from 01:00 +02:00 lands at 04:30 +03:00: 01:30 UTC.
    assert window.add_delay(opening, 150, "MINUTES") == utc(2026, 3, 29, 1, 30)
    # 3 hours consume the whole (short) window: next is Monday 01:00.
    assert window.add_delay(opening, 3, "HOURS") == utc(2026, 3, 29, 22, 0)


def test_fall_back_day_is_an_hour_longer() -> None:
    """01:00–05:00 on 25 October 2026 is 5 real hours: 03:00–04:00 happens twice."""
    window = all_days(time(1), time(5))
    opening = window.next_opening(local(2026, 10, 24, 23))
    assert opening == utc(2026, 10, 24, 22, 0)  # 01:00 +03:00
    closing = window.closing_of(opening)
    assert closing == utc(2026, 10, 25, 3, 0)  # 05:00 +02:00
    # Both 03:30s are open; 4h30 of sending from 01:00 +03:00 lands at 04:30 +02:00.
    first_0330 = local(2026, 10, 25, 3, 30)
    second_0330 = local(2026, 10, 25, 3, 30, fold=1)
    assert first_0330.astimezone(UTC) == utc(2026, 10, 25, 0, 30)
    assert second_0330.astimezone(UTC) == utc(2026, 10, 25, 1, 30)
    assert window.is_open(first_0330) and window.is_open(second_0330)
    assert window.add_delay(opening, 270, "MINUTES") == utc(2026, 10, 25, 2, 30)
    assert window.add_delay(opening, 4, "HOURS") == utc(2026, 10, 25, 2, 0)  # 04:00 +02:00
    assert window.add_delay(opening, 5, "HOURS") == utc(2026, 10, 25, 23, 0)  # Monday 01:00


def test_window_edge_in_the_skipped_hour_is_the_jump_itself() -> None:
    """A 03:30 start on 29 March opens at 04:00 +03:00, the first wall time past 03:30."""
    window = all_days(time(3, 30), time(5))
    opening = window.next_opening(local(2026, 3, 29, 0))
    assert opening == utc(2026, 3, 29, 1, 0)
    assert (opening.hour, opening.minute) == (4, 0)
    assert not window.is_open(utc(2026, 3, 29, 0, 59))  # 02:59 +02:00
    closing_early = all_days(time(1), time(3, 30))
    assert closing_early.closing_of(local(2026, 3, 29, 2)) == utc(2026, 3, 29, 1, 0)


def test_window_edge_in_the_repeated_hour_is_the_first_occurrence() -> None:
    """A 03:30 end on 25 October closes at the first 03:30 and stays closed on the repeat."""
    window = all_days(time(1), time(3, 30))
    closing = window.closing_of(local(2026, 10, 25, 2))
    # Compare in UTC: Python never calls a repeated wall time equal to another zone's time.
    assert closing.astimezone(UTC) == utc(2026, 10, 25, 0, 30)
    assert closing.utcoffset() == timedelta(hours=3)
    assert not window.is_open(local(2026, 10, 25, 3, 10, fold=1))


def test_hours_delay_across_dst_on_an_all_days_window() -> None:
    """A 24-hour window on every day: 48 open hours from Saturday noon are 48 real hours."""
    window = all_days(time(0), time(23, 59))
    start = local(2026, 3, 28, 12)  # Saturday before the spring change
    result = window.add_delay(start, 12 * 60, "MINUTES")
    # 12h of open time: 12:00–23:59 Sat is 11h59, then 1 minute from Sunday 00:00.
    assert result == local(2026, 3, 29, 0, 1)
    result = window.add_delay(local(2026, 3, 29, 0, 0), 5, "HOURS")
    assert result == local(2026, 3, 29, 6, 0)  # wall 06:00 +03:00: only 5 real hours
    assert result.astimezone(UTC) - utc(2026, 3, 28, 22, 0) == timedelta(hours=5)
    result = window.add_delay(local(2026, 10, 25, 0, 0), 5, "HOURS")
    assert result == local(2026, 10, 25, 4, 0)  # wall 04:00 +02:00: the repeat ate an hour
    assert result.utcoffset() == timedelta(hours=2)


# --- delays -----------------------------------------------------------------------------


def test_minutes_delay_skips_closed_time(window: SendingWindow) -> None:
    assert window.add_delay(local(2026, 3, 6, 17, 30), 60, "MINUTES") == local(2026, 3, 9, 9, 30)
    assert window.add_delay(local(2026, 3, 4, 10), 45, "MINUTES") == local(2026, 3, 4, 10, 45)
    # Delays start counting at the next opening when asked at night.
    assert window.add_delay(local(2026, 3, 4, 22), 30, "MINUTES") == local(2026, 3, 5, 9, 30)


def test_hours_delay_skips_nights_weekends_and_holidays(window: SendingWindow) -> None:
    assert window.add_delay(local(2026, 3, 4, 16), 3, "HOURS") == local(2026, 3, 5, 10)
    # Friday 29 May 17:00 + 2h -> 1h Friday, then Tuesday 2 June (1 June is a holiday).
    assert window.add_delay(local(2026, 5, 29, 17), 2, "HOURS") == local(2026, 6, 2, 10)
    # 9 hours is a whole window: from an opening it lands on the next opening.
    assert window.add_delay(local(2026, 3, 4, 9), 9, "HOURS") == local(2026, 3, 5, 9)
    assert window.add_delay(local(2026, 3, 4, 9), 20, "HOURS") == local(2026, 3, 6, 11)


def test_hours_delay_over_a_dst_weekend_keeps_local_hours(window: SendingWindow) -> None:
    # Friday 27 March 17:00 +02:00, 2 open hours -> Monday 30 March 10:00 +03:00.
    result = window.add_delay(local(2026, 3, 27, 17), 2, "HOURS")
    assert result.astimezone(UTC) == utc(2026, 3, 30, 7, 0)
    assert (result.hour, result.utcoffset()) == (10, timedelta(hours=3))
    # Friday 23 October 17:00 +03:00, 2 open hours -> Monday 26 October 10:00 +02:00.
    result = window.add_delay(local(2026, 10, 23, 17), 2, "HOURS")
    assert result.astimezone(UTC) == utc(2026, 10, 26, 8, 0)
    assert (result.hour, result.utcoffset()) == (10, timedelta(hours=2))


def test_zero_delay_is_the_next_opening(window: SendingWindow) -> None:
    for unit in ("MINUTES", "HOURS", "WORKING_DAYS"):
        assert window.add_delay(local(2026, 3, 7, 12), 0, unit) == local(2026, 3, 9, 9)
        assert window.add_delay(local(2026, 3, 4, 12), 0, unit) == local(2026, 3, 4, 12)


def test_working_days_delay_keeps_the_wall_time(window: SendingWindow) -> None:
    assert window.add_delay(local(2026, 3, 2, 10), 2, "WORKING_DAYS") == local(2026, 3, 4, 10)
    assert window.add_delay(local(2026, 3, 6, 10), 1, "WORKING_DAYS") == local(2026, 3, 9, 10)
    assert window.add_delay(local(2026, 3, 6, 10), 5, "WORKING_DAYS") == local(2026, 3, 13, 10)


def test_working_days_delay_skips_holidays(window: SendingWindow) -> None:
    # Friday 29 May + 1: Monday 1 June is a holiday -> Tuesday 2 June.
    assert window.add_delay(local(2026, 5, 29, 10), 1, "WORKING_DAYS") == local(2026, 6, 2, 10)
    # Thursday 9 April + 1: Good Friday and Easter Monday -> Tuesday 14 April.
    assert window.add_delay(local(2026, 4, 9, 11), 1, "WORKING_DAYS") == local(2026, 4, 14, 11)


def test_working_days_delay_outside_the_window_moves_to_an_opening(
    window: SendingWindow,
) -> None:
    # Monday 19:00 + 1 -> Tuesday 19:00 is closed -> Wednesday 09:00.
    assert window.add_delay(local(2026, 3, 2, 19), 1, "WORKING_DAYS") == local(2026, 3, 4, 9)
    # Monday 07:00 + 1 -> Tuesday 07:00 -> Tuesday 09:00.
    assert window.add_delay(local(2026, 3, 2, 7), 1, "WORKING_DAYS") == local(2026, 3, 3, 9)
    # Saturday 10:00 + 1 -> the first working day after Saturday, Monday 10:00.
    assert window.add_delay(local(2026, 3, 7, 10), 1, "WORKING_DAYS") == local(2026, 3, 9, 10)


def test_working_days_delay_across_dst_keeps_the_wall_time(window: SendingWindow) -> None:
    result = window.add_delay(local(2026, 3, 27, 10), 1, "WORKING_DAYS")
    assert result == local(2026, 3, 30, 10)
    assert result.utcoffset() == timedelta(hours=3)
    assert window.add_delay(local(2026, 10, 23, 10), 1, "WORKING_DAYS") == utc(2026, 10, 26, 8)


def test_bad_delays_are_rejected(window: SendingWindow) -> None:
    with pytest.raises(ValueError, match="negative"):
        window.add_delay(local(2026, 3, 4, 10), -1, "HOURS")
    with pytest.raises(ValueError, match="unit"):
        window.add_delay(local(2026, 3, 4, 10), 1, "WEEKS")


# --- tenant -----------------------------------------------------------------------------


@pytest.mark.django_db
def test_for_tenant_reads_the_tenant_fields() -> None:
    tenant = make_tenant(
        time_zone="Europe/Lisbon",
        window_start=time(8),
        window_end=time(20),
        working_days=[0, 2, 5],
        holiday_country="pt",
    )
    tenant.refresh_from_db()
    window = SendingWindow.for_tenant(tenant)
    assert window == SendingWindow(
        tz=ZoneInfo("Europe/Lisbon"),
        start=time(8),
        end=time(20),
        days=frozenset({0, 2, 5}),
        holiday_country="PT",
    )
    assert window_for(tenant) == window


@pytest.mark.django_db
def test_tenant_defaults_are_the_product_window(window: SendingWindow) -> None:
    tenant = make_tenant()
    tenant.refresh_from_db()
    assert window_for(tenant) == window
    no_holidays = make_tenant(holiday_country="")
    assert window_for(no_holidays).holiday_country == ""
    assert window_for(no_holidays).is_working_day(date(2026, 12, 1))


def test_next_day_opening_skips_the_rest_of_today_and_holidays():
    window = SendingWindow(
        tz=ZoneInfo("Europe/Bucharest"), start=time(9), end=time(18), days=frozenset(range(5))
    )
    friday = datetime(2026, 11, 27, 10, 0, tzinfo=ZoneInfo("Europe/Bucharest"))
    assert window.next_day_opening(friday) == datetime(
        2026, 12, 2, 9, 0, tzinfo=ZoneInfo("Europe/Bucharest")
    )
