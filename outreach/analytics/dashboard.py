"""The dashboard's live figures: today's and the week's sends and replies per channel."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import date, datetime, timedelta

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


def message_stats(tenant: Tenant, today_start: datetime, week_start: datetime) -> dict:
    """Counts per channel for today and the week: two small grouped queries, added up here.

    Outbound: the week's sent messages (`SENT`, by sent_at) grouped by channel, new
    contact or follow-up (`FIRST_CONTACT`, `FOLLOW_UP`) and today or not; a sent message
    that is neither (a person's message, an AI answer) counts in "sent" only. Inbound: the
    week's replies (by created_at) by channel and today or not. The definitions are the
    roll-up's (outreach.analytics.definitions), so the dashboard and the analytics agree;
    grouping, rather than one FILTER per figure, evaluates each condition once per message.
    """
    messages = Message.objects.filter(tenant=tenant).order_by()
    outbound = (
        messages.filter(SENT, sent_at__gte=week_start)
        .annotate(
            first=_flag(FIRST_CONTACT),
            follow=_flag(FOLLOW_UP),
            today=_flag(Q(sent_at__gte=today_start)),
        )
        .values("channel", "first", "follow", "today")
        .annotate(n=Count("direction"))
    )
    inbound = (
        messages.filter(INBOUND, created_at__gte=week_start)
        .annotate(today=_flag(Q(created_at__gte=today_start)))
        .values("channel", "today")
        .annotate(n=Count("direction"))
    )
    by_channel: dict[str, Counter] = {}
    for row in outbound:
        counts = by_channel.setdefault(row["channel"], Counter())
        counts["sent_week"] += row["n"]
        if row["first"]:  # NULL (no step) is not a first contact
            kind = "new"
        elif row["follow"]:
            kind = "fu"
        else:
            continue
        counts[f"{kind}_week"] += row["n"]
        if row["today"]:
            counts[f"{kind}_today"] += row["n"]
    for row in inbound:
        counts = by_channel.setdefault(row["channel"], Counter())
        counts["replies_week"] += row["n"]
        if row["today"]:
            counts["replies_today"] += row["n"]

    def total(key: str) -> int:
        return sum(row.get(key, 0) for row in by_channel.values())

    rates = [
        ChannelRate(
            channel=value,
            label=label,
            sent=by_channel.get(value, Counter()).get("sent_week", 0),
            replies=by_channel.get(value, Counter()).get("replies_week", 0),
        )
        for value, label in Channel.choices
    ]
    return {
        "today": Period(total("new_today"), total("fu_today"), total("replies_today")),
        "week": Period(total("new_week"), total("fu_week"), total("replies_week")),
        "rates": rates,
    }
