"""A sequence's results per step and per template version under each step (the sequence
page, the sequences list and `GET /api/v1/sequences/{id}/stats/`).

A cohort view: the step messages that went out in the range (`SENT`, dated by `sent_at`,
in the tenant's local days; no range: all time), and what became of them whenever it
happened: delivered, read, bounced, and the replies attributed to them. A reply is
attributed by the rule every figure shares (`rollup.last_automated`): to the last
automated message the lead received before it, so a step's replies are those that came
after its message and before the lead's next automated message (the next step, an AI
answer). A step message counts once as replied, positive or opted out however many
replies it drew. In words: docs/figures.md, "Sequence results".

Delivered and read are shown only where the provider tells us: WhatsApp always (delivery
and read receipts), an email step once one of its emails was reported delivered (read):
cold email sent through Instantly without open tracking reports neither, and its figures
are unknown (None), not 0; their rates are taken over the sent messages of the steps
that report them.

Three queries whatever the number of steps, versions and messages.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import date

from django.db.models import Count, Exists, OuterRef, Q, QuerySet
from django.utils.translation import gettext as _

from cerniq.models import Tenant
from outreach.analytics.definitions import (
    INBOUND,
    OPT_OUT,
    POSITIVE,
    SENT,
    RangeInvalid,
    day_bounds,
    rate,
)
from outreach.analytics.rollup import last_automated
from outreach.models import Channel, Message, Sequence, SequenceStep, TemplateVersion

# Channels whose provider reports delivery and reads for every message it sends.
RECEIPT_CHANNELS = frozenset({Channel.WHATSAPP})
DELIVERED = Q(delivered_at__isnull=False) | Q(read_at__isnull=False)  # a read one arrived
READ = Q(read_at__isnull=False)
BOUNCED = Q(status=Message.Status.BOUNCED)


def _add(a: int | None, b: int | None) -> int | None:
    if a is None:
        return b
    return a if b is None else a + b


@dataclass(frozen=True)
class Figures:
    """Counts of step messages; `delivered` / `read` are None when no provider reports
    them, and their rates are over `delivered_of` / `read_of` (the sent messages of the
    steps that report them). Every other rate is over `sent`."""

    sent: int = 0
    delivered: int | None = None
    read: int | None = None
    replied: int = 0
    positive: int = 0
    opt_outs: int = 0
    bounces: int = 0
    delivered_of: int = 0
    read_of: int = 0

    def __add__(self, other: Figures) -> Figures:
        return Figures(
            sent=self.sent + other.sent,
            delivered=_add(self.delivered, other.delivered),
            read=_add(self.read, other.read),
            replied=self.replied + other.replied,
            positive=self.positive + other.positive,
            opt_outs=self.opt_outs + other.opt_outs,
            bounces=self.bounces + other.bounces,
            delivered_of=self.delivered_of + other.delivered_of,
            read_of=self.read_of + other.read_of,
        )

    @property
    def delivered_rate(self) -> float | None:
        return None if self.delivered is None else rate(self.delivered, self.delivered_of)

    @property
    def read_rate(self) -> float | None:
        return None if self.read is None else rate(self.read, self.read_of)

    @property
    def reply_rate(self) -> float | None:
        return rate(self.replied, self.sent)

    @property
    def positive_rate(self) -> float | None:
        return rate(self.positive, self.sent)

    @property
    def opt_out_rate(self) -> float | None:
        return rate(self.opt_outs, self.sent)

    @property
    def bounce_rate(self) -> float | None:
        return rate(self.bounces, self.sent)


@dataclass(frozen=True)
class VersionRow:
    version: TemplateVersion | None  # None: its version was deleted since
    figures: Figures


@dataclass(frozen=True)
class StepRow:
    step: SequenceStep | None  # None: its step was deleted since
    current: bool  # a step of the sequence's current version
    figures: Figures
    versions: list[VersionRow] = field(default_factory=list)


@dataclass(frozen=True)
class SequenceStats:
    sequence: Sequence
    start: date | None  # None: since the first message
    end: date | None  # None: up to now
    steps: list[StepRow]
    total: Figures

    @property
    def all_time(self) -> bool:
        return self.start is None and self.end is None


# The days a range may name: nothing was sent before the first, and a day past the last
# has no next day to end on (year 1 or 9999 broke the conversion to instants: a 500).
EARLIEST_DAY, LATEST_DAY = date(2000, 1, 1), date(2999, 12, 31)


def check_range(start: date | None, end: date | None) -> tuple[date | None, date | None]:
    """Either end may be open (all time when both are); an end before the start is refused
    with RangeInvalid("reversed"), as the analytics' ranges are, and a day outside
    EARLIEST_DAY..LATEST_DAY with RangeInvalid("out_of_range") naming its field."""
    for name, day in (("start", start), ("end", end)):
        if day is not None and not EARLIEST_DAY <= day <= LATEST_DAY:
            raise RangeInvalid(
                _("Choose a day between %(first)s and %(last)s.")
                % {"first": EARLIEST_DAY.isoformat(), "last": LATEST_DAY.isoformat()},
                "out_of_range",
                name,
            )
    if start is not None and end is not None and end < start:
        raise RangeInvalid(_("The end date is before the start date."), "reversed")
    return start, end


def _sent_in(tenant: Tenant, start: date | None, end: date | None) -> Q:
    """SENT, with `sent_at` inside the tenant's local days start..end (both included)."""
    sent = SENT
    if start is not None:
        sent &= Q(sent_at__gte=day_bounds(tenant, start)[0])
    if end is not None:
        sent &= Q(sent_at__lt=day_bounds(tenant, end)[1])
    return sent


def step_messages(tenant: Tenant, start: date | None, end: date | None) -> QuerySet[Message]:
    """The tenant's sequence messages that went out in the range (the cohort)."""
    return (
        Message.objects.filter(tenant=tenant, sequence__isnull=False)
        .filter(_sent_in(tenant, start, end))
        .order_by()
    )


def answered(
    tenant: Tenant, cohort: QuerySet[Message], start: date | None, only: Q = INBOUND
) -> QuerySet:
    """The ids of the messages the cohort's leads' replies (matching `only`) are attributed
    to (`rollup.last_automated`); the caller counts its cohort's messages among them."""
    # EXISTS per reply, not "lead IN (the cohort's leads)": replies are far fewer than the
    # cohort's messages, and SQLite would build the list again for each figure.
    replies = (
        Message.objects.filter(tenant=tenant)
        .filter(INBOUND)
        .filter(Exists(cohort.filter(lead=OuterRef("lead"))))
    )
    if start is not None:  # a reply never comes before the message it answers
        replies = replies.filter(created_at__gte=day_bounds(tenant, start)[0])
    return replies.filter(only).annotate(to=last_automated("pk")).order_by().values("to")


def _reply_counts(tenant: Tenant, cohort: QuerySet[Message], start: date | None) -> dict:
    """Cohort messages that drew a reply, a positive one, an opt-out: each counted once
    however many replies it drew (an IN over the attributed ids, computed once)."""
    return {
        "replied": Count("pk", filter=Q(pk__in=answered(tenant, cohort, start))),
        "positive": Count("pk", filter=Q(pk__in=answered(tenant, cohort, start, POSITIVE))),
        "opt_outs": Count("pk", filter=Q(pk__in=answered(tenant, cohort, start, OPT_OUT))),
    }


Key = tuple[int | None, int | None]  # (step id, template version id)


def _counts(
    tenant: Tenant, sequence: Sequence, start: date | None, end: date | None
) -> dict[Key, dict]:
    """Every count per (step, version) of the sequence's messages sent in the range: one
    query."""
    cohort = step_messages(tenant, start, end).filter(sequence=sequence)
    rows = cohort.values("step", "template_version").annotate(
        sent=Count("pk"),
        delivered=Count("pk", filter=DELIVERED),
        read=Count("pk", filter=READ),
        bounces=Count("pk", filter=BOUNCED),
        **_reply_counts(tenant, cohort, start),
    )
    return {(row["step"], row["template_version"]): row for row in rows}


def _figures(found: dict | None, *, delivery: bool, reads: bool) -> Figures:
    found = found or {}
    sent = found.get("sent", 0)
    return Figures(
        sent=sent,
        delivered=found.get("delivered", 0) if delivery else None,
        read=found.get("read", 0) if reads else None,
        replied=found.get("replied", 0),
        positive=found.get("positive", 0),
        opt_outs=found.get("opt_outs", 0),
        bounces=found.get("bounces", 0),
        delivered_of=sent if delivery else 0,
        read_of=sent if reads else 0,
    )


def _step_order(row: StepRow, current_version: int) -> tuple:
    step = row.step
    if step is None:
        return (2, 0, 0)
    return (0 if row.current else 1, current_version - step.sequence_version, step.position)


def sequence_stats(
    tenant: Tenant, sequence: Sequence, start: date | None = None, end: date | None = None
) -> SequenceStats:
    """The sequence's results per step and version over start..end (local days, both
    included; None: open). Steps of the current version always, with their template's
    active versions; older versions' steps when they sent in the range. Three queries."""
    if sequence.tenant_id != tenant.pk:
        raise ValueError("the sequence belongs to another tenant")
    start, end = check_range(start, end)
    counted = _counts(tenant, sequence, start, end)
    keys: set[Key] = set(counted)
    with_figures = {step_id for step_id, _version in keys}
    steps = {
        step.pk: step
        for step in SequenceStep.objects.filter(sequence=sequence).select_related("template")
        if step.sequence_version == sequence.version or step.pk in with_figures
    }
    current = {pk for pk, step in steps.items() if step.sequence_version == sequence.version}
    version_ids = {k[1] for k in keys if k[1] is not None}
    versions = {
        version.pk: version
        for version in TemplateVersion.objects.filter(
            Q(pk__in=version_ids)
            | Q(template__in={steps[pk].template_id for pk in current}, is_active=True)
        )
    }
    by_step: dict[int | None, set[int | None]] = defaultdict(set)
    for step_id, version_id in keys:
        by_step[step_id].add(version_id)
    for pk in current:  # a current step shows its template's active versions, sent or not
        template_id = steps[pk].template_id
        by_step[pk] |= {
            v.pk for v in versions.values() if v.is_active and v.template_id == template_id
        }
    rows = [
        _step_row(
            steps.get(step_id) if step_id is not None else None,
            step_id in current,
            version_keys,
            versions,
            counted,
        )
        for step_id, version_keys in by_step.items()
    ]
    rows.sort(key=lambda row: _step_order(row, sequence.version))
    total = sum((row.figures for row in rows), Figures())
    return SequenceStats(sequence, start, end, rows, total)


def _step_row(
    step: SequenceStep | None,
    current: bool,
    version_ids: Iterable[int | None],
    versions: dict[int, TemplateVersion],
    counted: dict[Key, dict],
) -> StepRow:
    step_id = step.pk if step is not None else None
    keys = [(step_id, version_id) for version_id in version_ids]
    receipts = step is not None and step.channel in RECEIPT_CHANNELS
    delivery = receipts or any(counted.get(k, {}).get("delivered") for k in keys)
    reads = receipts or any(counted.get(k, {}).get("read") for k in keys)
    version_rows = [
        VersionRow(
            versions.get(key[1]) if key[1] is not None else None,
            _figures(counted.get(key), delivery=delivery, reads=reads),
        )
        for key in keys
    ]
    version_rows.sort(key=lambda row: row.version.version if row.version else 1_000_000)
    figures = sum((row.figures for row in version_rows), Figures())
    if not version_rows:  # a current step whose template has no active version
        figures = replace(figures, delivered=0 if delivery else None, read=0 if reads else None)
    return StepRow(step, current, figures, version_rows)


@dataclass(frozen=True)
class Summary:
    """A sequence's totals on the sequences list (all time)."""

    sent: int = 0
    replied: int = 0
    positive: int = 0

    @property
    def reply_rate(self) -> float | None:
        return rate(self.replied, self.sent)

    @property
    def positive_rate(self) -> float | None:
        return rate(self.positive, self.sent)


def sequence_summaries(tenant: Tenant, sequence_ids: Iterable[int]) -> dict[int, Summary]:
    """Sent, replied and positive step messages per sequence, all time: one query."""
    ids = list(sequence_ids)
    if not ids:
        return {}
    cohort = step_messages(tenant, None, None).filter(sequence__in=ids)
    counts = _reply_counts(tenant, cohort, None)
    rows = cohort.values("sequence").annotate(
        sent=Count("pk"), replied=counts["replied"], positive=counts["positive"]
    )
    return {
        row["sequence"]: Summary(sent=row["sent"], replied=row["replied"], positive=row["positive"])
        for row in rows
    }
