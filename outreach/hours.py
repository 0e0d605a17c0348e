"""The sending window: when a tenant may send (local hours, working days, public holidays).

All instant arithmetic happens in UTC: Python compares and subtracts two datetimes that share
a tzinfo by wall time, which is wrong across a DST change.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from enum import StrEnum
from functools import lru_cache
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

import holidays

if TYPE_CHECKING:
    from cerniq.models import Tenant

SEARCH_DAYS = 366
_DELAY_UNITS = {"MINUTES": timedelta(minutes=1), "HOURS": timedelta(hours=1)}


@lru_cache(maxsize=256)
def _holiday_dates(country: str, year: int) -> frozenset[date]:
    """Public holidays of one country and year; computing them is slow, so cache per year."""
    return frozenset(holidays.country_holidays(country, years=year))


# A reader's language (Django's code) -> the holidays library's names, best first.
_HOLIDAY_LANGUAGES = {"ro": ("ro",), "en": ("en_US", "en_GB")}
_FALLBACK_LANGUAGES = ("en_US", "en_GB")


@lru_cache(maxsize=64)
def holiday_names(country: str, year: int, language: str) -> dict[date, str]:
    """A country's public holidays of one year, named in the reader's language when the
    library has it (else English, else the country's own); cached per year and language."""
    offered = holidays.country_holidays(country, years=year).supported_languages
    wanted = (*_HOLIDAY_LANGUAGES.get(language.split("-")[0], ()), *_FALLBACK_LANGUAGES)
    chosen = next((code for code in wanted if code in offered), None)
    return dict(holidays.country_holidays(country, years=year, language=chosen))


class Closure(StrEnum):
    """Why the window is closed at an instant."""

    WEEKEND = "weekend"  # Saturday or Sunday, not a working day
    DAY_OFF = "day_off"  # a weekday that is not one of the working days
    HOLIDAY = "holiday"  # a working day that is a public holiday
    OUTSIDE_HOURS = "outside_hours"  # a working day, before or after the sending hours


def _as_utc(at: datetime) -> datetime:
    """Reject naive datetimes: a wall time without a zone is ambiguous for a window check."""
    if at.tzinfo is None or at.utcoffset() is None:
        raise ValueError(f"aware datetime required, got naive {at!r}")
    return at.astimezone(UTC)


@dataclass(frozen=True)
class SendingWindow:
    """Local sending hours [start, end) on working days that are not public holidays."""

    tz: ZoneInfo
    start: time
    end: time
    days: frozenset[int]
    holiday_country: str = "RO"

    def __post_init__(self) -> None:
        """Fail at construction, not at the first send, on a window that makes no sense."""
        if self.start.tzinfo is not None or self.end.tzinfo is not None:
            raise ValueError("window start/end must be naive local times")
        if not self.start < self.end:
            raise ValueError(f"window start {self.start} must be before end {self.end}")
        if not self.days <= frozenset(range(7)):
            raise ValueError(f"working days must be weekdays 0..6, got {sorted(self.days)}")
        country = self.holiday_country
        if country and country not in holidays.list_supported_countries():
            raise ValueError(f"no public holiday calendar for country {country!r}")

    @classmethod
    def for_tenant(cls, tenant: Tenant) -> SendingWindow:
        """Build the window from the tenant's settings, the only source of truth for them."""
        return cls(
            tz=ZoneInfo(tenant.time_zone),
            start=tenant.window_start,
            end=tenant.window_end,
            days=frozenset(int(day) for day in tenant.working_days),
            holiday_country=(tenant.holiday_country or "").upper(),
        )

    def local_date(self, at: datetime) -> date:
        """The tenant's calendar day at an instant (quota days and working days use it)."""
        return _as_utc(at).astimezone(self.tz).date()

    def is_working_day(self, day: date) -> bool:
        """A configured weekday that is not a public holiday of the tenant's country."""
        if day.weekday() not in self.days:
            return False
        country = self.holiday_country
        return not country or day not in _holiday_dates(country, day.year)

    def is_open(self, at: datetime) -> bool:
        """Whether a message may be sent at this instant."""
        moment = _as_utc(at)
        day = self.local_date(moment)
        return self.is_working_day(day) and self._opening(day) <= moment < self._closing(day)

    def closure(self, at: datetime) -> Closure | None:
        """Why the window is closed at `at`; None when it is open."""
        if self.is_open(at):
            return None
        day = self.local_date(at)
        if day.weekday() not in self.days:
            return Closure.WEEKEND if day.weekday() >= 5 else Closure.DAY_OFF
        if not self.is_working_day(day):
            return Closure.HOLIDAY
        return Closure.OUTSIDE_HOURS

    def holidays_until(self, at: datetime, until: datetime) -> tuple[date, ...]:
        """The public holidays that keep the window shut from `at` to `until`: local days
        in between that would be working days otherwise."""
        if not self.holiday_country:
            return ()
        day, last = self.local_date(at), self.local_date(until)
        found = []
        while day <= last:
            if day.weekday() in self.days and not self.is_working_day(day):
                found.append(day)
            day += timedelta(days=1)
        return tuple(found)

    def next_opening(self, at: datetime) -> datetime:
        """The first instant at or after `at` when the window is open."""
        moment = _as_utc(at)
        if self.is_open(moment):
            return moment.astimezone(self.tz)
        if not self.days:
            raise ValueError("the sending window has no working days")
        first = self.local_date(moment)
        for offset in range(SEARCH_DAYS + 1):
            day = first + timedelta(days=offset)
            if self.is_working_day(day) and (opening := self._opening(day)) > moment:
                return opening.astimezone(self.tz)
        raise ValueError(f"the sending window does not open within {SEARCH_DAYS} days of {at}")

    def opened_for(self, at: datetime) -> datetime | None:
        """When `at` is an opening of the window, the start of the closed stretch before it
        (the previous closing): work put off to that opening was wanted from then on. None
        when `at` is no opening, or no closing precedes it within the search."""
        moment = _as_utc(at)
        day = self.local_date(moment)
        if not self.is_working_day(day) or self._opening(day) != moment:
            return None
        for offset in range(1, SEARCH_DAYS + 1):
            earlier = day - timedelta(days=offset)
            if self.is_working_day(earlier):
                return self._closing(earlier).astimezone(self.tz)
        return None

    def next_day_opening(self, at: datetime) -> datetime:
        """The first opening on a later local day (quota used up: try again tomorrow)."""
        tomorrow = self.local_date(_as_utc(at)) + timedelta(days=1)
        return self.next_opening(self._first_instant(tomorrow, time(0, 0)))

    def closing_of(self, at: datetime) -> datetime:
        """The end of the open window that contains `at`."""
        if not self.is_open(at):
            raise ValueError(f"the sending window is closed at {at}")
        return self._closing(self.local_date(at)).astimezone(self.tz)

    def add_delay(self, at: datetime, value: int, unit: str) -> datetime:
        """When a sequence step delayed by (value, unit) after `at` may be sent; always open."""
        if value < 0:
            raise ValueError(f"delay must not be negative, got {value}")
        if unit == "WORKING_DAYS":
            return self._add_working_days(at, value)
        if unit not in _DELAY_UNITS:
            raise ValueError(f"unknown delay unit {unit!r}")
        return self._add_open_time(at, value * _DELAY_UNITS[unit])

    def working_time(self, start: datetime, end: datetime) -> timedelta:
        """Open window time between two instants (how long a reply waited, in working
        hours): nights, days off and public holidays count nothing. Zero when `end` is not
        after `start`."""
        begin, finish = _as_utc(start), _as_utc(end)
        total = timedelta(0)
        day, last = self.local_date(begin), self.local_date(finish)
        while day <= last:
            if self.is_working_day(day):
                opened = max(begin, self._opening(day))
                closed = min(finish, self._closing(day))
                if closed > opened:
                    total += closed - opened
            day += timedelta(days=1)
        return total

    def _add_open_time(self, at: datetime, remaining: timedelta) -> datetime:
        """Consume open window time only; landing exactly on a closing moves to the next opening."""
        moment = _as_utc(self.next_opening(at))
        while True:
            closing = self._closing(self.local_date(moment))
            available = closing - moment
            if remaining < available:
                return (moment + remaining).astimezone(self.tz)
            remaining -= available
            moment = _as_utc(self.next_opening(closing))

    def _add_working_days(self, at: datetime, count: int) -> datetime:
        """Same local wall time `count` working days later, then the next opening from there."""
        local = _as_utc(at).astimezone(self.tz)
        if count == 0:
            return self.next_opening(local)
        day = local.date()
        for _ in range(count):
            day = self._next_working_day(day)
        return self.next_opening(self._first_instant(day, local.time()))

    def _next_working_day(self, day: date) -> date:
        """The first working day strictly after `day` (bounded search)."""
        for offset in range(1, SEARCH_DAYS + 1):
            candidate = day + timedelta(days=offset)
            if self.is_working_day(candidate):
                return candidate
        raise ValueError(f"no working day within {SEARCH_DAYS} days after {day}")

    def _opening(self, day: date) -> datetime:
        """UTC instant the window opens on a local day."""
        return self._first_instant(day, self.start)

    def _closing(self, day: date) -> datetime:
        """UTC instant the window closes on a local day."""
        return self._first_instant(day, self.end)

    def _first_instant(self, day: date, wall: time) -> datetime:
        """First UTC instant whose local time reaches `wall` on `day` (DST gaps and repeats)."""
        naive = datetime.combine(day, wall)
        earlier = datetime.combine(day, wall, tzinfo=self.tz).astimezone(UTC)  # fold=0: first
        if earlier.astimezone(self.tz).replace(tzinfo=None) == naive:
            return earlier
        # `wall` was skipped by a DST jump: the window edge is the jump itself.
        other = datetime.combine(day, wall, tzinfo=self.tz).replace(fold=1).astimezone(UTC)
        return self._transition(min(earlier, other), max(earlier, other), naive)

    def _transition(self, low: datetime, high: datetime, naive: datetime) -> datetime:
        """Bisect to the first second in [low, high] whose local wall time is >= `naive`."""
        while high - low > timedelta(seconds=1):
            middle = low + (high - low) / 2
            if middle.astimezone(self.tz).replace(tzinfo=None) >= naive:
                high = middle
            else:
                low = middle
        return high.replace(microsecond=0)  # transitions fall on whole seconds


def window_for(tenant: Tenant) -> SendingWindow:
    """Shorthand for callers that only hold a tenant."""
    return SendingWindow.for_tenant(tenant)
