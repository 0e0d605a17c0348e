"""The day and hour a lead proposes for a call: "putem vorbi joi la 10", "call me Tuesday at
3pm", "mâine după-amiază", "pe 3 decembrie, ora 14:30", "3.12 la 10:30" — read on text already
passed through `normalise` (lowercase, no diacritics), relative to when the reply was
written (the tenant's local time), so that the draft can name it back.

What is read: a day (a calendar date, "pe 14"/"on the 14th", azi/today, mâine/tomorrow,
poimâine, a weekday — "joia", "next Friday", "vineri săptămâna viitoare"), an hour ("la 10",
"ora 14:30", "10:30", "3pm", "la zece", "10 și jumătate", "after 5") and a part of the day
("dimineață", "după-amiază", "diseară"). A day or an hour in a negated clause ("joi nu pot")
is not a proposal. Bare hours without am/pm from 1 to 7 are afternoon hours (a business call
at 3 is at 15:00) unless the text says morning.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from hitl.triage.dates import _ANY_MONTH, _MONTH_FIRST, _MONTHS, _make, _year
from outreach.optout import one_edit_apart

WEEKDAY_NAMES = {
    # Romanian, with the articulated forms ("joia", "vinerea") and English, with short forms.
    0: ("luni", "lunea", "monday", "mon"),
    1: ("marti", "martea", "tuesday", "tue", "tues"),
    2: ("miercuri", "miercurea", "wednesday", "wed"),
    3: ("joi", "joia", "thursday", "thu", "thur", "thurs"),
    4: ("vineri", "vinerea", "friday", "fri"),
    5: ("sambata", "saturday"),
    6: ("duminica", "sunday"),
}
_WEEKDAY_OF = {name: day for day, names in WEEKDAY_NAMES.items() for name in names}
# Long names whose one-letter typos are still read ("miercur", "thrusday", "vinerii").
_FUZZY_WEEKDAYS = [name for name in _WEEKDAY_OF if len(name) >= 6]
# "două luni" / "3 luni" is "two months", not "Monday".
_NOT_MONDAY_BEFORE = {"doua", "trei", "patru", "cinci", "cateva", "multe", "cele", "ultimele"}

_RELATIVE = {
    "azi": 0,
    "astazi": 0,
    "today": 0,
    "diseara": 0,
    "tonight": 0,
    "maine": 1,
    "miine": 1,
    "mine": None,  # "mâine" without its diacritic is "mine" (me) too: only before a time
    "tomorrow": 1,
    "tomorow": 1,
    "tommorow": 1,
    "tommorrow": 1,
    "tmrw": 1,
    "poimaine": 2,
    "poimiine": 2,
}
_DAY_AFTER_TOMORROW = re.compile(r"\b(day after tomorrow|dupa maine|dupa-maine)\b")
_NEXT = re.compile(r"\b(?:saptamana|sapt|week) (?:viitoare|next)\b|\bnext week\b")

_NUMBER_WORDS = {
    "unu": 1,
    "una": 1,
    "doua": 2,
    "trei": 3,
    "patru": 4,
    "cinci": 5,
    "sase": 6,
    "sapte": 7,
    "opt": 8,
    "noua": 9,
    "zece": 10,
    "unsprezece": 11,
    "unspe": 11,
    "doisprezece": 12,
    "douasprezece": 12,
    "doispe": 12,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
}
_HOUR_WORD = "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True))
# Quantities that follow a number that is no hour: "la 10 ha", "10 tone", "10 lei".
_UNIT = (
    r"(?!\s?(?:ha|hectare|tone|tona|t|kg|lei|ron|euro|eur|%|km|litri|l|saci|bucati|buc|"
    r"zile|days|luni|months|ani|years|minute|minutes|min|ore|hours)\b)"
)
_MARKER = (
    r"(?P<rel>la ora|la orele|ora|orele|la|pe la|in jur de|catre|dupa ora|dupa|inainte de ora|"
    r"inainte de|de la ora|at|around|about|after|before|from|by)"
)
_CLOCK = r"(?P<h>[01]?\d|2[0-3])(?:[:.h](?P<m>[0-5]\d))?"
_SUFFIX = r"(?:\s?(?P<ampm>am|pm|a\.m\.|p\.m\.))?(?:\s?(?:h|fix|o clock|oclock))?"
_HALF = r"(?:\s(?P<half>si jumatate|si un sfert|si 30|si 15|si 45|fara un sfert))?"
_TIMES = (
    # "la 10", "ora 14:30", "after 5pm", "pe la 3 si jumatate"
    re.compile(rf"\b{_MARKER}\s{_CLOCK}{_SUFFIX}{_HALF}\b{_UNIT}"),
    # "la zece", "at ten", "ora doua si jumatate"
    re.compile(
        rf"\b{_MARKER}\s(?P<word>{_HOUR_WORD}){_SUFFIX}{_HALF}\b"
        r"(?!\s(?:ha|hectare|tone|zile|luni|ani|saptamani|ore|minute))"
    ),
    # "10:30", "14.30", "3pm", "3:30 pm", "14h"
    re.compile(r"(?<![\d.:/])(?P<h>[01]?\d|2[0-3])[:.](?P<m>[0-5]\d)(?![\d.:/])"),
    re.compile(r"(?<![\d.:/])(?P<h>1[0-2]|0?[1-9])(?::(?P<m>[0-5]\d))?\s?(?P<ampm>am|pm)\b"),
    re.compile(r"(?<![\d.:/])(?P<h>[01]?\d|2[0-3])\s?h\b"),
)
# "între 10 și 12", "between 2 and 4pm", "de la 9 la 11"
_BETWEEN = re.compile(
    r"\b(?:intre|between|de la|from)\s(?:orele\s|ora\s)?"
    r"(?P<h>[01]?\d|2[0-3])(?:[:.](?P<m>[0-5]\d))?\s?(?P<ampm>am|pm)?\s(?:si|and|-|la|to|until|till)\s(?:ora\s)?"
    r"(?P<h2>[01]?\d|2[0-3])(?:[:.](?P<m2>[0-5]\d))?\s?(?P<ampm2>am|pm)?\b" + _UNIT
)
_PARTS = (
    ("morning", re.compile(r"\b(dimineata|diminetile|in the morning|morning)\b")),
    ("afternoon", re.compile(r"\b(dupa[ -]?amiaza|dupa[ -]?masa|dupamasa|afternoon)\b")),
    ("evening", re.compile(r"\b(seara|diseara|in the evening|evening|tonight)\b")),
    ("noon", re.compile(r"\b(la pranz|pranz|at noon|noon|lunchtime|at lunch)\b")),
)
_NEGATED = re.compile(
    r"\b(nu|n|nici|not|cant|cannot|can t|dont|don t|wont|won t|unable|busy|ocupat|ocupata)\b"
)

_ISO = re.compile(r"(?<!\d)(\d{4})-(\d{1,2})-(\d{1,2})(?!\d)")
_NUMERIC = re.compile(r"(?<![\d./:])(\d{1,2})[./](\d{1,2})(?:[./](\d{4}|\d{2}))?(?![\d:]|[./]\d)")
_DAY_MONTH = re.compile(
    rf"(?<![\d.])(\d{{1,2}})(?:st|nd|rd|th|-?lea|-?ul)?(?:\s+of)?\s+({_ANY_MONTH})\b\.?"
    r"(?:,?\s+(\d{4}))?"
)
_MONTH_DAY = re.compile(
    rf"\b({'|'.join(_MONTH_FIRST)})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s+(\d{{4}}))?"
)
_DAY_OF_MONTH = re.compile(r"\b(?:pe|on the|on|the|in)\s(\d{1,2})(?:st|nd|rd|th|-?a)?\b" + _UNIT)


@dataclass(frozen=True)
class ProposedTime:
    """A day and/or an hour the lead proposed. `relation` says how the hour is meant: "at",
    "after" or "before"; `part` is a part of the day given without an hour."""

    day: date | None
    at: time | None = None
    relation: str = "at"  # "at" | "after" | "before" | "between" (then `until` ends it)
    part: str = ""  # "morning" | "afternoon" | "evening" | "noon" | ""
    until: time | None = None


def _clock(hour: int, minute: int, ampm: str, part: str) -> time | None:
    ampm = ampm.replace(".", "")
    if ampm == "pm" and hour < 12:
        hour += 12
    elif ampm == "am" and hour == 12:
        hour = 0
    elif not ampm and (
        (1 <= hour <= 7 and part != "morning")  # "la 3" is 15:00 in business
        or (part in ("afternoon", "evening") and hour < 12)
    ):
        hour += 12
    if not 0 <= hour <= 23 or not 0 <= minute <= 59:
        return None
    return time(hour, minute)


def _hour(match: re.Match[str], part: str) -> time | None:
    groups = match.groupdict()
    hour = _NUMBER_WORDS[groups["word"]] if groups.get("word") else int(groups["h"])
    minute = int(groups["m"]) if groups.get("m") else 0
    half = groups.get("half") or ""
    if half:
        minute = {"si 15": 15, "si un sfert": 15, "si 45": 45}.get(half, 30)
        if half == "fara un sfert":
            hour, minute = hour - 1, 45
    return _clock(hour, minute, groups.get("ampm") or "", part)


def _relation(match: re.Match[str]) -> str:
    rel = match.groupdict().get("rel") or ""
    if rel.startswith(("dupa", "after", "de la", "from")):
        return "after"
    if rel.startswith(("inainte", "before", "by")):
        return "before"
    return "at"


def _find_time(clause: str, part: str) -> tuple[time, str, time | None] | None:
    """The hour in a clause, how it is meant, and the end of a range ("între 10 și 12")."""
    for match in _BETWEEN.finditer(clause):
        start = _clock(int(match["h"]), int(match["m"] or 0), match["ampm"] or "", part)
        end = _clock(int(match["h2"]), int(match["m2"] or 0), match["ampm2"] or "", part)
        if start is not None and end is not None and start < end:
            return start, "between", end
    for pattern in _TIMES:
        for match in pattern.finditer(clause):
            found = _hour(match, part)
            if found is not None:
                return found, _relation(match), None
    return None


def _find_part(clause: str) -> str:
    for name, pattern in _PARTS:
        if pattern.search(clause):
            return name
    return ""


def _weekday_tokens(clause: str) -> list[tuple[int, int, str]]:
    """(position, weekday, token before) for each weekday name in a clause, typos included."""
    found = []
    words = list(re.finditer(r"[a-z]+", clause))
    for index, word in enumerate(words):
        token = word[0]
        day = _WEEKDAY_OF.get(token)
        if day is None and len(token) >= 6:
            day = next((_WEEKDAY_OF[n] for n in _FUZZY_WEEKDAYS if one_edit_apart(token, n)), None)
        if day is None:
            continue
        before = words[index - 1][0] if index else ""
        counted = clause[: word.start()].rstrip()[-1:].isdigit()  # "3 luni": months
        if day == 0 and word[0] == "luni" and (counted or before in _NOT_MONDAY_BEFORE):
            continue
        if token in ("mon", "wed", "fri", "thu", "tue") and before not in ("on", "next", "this"):
            continue  # short forms only where they cannot be another word
        found.append((word.start(), day, before))
    return found


def _next_weekday(weekday: int, now: datetime, hour: time | None, next_week: bool) -> date:
    today = now.date()
    if next_week:
        monday = today + timedelta(days=7 - today.weekday())
        return monday + timedelta(days=weekday)
    ahead = (weekday - today.weekday()) % 7
    if ahead == 0 and (hour is None or hour <= now.time()):
        ahead = 7  # "joi" said on a Thursday for an hour already gone: next Thursday
    return today + timedelta(days=ahead)


def _find_day(clause: str, now: datetime, hour: time | None, next_week: bool) -> date | None:
    today = now.date()
    for match in _ISO.finditer(clause):
        found = _make(int(match[1]), int(match[2]), int(match[3]), today, True)
        if found:
            return found
    for match in _DAY_MONTH.finditer(clause):
        year, explicit = _year(match[3], today)
        found = _make(year, _MONTHS[match[2]], int(match[1]), today, explicit)
        if found:
            return found
    for match in _MONTH_DAY.finditer(clause):
        year, explicit = _year(match[3], today)
        found = _make(year, _MONTHS[match[1]], int(match[2]), today, explicit)
        if found:
            return found
    for match in _NUMERIC.finditer(clause):
        if int(match[2]) > 12:  # 14.30 is an hour
            continue
        year, explicit = _year(match[3], today)
        found = _make(year, int(match[2]), int(match[1]), today, explicit)
        if found:
            return found
    if _DAY_AFTER_TOMORROW.search(clause):
        return today + timedelta(days=2)
    for word in re.findall(r"[a-z]+", clause):
        if word in _RELATIVE:
            days = _RELATIVE[word]
            if days is None:  # "mine": "mâine" only when an hour or a part of the day follows
                if not re.search(r"\bmine (la|dupa|dimineata|seara|pe la|ora|at)\b", clause):
                    continue
                days = 1
            return today + timedelta(days=days)
    weekdays = _weekday_tokens(clause)
    if weekdays:
        _, weekday, before = weekdays[0]
        following = before in ("next", "urmatoarea") or bool(
            re.search(r"\b(joia|vinerea|lunea|martea|miercurea) (viitoare|urmatoare)\b", clause)
        )
        return _next_weekday(weekday, now, hour, next_week or following)
    for match in _DAY_OF_MONTH.finditer(clause):
        number = int(match[1])
        month, year = today.month, today.year
        if number < today.day:
            month, year = (1, year + 1) if month == 12 else (month + 1, year)
        try:
            return date(year, month, number)
        except ValueError:
            continue
    return None


def find_proposed_time(norm: str, now: datetime) -> ProposedTime | None:
    """The first day/hour the lead proposes, relative to `now` (the reply's local time, naive
    or aware); None when the text names neither. A clause with a negation is skipped ("joi
    nu pot, dar vineri la 10 da" proposes Friday at 10)."""
    clauses = [c.strip() for c in CLAUSE_SPLIT_KEEP_TIMES.split(norm) if c and c.strip()]
    next_week = bool(_NEXT.search(norm))
    day: date | None = None
    at: tuple[time, str, time | None] | None = None
    part = ""
    for clause in clauses:
        if _NEGATED.search(clause):
            continue
        clause_part = _find_part(clause)
        clause_time = _find_time(clause, clause_part or part)
        clause_day = _find_day(clause, now, clause_time[0] if clause_time else None, next_week)
        if clause_day is None and clause_time is None and not clause_part:
            continue
        day = day or clause_day
        at = at or clause_time
        part = part or clause_part
        if day and at:
            break
    if day is None and at is None and not part:
        return None
    hour, relation, until = at if at else (None, "at", None)
    if "diseara" in norm.split() or "tonight" in norm.split():
        part = part or "evening"
    if day is None:
        if hour is None:  # "dimineața" alone names no day
            return None
        today = now.date()
        day = today if hour > now.time() else today + timedelta(days=1)
    if hour is not None and part not in ("noon",):
        part = ""
    if hour is None and part == "noon":
        hour, part = time(12, 0), ""
    return ProposedTime(day=day, at=hour, relation=relation, part=part, until=until)


# The clause split of the triage, but "10:30" and "3.12" stay whole (they hold ":" and ".").
CLAUSE_SPLIT_KEEP_TIMES = re.compile(
    r"(?<!\d)[.:](?!\d)|(?<=\d)[.:](?!\d)|(?<!\d)[.:](?=\d)|[!?;\n()]+|,|\s-\s|"
    r"\b(?:dar|insa|but|however|though)\b"
)
