"""Instantly's campaign time zones: a closed list of 102 IANA names (docs/providers.md §2.6).

`campaign_schedule.schedules[].timezone` accepts only the names below (Instantly API v2
OpenAPI, `POST /api/v2/campaigns`, copied from api-evangelist/instantly-ai
`openapi/_original/instantly-ai-api-v2-openapi.json` @d813d01). Common zones are missing
(America/New_York, Europe/London), so a tenant's zone is mapped to a listed zone that keeps
the same wall clock: the same UTC offset at every hour of the year the campaign runs in and
the next one, which also means the same DST rules and the same change-over instants. A
zone with no such twin is refused (`UnsupportedTimezone`), never approximated: a sending
window one hour off for half the year would send outside the tenant's hours.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

ALLOWED_TIMEZONES: tuple[str, ...] = (
    "Etc/GMT+12", "Etc/GMT+11", "Etc/GMT+10", "America/Anchorage", "America/Dawson",
    "America/Creston", "America/Chihuahua", "America/Boise", "America/Belize",
    "America/Chicago", "America/Bahia_Banderas", "America/Regina", "America/Bogota",
    "America/Detroit", "America/Indiana/Marengo", "America/Caracas", "America/Asuncion",
    "America/Glace_Bay", "America/Campo_Grande", "America/Anguilla", "America/Santiago",
    "America/St_Johns", "America/Sao_Paulo", "America/Argentina/La_Rioja", "America/Araguaina",
    "America/Godthab", "America/Montevideo", "America/Bahia", "America/Noronha",
    "America/Scoresbysund", "Atlantic/Cape_Verde", "Africa/Casablanca", "America/Danmarkshavn",
    "Europe/Isle_of_Man", "Atlantic/Canary", "Africa/Abidjan", "Arctic/Longyearbyen",
    "Europe/Belgrade", "Africa/Ceuta", "Europe/Sarajevo", "Africa/Algiers", "Africa/Windhoek",
    "Asia/Nicosia", "Asia/Beirut", "Africa/Cairo", "Asia/Damascus", "Europe/Bucharest",
    "Africa/Blantyre", "Europe/Helsinki", "Europe/Istanbul", "Asia/Jerusalem", "Africa/Tripoli",
    "Asia/Amman", "Asia/Baghdad", "Europe/Kaliningrad", "Asia/Aden", "Africa/Addis_Ababa",
    "Europe/Kirov", "Europe/Astrakhan", "Asia/Tehran", "Asia/Dubai", "Asia/Baku", "Indian/Mahe",
    "Asia/Tbilisi", "Asia/Yerevan", "Asia/Kabul", "Antarctica/Mawson", "Asia/Yekaterinburg",
    "Asia/Karachi", "Asia/Kolkata", "Asia/Colombo", "Asia/Kathmandu", "Antarctica/Vostok",
    "Asia/Dhaka", "Asia/Rangoon", "Antarctica/Davis", "Asia/Novokuznetsk", "Asia/Hong_Kong",
    "Asia/Krasnoyarsk", "Asia/Brunei", "Australia/Perth", "Asia/Taipei", "Asia/Choibalsan",
    "Asia/Irkutsk", "Asia/Dili", "Asia/Pyongyang", "Australia/Adelaide", "Australia/Darwin",
    "Australia/Brisbane", "Australia/Melbourne", "Antarctica/DumontDUrville",
    "Australia/Currie", "Asia/Chita", "Antarctica/Macquarie", "Asia/Sakhalin",
    "Pacific/Auckland", "Etc/GMT-12", "Pacific/Fiji", "Asia/Anadyr", "Asia/Kamchatka",
    "Etc/GMT-13", "Pacific/Apia",
)  # fmt: skip
_ALLOWED = frozenset(ALLOWED_TIMEZONES)
_HOURS_CHECKED = 2 * 366 * 24  # every hour of the campaign's year and the next
_DAILY, _HOURLY = 24, 1


class UnsupportedTimezone(ValueError):
    """No zone Instantly accepts keeps this zone's clock all year: refuse to schedule."""


@lru_cache(maxsize=512)
def _offsets(zone: str, year: int, step: int) -> tuple[int, ...]:
    """The zone's UTC offset (seconds) every `step` hours from 1 January of `year`, for two
    years.

    The final check is hourly, not daily: two zones can share offsets every day and still
    change over at different instants (Europe's 01:00 UTC against Moldova's 02:00 local),
    which moves a window's edge for that night. The daily pass only rules zones out fast."""
    tz = ZoneInfo(zone)
    start = datetime(year, 1, 1, tzinfo=UTC)
    return tuple(
        int((start + timedelta(hours=hour)).astimezone(tz).utcoffset().total_seconds())  # type: ignore[union-attr]
        for hour in range(0, _HOURS_CHECKED, step)
    )


def _region(zone: str) -> str:
    return zone.split("/", 1)[0]


def instantly_timezone(zone: str, *, year: int | None = None) -> str:
    """The Instantly zone for the IANA `zone`: itself when listed, else the first listed zone
    with the same offset at every hour of `year` (default: this year) and the next, zones
    of the same region ("Europe/…") first. Raises UnsupportedTimezone when none matches."""
    try:
        ZoneInfo(zone)
    except (ZoneInfoNotFoundError, ValueError):
        raise UnsupportedTimezone(f"{zone!r} is not an IANA time zone") from None
    if zone in _ALLOWED:
        return zone
    year = year or datetime.now(UTC).year
    daily = _offsets(zone, year, _DAILY)
    ordered = sorted(ALLOWED_TIMEZONES, key=lambda z: _region(z) != _region(zone))
    for candidate in ordered:
        if _offsets(candidate, year, _DAILY) == daily and _offsets(
            candidate, year, _HOURLY
        ) == _offsets(zone, year, _HOURLY):
            return candidate
    hours = sorted({offset / 3600 for offset in daily})
    raise UnsupportedTimezone(
        f"Instantly accepts no time zone that keeps {zone}'s clock in {year}-{year + 1} "
        f"(UTC offsets {', '.join(f'{h:+g}h' for h in hours)}); "
        "choose another tenant time zone for cold email"
    )
