"""Response-time figures read from hitl.ReplyResponse (docs/response-times.md): median and
90th percentile of the working time to the first human answer, per operator and per day,
how many replies were answered, closed without a message or are still waiting, and the
share answered within the review deadline. A fixed number of queries whatever the range.

(It lives in hitl, not outreach.analytics: the rows are hitl's, and outreach may not read
hitl.)
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime

from django.utils.translation import gettext as _

from cerniq.models import Tenant
from hitl.models import ReplyResponse
from outreach.hours import SendingWindow
from outreach.models import Channel

WAITING_SHOWN = 8


def duration_label(seconds: int | float | None) -> str:
    """A working-time duration as people say it: "1 h 20 min", "45 min", "under 1 min"."""
    if seconds is None:
        return "—"
    minutes = int(seconds) // 60
    if minutes < 1:
        return _("under 1 min")
    hours, minutes = divmod(minutes, 60)
    if not hours:
        return _("%(minutes)d min") % {"minutes": minutes}
    if not minutes:
        return _("%(hours)d h") % {"hours": hours}
    return _("%(hours)d h %(minutes)d min") % {"hours": hours, "minutes": minutes}


def percentile(values: list[int], share: float) -> int | None:
    """Nearest rank: the smallest value with at least `share` of the values at or below it."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


@dataclass
class Figures:
    """One group's figures (all replies of the range, an operator's or a day's)."""

    answered: int = 0
    handled: int = 0  # closed by a person without a message
    waiting: int = 0
    within_sla: int = 0
    seconds: list[int] = field(default_factory=list)

    def add(self, kind: str, working_seconds: int | None, sla_seconds: int | None) -> None:
        if kind == ReplyResponse.Kind.ANSWERED and working_seconds is not None:
            self.answered += 1
            self.seconds.append(working_seconds)
            if sla_seconds is not None and working_seconds <= sla_seconds:
                self.within_sla += 1
        elif kind == ReplyResponse.Kind.HANDLED:
            self.handled += 1
        elif not kind:
            self.waiting += 1

    @property
    def median_seconds(self) -> int | None:
        return int(statistics.median(self.seconds)) if self.seconds else None

    @property
    def p90_seconds(self) -> int | None:
        return percentile(self.seconds, 0.9)

    @property
    def median_label(self) -> str:
        return duration_label(self.median_seconds)

    @property
    def p90_label(self) -> str:
        return duration_label(self.p90_seconds)

    @property
    def within_sla_share(self) -> float | None:
        """Percent of the answered replies answered within their deadline."""
        return round(100 * self.within_sla / self.answered, 1) if self.answered else None


@dataclass
class OperatorFigures:
    user_id: int | None
    name: str
    figures: Figures


@dataclass
class DayFigures:
    day: date
    figures: Figures


@dataclass
class ResponseTimes:
    start: date
    end: date
    total: Figures
    operators: list[OperatorFigures]
    days: list[DayFigures]


def _name(first: str, last: str, username: str | None) -> str:
    return f"{first} {last}".strip() or username or _("someone")


def response_times(tenant: Tenant, start: date, end: date) -> ResponseTimes:
    """The figures of the replies received on the tenant's local days start..end (both
    included), answered whenever. One query."""
    rows = (
        ReplyResponse.objects.filter(tenant=tenant, local_day__gte=start, local_day__lte=end)
        .order_by()
        .values_list(
            "local_day",
            "kind",
            "working_seconds",
            "sla_seconds",
            "responder_id",
            "responder__first_name",
            "responder__last_name",
            "responder__username",
        )
    )
    total = Figures()
    days: dict[date, Figures] = defaultdict(Figures)
    operators: dict[int, OperatorFigures] = {}
    for day, kind, seconds, due, user_id, first, last, username in rows:
        total.add(kind, seconds, due)
        days[day].add(kind, seconds, due)
        if kind and user_id is not None:
            if user_id not in operators:
                name = _name(first or "", last or "", username)
                operators[user_id] = OperatorFigures(user_id, name, Figures())
            operators[user_id].figures.add(kind, seconds, due)
    return ResponseTimes(
        start=start,
        end=end,
        total=total,
        operators=sorted(operators.values(), key=lambda o: (o.name.lower(), o.user_id or 0)),
        days=[DayFigures(day, days[day]) for day in sorted(days)],
    )


@dataclass
class WaitingReply:
    response: ReplyResponse
    waited_seconds: int

    @property
    def waited_label(self) -> str:
        return duration_label(self.waited_seconds)

    @property
    def channel_label(self) -> str:
        return str(Channel(self.response.channel).label)


def waiting_longest(
    tenant: Tenant, now: datetime, limit: int = WAITING_SHOWN
) -> list[WaitingReply]:
    """The replies waiting longest for a person, oldest first, with the working time they
    have waited so far. One query."""
    window = SendingWindow.for_tenant(tenant)
    rows = (
        ReplyResponse.objects.filter(tenant=tenant, responded_at__isnull=True)
        .select_related("lead")
        .order_by("received_at", "pk")[:limit]
    )
    return [
        WaitingReply(row, int(window.working_time(row.received_at, now).total_seconds()))
        for row in rows
    ]
