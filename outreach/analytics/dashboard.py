"""The dashboard's live figures: today's and the week's sends and replies per channel."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from django.core.cache import cache
from django.db.models import BooleanField, Count, ExpressionWrapper, Q
from django.utils.functional import Promise

from cerniq.models import Tenant
from outreach.analytics.definitions import (
    FIRST_CONTACT,
    FOLLOW_UP,
    INBOUND,
    SENT,
    day_bounds,
    local_today,
    rate,
)
from outreach.analytics.reach import tenant_key
from outreach.models import Channel, Message


@dataclass(frozen=True)
class Period:
    new_contacts: int
    followups: int
    replies: int


@dataclass(frozen=True)
class ChannelRate:
    channel: str
    label: str | Promise  # lazy: in the language of whoever reads it
    sent: int
    replies: int

    @property
    def rate(self) -> float | None:
        return rate(self.replies, self.sent)


def local_day_bounds(tenant: Tenant, now: datetime) -> tuple[date, datetime, datetime]:
    """The tenant's local day, its first instant, and the first instant of the 7-day window."""
    today = local_today(tenant, now)
    today_start = day_bounds(tenant, today)[0]
    week_start = day_bounds(tenant, today - timedelta(days=6))[0]
    return today, today_start, week_start


def _flag(condition: Q) -> ExpressionWrapper:
    return ExpressionWrapper(condition, output_field=BooleanField())


# The six days before today no longer change (sends count by sent_at, replies by
# created_at, both in the past): counted once and kept, so that a dashboard polled every
# 15 seconds reads only today's messages. Kept a few minutes, not the whole day, so a
# figure corrected later (a backfill, a late import) shows soon.
EARLIER_DAYS_KEEP_SECONDS = 10 * 60


def _counts(tenant: Tenant, start: datetime, end: datetime | None) -> dict[str, Counter]:
    """Per channel: sent, new contacts, follow-ups and replies from `start` to `end`
    (open-ended when None): two small grouped queries."""
    messages = Message.objects.filter(tenant=tenant).order_by()
    sent = Q(SENT, sent_at__gte=start) & (Q(sent_at__lt=end) if end else Q())
    received = Q(INBOUND, created_at__gte=start) & (Q(created_at__lt=end) if end else Q())
    outbound = (
        messages.filter(sent)
        .annotate(first=_flag(FIRST_CONTACT), follow=_flag(FOLLOW_UP))
        .values("channel", "first", "follow")
        .annotate(n=Count("direction"))
    )
    inbound = messages.filter(received).values("channel").annotate(n=Count("direction"))
    by_channel: dict[str, Counter] = {}
    for row in outbound:
        counts = by_channel.setdefault(row["channel"], Counter())
        counts["sent"] += row["n"]
        if row["first"]:  # NULL (no step) is not a first contact
            counts["new"] += row["n"]
        elif row["follow"]:
            counts["fu"] += row["n"]
    for row in inbound:
        by_channel.setdefault(row["channel"], Counter())["replies"] += row["n"]
    return by_channel


def _earlier_days(tenant: Tenant, week_start: datetime, today_start: datetime) -> dict:
    key = f"dashboard-week:{tenant_key(tenant)}:{week_start.isoformat()}:{today_start.isoformat()}"
    kept = cache.get(key)
    if isinstance(kept, dict):
        return kept
    found = _counts(tenant, week_start, today_start)
    cache.set(key, found, EARLIER_DAYS_KEEP_SECONDS)
    return found


def message_stats(tenant: Tenant, today_start: datetime, week_start: datetime) -> dict:
    """Counts per channel for today and the week (today and the six days before).

    Outbound: sent messages (`SENT`, by sent_at) by channel, new contact or follow-up
    (`FIRST_CONTACT`, `FOLLOW_UP`); a sent message that is neither (a person's message, an
    AI answer) counts in "sent" only. Inbound: replies (by created_at) by channel. The
    definitions are the roll-up's (outreach.analytics.definitions), so the dashboard and
    the analytics agree. Today's figures are counted on every call; the six days before
    are kept a few minutes (`EARLIER_DAYS_KEEP_SECONDS`).
    """
    today = _counts(tenant, today_start, None)
    earlier = _earlier_days(tenant, week_start, today_start)
    week: dict[str, Counter] = {
        channel: today.get(channel, Counter()) + earlier.get(channel, Counter())
        for channel in set(today) | set(earlier)
    }

    def total(by_channel: dict[str, Counter], key: str) -> int:
        return sum(counts.get(key, 0) for counts in by_channel.values())

    rates = [
        ChannelRate(
            channel=value,
            label=label,
            sent=week.get(value, Counter()).get("sent", 0),
            replies=week.get(value, Counter()).get("replies", 0),
        )
        for value, label in Channel.choices
    ]
    return {
        "today": Period(total(today, "new"), total(today, "fu"), total(today, "replies")),
        "week": Period(total(week, "new"), total(week, "fu"), total(week, "replies")),
        "rates": rates,
    }
