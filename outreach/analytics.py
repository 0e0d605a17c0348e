"""Analytics: the daily roll-up of messages into DailyStats / TemplateDailyStats, and the
report the analytics page reads from them.

Definitions (one place for all of them):

- A tenant's *day* is its local calendar day (``Tenant.time_zone``), the same day the
  dashboard and the phone quotas use.
- *Sent*: an outbound message in SENT/DELIVERED/READ whose ``sent_at`` falls in the day
  (the dashboard's definition). A *new contact* is a sent message matching
  ``FIRST_CONTACT``; a *follow-up* is any other sent automated (not manual) message.
- *Delivered* / *read*: ``delivered_at`` / ``read_at`` in the day (events of the day,
  whatever day the message went out). *Failed*: FAILED or DEAD_LETTER, *bounces*:
  BOUNCED, dated by ``failed_at`` (else ``sent_at``, else ``created_at``).
- *Reply*: every inbound message received (``created_at``) in the day, as on the
  dashboard. An *opt-out* is a reply whose routing decision starts with "opt-out".
- *Positive reply*: a reply the AI triage scored at ``sentiment >= POSITIVE_SENTIMENT``
  (50: also the threshold above which hitl.routing answers with an AI reply) or classified
  with an interested intent (``POSITIVE_INTENTS``). Opt-outs are never positive:
  their analysis holds the decision only, no triage.
- *Attribution*: a reply counts for the template version of the last automated (not
  manual) outbound message sent to the same lead at or before the reply, on any channel;
  when that message has no template version (an AI reply, an opt-out confirmation) or
  there is none, the reply is attributed to no version.

`rollup_day` replaces the tenant's rows of one day in one transaction, so running it
again gives the same rows; it issues a fixed number of queries whatever the volume.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta

from django.db import transaction
from django.db.models import (
    Count,
    F,
    IntegerField,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Sum,
    Value,
)
from django.db.models.functions import Coalesce, Least

from cerniq.models import Tenant
from outreach.hours import SendingWindow
from outreach.models import (
    POSITIVE_SENTIMENT,
    SENT_STATUSES,
    Channel,
    DailyStats,
    Message,
    TemplateDailyStats,
    TemplateVersion,
)

FAILED_STATUSES = (Message.Status.FAILED, Message.Status.DEAD_LETTER)
POSITIVE_INTENTS = ("interested", "meeting_request")
MAX_RANGE_DAYS = 366

# A first contact: a WhatsApp message that cost a new-contact slot, or the first step of
# an email sequence. Everything else automated is a follow-up.
FIRST_CONTACT = Q(quota_cost=1) | (~Q(channel=Channel.WHATSAPP) & Q(step__position=1))

INBOUND = Q(direction=Message.Direction.INBOUND)
OPT_OUT = INBOUND & Q(analysis__decision__startswith="opt-out")
# An opt-out reply carries no triage (replies._opt_out replaces its analysis), so it can
# never match POSITIVE.
POSITIVE = INBOUND & (
    Q(analysis__triage__sentiment__gte=POSITIVE_SENTIMENT)
    | Q(analysis__triage__intent__in=POSITIVE_INTENTS)
)

# The counters of a DailyStats row, in model order.
DAILY_FIELDS = (
    "sent",
    "new_contacts",
    "follow_ups",
    "delivered",
    "read",
    "replies",
    "positive_replies",
    "bounces",
    "opt_outs",
    "failed",
)


@dataclass(frozen=True)
class RollupCounts:
    """What one rollup wrote: rows, and the day's totals over all channels."""

    day: date
    channel_rows: int
    phone_rows: int
    template_rows: int
    sent: int
    replies: int
    positive_replies: int

    def __str__(self) -> str:
        return (
            f"{self.day}: {self.channel_rows} channel rows, {self.phone_rows} phone rows, "
            f"{self.template_rows} template rows; sent {self.sent}, replies {self.replies}, "
            f"positive {self.positive_replies}"
        )


def day_bounds(tenant: Tenant, day: date) -> tuple[datetime, datetime]:
    """The first instant of the tenant's local day and of the next one."""
    tz = SendingWindow.for_tenant(tenant).tz
    return (
        datetime.combine(day, time.min, tzinfo=tz),
        datetime.combine(day + timedelta(days=1), time.min, tzinfo=tz),
    )


def local_today(tenant: Tenant, now: datetime) -> date:
    return SendingWindow.for_tenant(tenant).local_date(now)


def _in(field_name: str, start: datetime, end: datetime) -> Q:
    return Q(**{f"{field_name}__gte": start, f"{field_name}__lt": end})


def _daily_counts(start: datetime, end: datetime) -> dict[str, Count]:
    """The Count expressions of every DailyStats counter for messages of [start, end)."""
    out = Q(direction=Message.Direction.OUTBOUND)
    sent = out & Q(status__in=SENT_STATUSES) & _in("sent_at", start, end)
    received = INBOUND & _in("created_at", start, end)
    failed_on = _in("failed_on", start, end)
    return {
        "sent": Count("pk", filter=sent),
        "new_contacts": Count("pk", filter=sent & FIRST_CONTACT),
        "follow_ups": Count("pk", filter=sent & ~FIRST_CONTACT & Q(is_manual=False)),
        "delivered": Count("pk", filter=out & _in("delivered_at", start, end)),
        "read": Count("pk", filter=out & _in("read_at", start, end)),
        "replies": Count("pk", filter=received),
        "positive_replies": Count("pk", filter=received & POSITIVE),
        "bounces": Count("pk", filter=out & Q(status=Message.Status.BOUNCED) & failed_on),
        "opt_outs": Count("pk", filter=received & OPT_OUT),
        "failed": Count("pk", filter=out & Q(status__in=FAILED_STATUSES) & failed_on),
    }


def _touching(start: datetime, end: datetime) -> Q:
    """Messages with any timestamp the day's counters look at inside [start, end)."""
    return (
        _in("sent_at", start, end)
        | _in("created_at", start, end)
        | _in("delivered_at", start, end)
        | _in("read_at", start, end)
        | _in("failed_at", start, end)
    )


def _messages(tenant: Tenant, start: datetime, end: datetime) -> QuerySet[Message]:
    return (
        Message.objects.filter(tenant=tenant)
        .filter(_touching(start, end))
        .annotate(failed_on=Coalesce("failed_at", "sent_at", "created_at"))
        .order_by()
    )


def attributed_version() -> Subquery:
    """For an inbound message: the template version of the last automated outbound message
    sent to its lead at or before it (NULL when that message has none)."""
    last_automated = (
        Message.objects.filter(
            lead=OuterRef("lead"),
            direction=Message.Direction.OUTBOUND,
            is_manual=False,
            status__in=SENT_STATUSES + (Message.Status.BOUNCED,),
            sent_at__lte=OuterRef("created_at"),
        )
        .order_by("-sent_at", "-pk")
        .values("template_version")[:1]
    )
    return Subquery(last_automated, output_field=IntegerField())


def _template_rows(tenant: Tenant, day: date, start: datetime, end: datetime) -> list:
    """TemplateDailyStats rows of the day: one query for sends, one for attributed replies."""
    sends = (
        Message.objects.filter(
            tenant=tenant,
            direction=Message.Direction.OUTBOUND,
            status__in=SENT_STATUSES,
            template_version__isnull=False,
        )
        .filter(_in("sent_at", start, end))
        .order_by()
        .values("template_version", "template_version__template__channel")
        .annotate(sent=Count("pk"))
    )
    replies = (
        Message.objects.filter(tenant=tenant, lead__isnull=False)
        .filter(INBOUND & _in("created_at", start, end))
        .annotate(version=attributed_version())
        .filter(version__isnull=False)
        .order_by()
        .values("version")
        .annotate(replies=Count("pk"), positive=Count("pk", filter=POSITIVE))
        .values("version", "replies", "positive")
    )
    rows: dict[int, dict] = defaultdict(lambda: {"sent": 0, "replies": 0, "positive": 0})
    channels: dict[int, str] = {}
    for row in sends:
        rows[row["template_version"]]["sent"] = row["sent"]
        channels[row["template_version"]] = row["template_version__template__channel"]
    for row in replies:
        rows[row["version"]]["replies"] = row["replies"]
        rows[row["version"]]["positive"] = row["positive"]
    missing = set(rows) - set(channels)
    if missing:  # versions that drew replies but sent nothing that day
        channels.update(
            TemplateVersion.objects.filter(pk__in=missing).values_list("pk", "template__channel")
        )
    return [
        TemplateDailyStats(
            tenant=tenant,
            day=day,
            template_version_id=version,
            channel=channels[version],
            sent=counts["sent"],
            replies=counts["replies"],
            positive_replies=counts["positive"],
        )
        for version, counts in sorted(rows.items())
    ]


def refresh_version_totals(version_ids: set[int]) -> int:
    """Set reply_count / positive_reply_count of these versions to their TemplateDailyStats
    totals, capped so that positive <= replies <= sent_count (the model's constraint)."""
    if not version_ids:
        return 0

    def total(name: str) -> Coalesce:
        summed = (
            TemplateDailyStats.objects.filter(template_version=OuterRef("pk"))
            .order_by()
            .values("template_version")
            .annotate(total=Sum(name))
            .values("total")
        )
        return Coalesce(Subquery(summed, output_field=IntegerField()), Value(0))

    replies = Least(total("replies"), F("sent_count"))
    return TemplateVersion.objects.filter(pk__in=version_ids).update(
        reply_count=replies,
        positive_reply_count=Least(total("positive_replies"), replies),
    )


@transaction.atomic
def rollup_day(tenant: Tenant, day: date) -> RollupCounts:
    """Recompute the tenant's DailyStats (per channel and per phone) and TemplateDailyStats
    rows of one local day, then the touched versions' totals. Idempotent."""
    start, end = day_bounds(tenant, day)
    # Serialise concurrent rollups of one tenant (the scheduler and a manual run).
    list(Tenant.objects.select_for_update().filter(pk=tenant.pk).values_list("pk"))

    grouped = list(
        _messages(tenant, start, end)
        .values("channel", "phone")
        .annotate(**_daily_counts(start, end))
    )
    per_channel: dict[str, dict[str, int]] = defaultdict(lambda: dict.fromkeys(DAILY_FIELDS, 0))
    phone_rows = []
    for row in grouped:
        counts = {name: row[name] for name in DAILY_FIELDS}
        if not any(counts.values()):
            continue
        totals = per_channel[row["channel"]]
        for name in DAILY_FIELDS:
            totals[name] += counts[name]
        if row["phone"] is not None:
            phone_rows.append(
                DailyStats(
                    tenant=tenant, day=day, channel=row["channel"], phone_id=row["phone"], **counts
                )
            )
    channel_rows = [
        DailyStats(tenant=tenant, day=day, channel=channel, phone=None, **counts)
        for channel, counts in sorted(per_channel.items())
    ]
    template_rows = _template_rows(tenant, day, start, end)

    DailyStats.objects.filter(tenant=tenant, day=day).delete()
    DailyStats.objects.bulk_create(channel_rows + phone_rows)
    old_versions = set(
        TemplateDailyStats.objects.filter(tenant=tenant, day=day).values_list(
            "template_version", flat=True
        )
    )
    TemplateDailyStats.objects.filter(tenant=tenant, day=day).delete()
    TemplateDailyStats.objects.bulk_create(template_rows)
    refresh_version_totals(old_versions | {row.template_version_id for row in template_rows})

    return RollupCounts(
        day=day,
        channel_rows=len(channel_rows),
        phone_rows=len(phone_rows),
        template_rows=len(template_rows),
        sent=sum(c["sent"] for c in per_channel.values()),
        replies=sum(c["replies"] for c in per_channel.values()),
        positive_replies=sum(c["positive_replies"] for c in per_channel.values()),
    )


def days_between(start: date, end: date) -> list[date]:
    return [start + timedelta(days=n) for n in range((end - start).days + 1)]


def rollup_range(tenant: Tenant, start: date, end: date) -> list[RollupCounts]:
    """`rollup_day` for every day from start to end, both included."""
    if end < start:
        raise ValueError(f"end {end} is before start {start}")
    return [rollup_day(tenant, day) for day in days_between(start, end)]


# --- The report (the analytics page) ----------------------------------------------------


def rate(part: int, whole: int) -> float | None:
    return round(100 * part / whole, 1) if whole else None


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
