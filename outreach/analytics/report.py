"""The report the analytics page reads from the rolled-up statistics."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from django.db.models import Sum

from cerniq.models import Tenant
from outreach.analytics.definitions import rate
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

    templates = [
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
    phones = [
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
    return Report(start, end, days, list(channels.values()), templates, phones)
