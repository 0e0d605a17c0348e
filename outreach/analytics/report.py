"""The report the analytics page reads from the rolled-up statistics."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta

from django.db.models import Q, Sum

from cerniq.models import Tenant
from outreach.analytics.definitions import DAILY_FIELDS, rate
from outreach.analytics.rollup import days_between
from outreach.models import Channel, DailyStats, TemplateDailyStats


@dataclass
class ChannelSeries:
    channel: str
    label: str
    sent: list[int] = field(default_factory=list)
    replies: list[int] = field(default_factory=list)
    positive_replies: list[int] = field(default_factory=list)

    @property
    def total_sent(self) -> int:
        return sum(self.sent)

    @property
    def total_replies(self) -> int:
        return sum(self.replies)

    @property
    def total_positive(self) -> int:
        return sum(self.positive_replies)

    @property
    def reply_rate(self) -> float | None:
        return rate(self.total_replies, self.total_sent)

    @property
    def positive_rate(self) -> float | None:
        return rate(self.total_positive, self.total_sent)


@dataclass(frozen=True)
class ResultRow:
    """A row of the template or phone table: sums over the range."""

    key: int
    name: str
    detail: str
    channel: str
    sent: int
    replies: int
    positive_replies: int
    new_contacts: int = 0
    follow_ups: int = 0

    @property
    def channel_label(self) -> str:
        return str(Channel(self.channel).label)

    @property
    def reply_rate(self) -> float | None:
        return rate(self.replies, self.sent)

    @property
    def positive_rate(self) -> float | None:
        return rate(self.positive_replies, self.sent)


@dataclass(frozen=True)
class Report:
    start: date
    end: date
    days: list[date]
    channels: list[ChannelSeries]
    templates: list[ResultRow]
    phones: list[ResultRow]

    @property
    def daily_rows(self) -> list[dict]:
        """One table row per day: each channel's (sent, replies, positive) that day."""
        return [
            {
                "day": day,
                "cells": [(c.sent[i], c.replies[i], c.positive_replies[i]) for c in self.channels],
            }
            for i, day in enumerate(self.days)
        ]

    def chart_data(self) -> dict:
        """The series for the charts, JSON-ready (the template passes it via json_script)."""
        return {
            "days": [day.isoformat() for day in self.days],
            "channels": [
                {
                    "channel": c.channel,
                    "label": c.label,
                    "sent": c.sent,
                    "replies": c.replies,
                    "positive_replies": c.positive_replies,
                }
                for c in self.channels
            ],
        }


def analytics_report(tenant: Tenant, start: date, end: date) -> Report:
    """Everything the analytics page shows for [start, end], from the roll-up tables only:
    three queries whatever the range or the number of rows."""
    days, channels = channel_series(tenant, start, end)
    return Report(
        start,
        end,
        days,
        channels,
        template_results(tenant, start, end),
        phone_results(tenant, start, end),
    )


def channel_series(
    tenant: Tenant, start: date, end: date
) -> tuple[list[date], list[ChannelSeries]]:
    """The days of [start, end] and each channel's sent, replies and positive replies per
    day (all phones' rows): one query."""
    if end < start:
        raise ValueError(f"end {end} is before start {start}")
    days = days_between(start, end)
    index = {day: i for i, day in enumerate(days)}
    channels = {
        value: ChannelSeries(value, str(label), [0] * len(days), [0] * len(days), [0] * len(days))
        for value, label in Channel.choices
    }
    for row in DailyStats.objects.filter(
        tenant=tenant, day__gte=start, day__lte=end, phone__isnull=True
    ).values("day", "channel", "sent", "replies", "positive_replies"):
        series = channels.get(row["channel"])
        if series is None:
            continue
        i = index[row["day"]]
        series.sent[i] = row["sent"]
        series.replies[i] = row["replies"]
        series.positive_replies[i] = row["positive_replies"]
    return days, list(channels.values())


def template_results(tenant: Tenant, start: date, end: date) -> list[ResultRow]:
    """Each template version's sums over [start, end], per channel: one query."""
    return [
        ResultRow(
            key=row["template_version"],
            name=row["template_version__template__name"],
            detail=f"v{row['template_version__version']}",
            channel=row["channel"],
            sent=row["sent"],
            replies=row["replies"],
            positive_replies=row["positive"],
        )
        for row in TemplateDailyStats.objects.filter(tenant=tenant, day__gte=start, day__lte=end)
        .order_by()
        .values(
            "template_version",
            "template_version__template__name",
            "template_version__template_id",
            "template_version__version",
            "channel",
        )
        .annotate(sent=Sum("sent"), replies=Sum("replies"), positive=Sum("positive_replies"))
        .order_by("template_version__template__name", "template_version__version", "channel")
    ]


def phone_results(tenant: Tenant, start: date, end: date) -> list[ResultRow]:
    """Each phone's sums over [start, end], per channel: one query."""
    return [
        ResultRow(
            key=row["phone"],
            name=row["phone__number"],
            detail=row["phone__label"],
            channel=row["channel"],
            sent=row["sent"],
            replies=row["replies"],
            positive_replies=row["positive"],
            new_contacts=row["new"],
            follow_ups=row["follow"],
        )
        for row in DailyStats.objects.filter(
            tenant=tenant, day__gte=start, day__lte=end, phone__isnull=False
        )
        .order_by()
        .values("phone", "phone__number", "phone__label", "channel")
        .annotate(
            sent=Sum("sent"),
            replies=Sum("replies"),
            positive=Sum("positive_replies"),
            new=Sum("new_contacts"),
            follow=Sum("follow_ups"),
        )
        .order_by("phone__number", "channel")
    ]


OVERVIEW_DAYS = 7  # "the week": today and the six days before it, as on the dashboard


@dataclass(frozen=True)
class ChannelTotals:
    """A channel's DAILY_FIELDS counters summed over today and over the week."""

    channel: str
    label: str
    today: dict[str, int]
    week: dict[str, int]


@dataclass(frozen=True)
class Overview:
    day: date  # today, in the tenant's time zone
    since: date  # the week's first day
    channels: list[ChannelTotals]

    def total(self, period: str) -> dict[str, int]:
        return {name: sum(getattr(c, period)[name] for c in self.channels) for name in DAILY_FIELDS}


def overview(tenant: Tenant, today: date) -> Overview:
    """Today's and the last 7 days' counters per channel from the roll-up (all phones'
    rows; as fresh as the last `rollup_stats`): one grouped query."""
    since = today - timedelta(days=OVERVIEW_DAYS - 1)
    sums = {
        **{f"week_{name}": Sum(name) for name in DAILY_FIELDS},
        **{f"today_{name}": Sum(name, filter=Q(day=today)) for name in DAILY_FIELDS},
    }
    found = {
        row["channel"]: row
        for row in DailyStats.objects.filter(
            tenant=tenant, day__gte=since, day__lte=today, phone__isnull=True
        )
        .order_by()
        .values("channel")
        .annotate(**sums)
    }
    channels = [
        ChannelTotals(
            channel=value,
            label=str(label),
            today={n: found.get(value, {}).get(f"today_{n}") or 0 for n in DAILY_FIELDS},
            week={n: found.get(value, {}).get(f"week_{n}") or 0 for n in DAILY_FIELDS},
        )
        for value, label in Channel.choices
    ]
    return Overview(today, since, channels)
