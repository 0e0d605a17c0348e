"""Return dates in out-of-office replies: "până pe 15 decembrie", "until 3 January",
"revin la birou pe 12.01", "back on Monday" — on text already passed through `normalise`."""

from __future__ import annotations

import re
from datetime import date, timedelta

RO_MONTHS = (
    "ianuarie",
    "februarie",
    "martie",
    "aprilie",
    "mai",
    "iunie",
    "iulie",
    "august",
    "septembrie",
    "octombrie",
    "noiembrie",
    "decembrie",
)
EN_MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)

_MONTHS: dict[str, int] = {}
for _number, (_ro, _en) in enumerate(zip(RO_MONTHS, EN_MONTHS, strict=True), start=1):
    _MONTHS[_ro] = _MONTHS[_en.lower()] = _number
    _MONTHS[_en.lower()[:3]] = _number
_MONTHS.update({"ian": 1, "iun": 6, "iul": 7, "sept": 9, "noi": 11})

# "mai" is also "more" and "noi" also "we": after a day number they are months, but a
# month-first date ("Jan 8th") is only read from names that are not Romanian words.
_MONTH_FIRST = sorted((m for m in _MONTHS if m not in {"mai", "noi"}), key=len, reverse=True)
_ANY_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))

_ISO = re.compile(r"(?<!\d)(\d{4})-(\d{1,2})-(\d{1,2})(?!\d)")
_NUMERIC = re.compile(r"(?<![\d./])(\d{1,2})[./](\d{1,2})(?:[./](\d{4}|\d{2}))?(?![\d]|[./]\d)")
_DAY_MONTH = re.compile(
    rf"(?<![\d.])(\d{{1,2}})(?:st|nd|rd|th|-?lea|-?ul)?(?:\s+of)?\s+({_ANY_MONTH})\b\.?"
    r"(?:,?\s+(\d{4}))?"
)
_MONTH_DAY = re.compile(
    rf"\b({'|'.join(_MONTH_FIRST)})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s+(\d{{4}}))?"
)

_WEEKDAYS = {
    "luni": 0,
    "marti": 1,
    "miercuri": 2,
    "joi": 3,
    "vineri": 4,
    "sambata": 5,
    "duminica": 6,
    "monday": 0,
    "tuesday": 1,
    "wednesday": 2,
    "thursday": 3,
    "friday": 4,
    "saturday": 5,
    "sunday": 6,
}
_WEEKDAY = re.compile(r"(?:(\w+)\s+)?\b(" + "|".join(_WEEKDAYS) + r")\b")
# "două luni" is "two months", not "Monday".
_QUANTITY = {"doua", "trei", "patru", "cinci", "cateva", "multe", "cele", "ultimele", "cu"}
_RELATIVE = {"maine": 1, "tomorrow": 1, "poimaine": 2}
_NEXT_WEEK = re.compile(r"\b(saptamana viitoare|next week)\b")


def _make(year: int, month: int, day: int, today: date, explicit_year: bool) -> date | None:
    try:
        found = date(year, month, day)
    except ValueError:
        return None
    if not explicit_year and found < today:
        try:
            found = date(year + 1, month, day)
        except ValueError:  # 29 February
            return None
    return found


def _year(raw: str | None, today: date) -> tuple[int, bool]:
    if not raw:
        return today.year, False
    year = int(raw)
    return (2000 + year if year < 100 else year), True


def parse_return_date(norm: str, today: date) -> date | None:
    """The date the sender is back. Calendar dates win over weekdays and "tomorrow"; with
    several calendar dates ("from 20/12 to 06/01") the latest is the return. None if none."""
    dates: list[date | None] = []
    for match in _ISO.finditer(norm):
        dates.append(_make(int(match[1]), int(match[2]), int(match[3]), today, True))
    for match in _NUMERIC.finditer(norm):
        year, explicit = _year(match[3], today)
        dates.append(_make(year, int(match[2]), int(match[1]), today, explicit))
    for match in _DAY_MONTH.finditer(norm):
        year, explicit = _year(match[3], today)
        dates.append(_make(year, _MONTHS[match[2]], int(match[1]), today, explicit))
    for match in _MONTH_DAY.finditer(norm):
        year, explicit = _year(match[3], today)
        dates.append(_make(year, _MONTHS[match[1]], int(match[2]), today, explicit))
    calendar = [found for found in dates if found is not None]
    if calendar:
        return max(calendar)

    relative: list[date] = []
    for match in _WEEKDAY.finditer(norm):
        before, name = match[1], match[2]
        if name == "luni" and (before in _QUANTITY or (before or "").isdigit()):
            continue
        ahead = (_WEEKDAYS[name] - today.weekday()) % 7 or 7  # "back on Monday" on a Monday
        relative.append(today + timedelta(days=ahead))
    for word, days in _RELATIVE.items():
        if re.search(rf"\b{word}\b", norm):
            relative.append(today + timedelta(days=days))
    if _NEXT_WEEK.search(norm):
        relative.append(today + timedelta(days=7 - today.weekday()))
    return max(relative) if relative else None


def format_date(value: date, language: str) -> str:
    month = RO_MONTHS[value.month - 1] if language == "ro" else EN_MONTHS[value.month - 1]
    return f"{value.day} {month}"
