"""What a draft answers with besides the intent: the time the lead proposed, the person a
referral points to, the tenant's price-list answer and two call slots to offer — found by the
rules alone, given to the model too (hitl.triage.openai_compatible), so both drafts agree.

`DraftContext` is what the caller knows about the reply beyond its text (when it was written
in the tenant's time zone, the tenant's price list already rendered for the lead, its
working calendar); hitl.triage.context builds it from a lead and a message.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from hitl.triage.base import normalise
from hitl.triage.proposed_time import ProposedTime, find_proposed_time
from hitl.triage.referral import Referral, find_referral
from outreach.hours import SendingWindow

# The hours of the two call slots a draft offers when the lead named no time.
SLOT_HOURS = (time(10, 0), time(14, 0))


@functools.cache
def default_window() -> SendingWindow:
    """Monday to Friday, 9 to 18 in Bucharest, Romanian holidays: the tenant defaults."""
    return SendingWindow(
        tz=ZoneInfo("Europe/Bucharest"),
        start=time(9, 0),
        end=time(18, 0),
        days=frozenset(range(5)),
        holiday_country="RO",
    )


@dataclass(frozen=True)
class PriceList:
    """The tenant's answer to a price question: a link and/or a text (variables rendered)."""

    url: str = ""
    answer: str = ""

    @property
    def configured(self) -> bool:
        return bool(self.url.strip() or self.answer.strip())


@dataclass(frozen=True)
class DraftContext:
    received_at: datetime | None = None  # when the reply was written (aware or local)
    price_list: PriceList = field(default_factory=PriceList)
    window: SendingWindow | None = None  # the tenant's working calendar (default: RO 9-18)


@dataclass(frozen=True)
class DraftFacts:
    today: date
    proposed_time: ProposedTime | None = None
    referral: Referral = field(default_factory=Referral)
    price_list: PriceList = field(default_factory=PriceList)
    slots: tuple[datetime, ...] = ()
    # The reply asks for a price besides its intent ("Da, mă interesează. Cât costă?"): the
    # draft of an interest or a meeting answers that too (set by the backend's rules).
    asks_price: bool = False


def local_now(context: DraftContext | None, today: date | None) -> datetime:
    """The reply's local wall-clock time (naive), from the context, else midday of `today`."""
    window = (context.window if context else None) or default_window()
    if context and context.received_at is not None:
        received = context.received_at
        if received.tzinfo is not None:
            received = received.astimezone(window.tz)
        return received.replace(tzinfo=None)
    return datetime.combine(today or _local_today(window), time(12, 0))


def call_slots(now: datetime, window: SendingWindow) -> tuple[datetime, ...]:
    """Two call slots to offer: the next two working days after the reply's day, at 10:00
    and at 14:00 (moved into the tenant's hours when those are narrower)."""
    latest = (datetime.combine(now.date(), window.end) - timedelta(hours=1)).time()
    found: list[datetime] = []
    day = now.date()
    for _ in range(31):
        day += timedelta(days=1)
        if window.is_working_day(day):
            hour = SLOT_HOURS[len(found)]
            hour = min(max(hour, window.start), max(latest, window.start))
            found.append(datetime.combine(day, hour))
            if len(found) == len(SLOT_HOURS):
                break
    return tuple(found)


def extract(
    text: str, *, context: DraftContext | None, today: date | None, asks_price: bool = False
) -> DraftFacts:
    """Every fact a draft may use, whatever the intent (the draft picks what it needs)."""
    now = local_now(context, today)
    window = (context.window if context else None) or default_window()
    norm = normalise(text)
    return DraftFacts(
        today=now.date(),
        proposed_time=find_proposed_time(norm, now),
        referral=find_referral(text),
        price_list=context.price_list if context else PriceList(),
        slots=call_slots(now, window),
        asks_price=asks_price,
    )


def _local_today(window: SendingWindow) -> date:
    from django.utils import timezone

    return timezone.localtime(timezone.now(), window.tz).date()
