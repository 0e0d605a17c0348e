"""The definitions every figure shares (see the package docstring): what counts as sent,
a new contact, a reply, a positive reply, an opt-out, and the tenant's local day."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta

from django.db.models import Q
from django.utils.translation import gettext as _

from cerniq.models import Tenant
from outreach.hours import SendingWindow
from outreach.models import POSITIVE_SENTIMENT, SENT_STATUSES, Channel, Message
from outreach.past_messages import NOT_HISTORY
from outreach.sequences import OPT_OUT_CONFIRMATION_PREFIX

FAILED_STATUSES = (Message.Status.FAILED, Message.Status.DEAD_LETTER)
# A failed message: FAILED, a dead letter, or a dead letter an operator (or the purge)
# discarded since, which is CANCELLED with its `failed_at` kept (outreach.deadletters):
# discarding it does not undo the failure in that day's figures.
FAILED = Q(status__in=FAILED_STATUSES) | Q(status=Message.Status.CANCELLED, failed_at__isnull=False)
POSITIVE_INTENTS = ("interested", "meeting_request")
MAX_RANGE_DAYS = 366
DEFAULT_RANGE_DAYS = 30  # a report without dates covers the last 30 days, today included

# The statuses of a message that went out: a bounce went out too (it bounced later, and
# counting it as sent keeps a day's "sent" from shrinking when the bounce arrives).
WENT_OUT_STATUSES = (*SENT_STATUSES, Message.Status.BOUNCED)
# Our confirmation to someone who just opted out: a courtesy, not outreach.
OPT_OUT_CONFIRMATION = Q(idempotency_key__startswith=OPT_OUT_CONFIRMATION_PREFIX)
# Sent: an outbound message that went out (sequence steps, a person's messages, AI
# answers), except opt-out confirmations. Dated by `sent_at` (callers add the range).
# A chat's history fetched afterwards (outreach.past_messages) is no message of ours in
# any figure: neither sent nor received nor failed.
SENT = (
    Q(direction=Message.Direction.OUTBOUND, status__in=WENT_OUT_STATUSES)
    & Q(sent_at__isnull=False)
    & ~OPT_OUT_CONFIRMATION
    & NOT_HISTORY
)
# A first contact: a WhatsApp message that cost a new-contact slot or that the person asked
# for (`solicited`: it costs no slot, docs/lead-rules.md), or the first step of an email
# sequence.
FIRST_CONTACT = (
    Q(quota_cost=1) | Q(solicited=True) | (~Q(channel=Channel.WHATSAPP) & Q(step__position=1))
)
# A follow-up: a later automated step of a sequence. Not an AI answer to a reply, not a
# person's message, not an opt-out confirmation (none of them has a step).
FOLLOW_UP = Q(step__isnull=False, is_manual=False) & ~FIRST_CONTACT

INBOUND = Q(direction=Message.Direction.INBOUND) & NOT_HISTORY
# The reply path stores the decision as a reason code (hitl.reasons DECISION_OPT_OUT and
# DECISION_OPT_OUT_COMPLAINT, both "hitl.decision.opt_out…"); rows stored before reason codes
# carry text starting "opt-out". (outreach may not import hitl: the codes are spelled here.)
OPTED_OUT = Q(analysis__decision__startswith="hitl.decision.opt_out") | Q(
    analysis__decision__startswith="opt-out"
)
OPT_OUT = INBOUND & OPTED_OUT
# An opt-out reply may carry a triage too (kept to spot complaints): it is never positive.
POSITIVE = (
    INBOUND
    & (
        Q(analysis__triage__sentiment__gte=POSITIVE_SENTIMENT)
        | Q(analysis__triage__intent__in=POSITIVE_INTENTS)
    )
    & (Q(analysis__decision__isnull=True) | ~OPTED_OUT)
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


def day_bounds(tenant: Tenant, day: date) -> tuple[datetime, datetime]:
    """The first instant of the tenant's local day and of the next one."""
    tz = SendingWindow.for_tenant(tenant).tz
    return (
        datetime.combine(day, time.min, tzinfo=tz),
        datetime.combine(day + timedelta(days=1), time.min, tzinfo=tz),
    )


def local_today(tenant: Tenant, now: datetime) -> date:
    return SendingWindow.for_tenant(tenant).local_date(now)


def rate(part: int, whole: int) -> float | None:
    return round(100 * part / whole, 1) if whole else None


class RangeInvalid(ValueError):
    """A report range the analytics refuse; `code` is `reversed`, `too_long` or
    `out_of_range`; `field` names the date at fault (`start` or `end`)."""

    def __init__(self, message: str, code: str, field: str = "end") -> None:
        super().__init__(message)
        self.code = code
        self.field = field


def default_range(today: date) -> tuple[date, date]:
    return today - timedelta(days=DEFAULT_RANGE_DAYS - 1), today


def report_range(today: date, start: date | None, end: date | None) -> tuple[date, date]:
    """A report's days (both included): the last DEFAULT_RANGE_DAYS when a date is missing,
    at most MAX_RANGE_DAYS, never ending before it starts (the page and the API)."""
    default_start, default_end = default_range(today)
    start, end = start or default_start, end or default_end
    if end < start:
        raise RangeInvalid(_("The end date is before the start date."), "reversed")
    if (end - start).days + 1 > MAX_RANGE_DAYS:
        raise RangeInvalid(
            _("Choose a range of at most %(days)d days.") % {"days": MAX_RANGE_DAYS}, "too_long"
        )
    return start, end
