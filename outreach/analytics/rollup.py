"""The daily roll-up of messages into DailyStats / TemplateDailyStats.

`rollup_day` replaces the tenant's rows of one day in one transaction, so running it
again gives the same rows; it issues a fixed number of queries whatever the volume.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import date, datetime, timedelta

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
from outreach.analytics.definitions import (
    DAILY_FIELDS,
    FAILED,
    FIRST_CONTACT,
    FOLLOW_UP,
    INBOUND,
    OPT_OUT,
    OPT_OUT_CONFIRMATION,
    POSITIVE,
    SENT,
    WENT_OUT_STATUSES,
    day_bounds,
)
from outreach.models import (
    DailyStats,
    Message,
    TemplateDailyStats,
    TemplateVersion,
)
from outreach.past_messages import NOT_HISTORY


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


def _in(field_name: str, start: datetime, end: datetime) -> Q:
    return Q(**{f"{field_name}__gte": start, f"{field_name}__lt": end})


def _daily_counts(start: datetime, end: datetime) -> dict[str, Count]:
    """The Count expressions of every DailyStats counter for messages of [start, end)."""
    out = Q(direction=Message.Direction.OUTBOUND) & NOT_HISTORY
    counted = out & ~OPT_OUT_CONFIRMATION
    sent = SENT & _in("sent_at", start, end)
    received = INBOUND & _in("created_at", start, end)
    failed_on = _in("failed_on", start, end)
    return {
        "sent": Count("pk", filter=sent),
        "new_contacts": Count("pk", filter=sent & FIRST_CONTACT),
        "follow_ups": Count("pk", filter=sent & FOLLOW_UP),
        # Of the messages "sent" counts: an opt-out confirmation is not delivered outreach.
        "delivered": Count("pk", filter=counted & _in("delivered_at", start, end)),
        "read": Count("pk", filter=counted & _in("read_at", start, end)),
        "replies": Count("pk", filter=received),
        "positive_replies": Count("pk", filter=received & POSITIVE),
        "bounces": Count("pk", filter=out & Q(status=Message.Status.BOUNCED) & failed_on),
        "opt_outs": Count("pk", filter=received & OPT_OUT),
        "failed": Count("pk", filter=out & FAILED & failed_on),
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


def last_automated(field: str) -> Subquery:
    """For an inbound message: `field` of the message its reply is attributed to, the last
    automated (not manual) outbound message sent to its lead at or before it, on any
    channel (NULL when there is none). The one attribution rule of every figure."""
    last = (
        Message.objects.filter(
            lead=OuterRef("lead"),
            direction=Message.Direction.OUTBOUND,
            is_manual=False,
            status__in=WENT_OUT_STATUSES,
            sent_at__lte=OuterRef("created_at"),
        )
        .order_by("-sent_at", "-pk")
        .values(field)[:1]
    )
    return Subquery(last, output_field=IntegerField())


def attributed_version() -> Subquery:
    """For an inbound message: the template version of the last automated outbound message
    sent to its lead at or before it (NULL when that message has none)."""
    return last_automated("template_version")


def _template_rows(tenant: Tenant, day: date, start: datetime, end: datetime) -> list:
    """TemplateDailyStats rows of the day: one query for sends, one for attributed replies."""
    sends = (
        Message.objects.filter(tenant=tenant, template_version__isnull=False)
        .filter(SENT & _in("sent_at", start, end))
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
    # Serialise concurrent rollups of one tenant (the scheduler and a manual run) with FOR
    # NO KEY UPDATE, never FOR UPDATE: a send's transaction checks its foreign keys to the
    # tenant when it commits (FOR KEY SHARE, which FOR UPDATE blocks), after it has updated
    # its template version's row, which this rollup then waits for: a deadlock.
    list(Tenant.objects.select_for_update(no_key=True).filter(pk=tenant.pk).values_list("pk"))

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
