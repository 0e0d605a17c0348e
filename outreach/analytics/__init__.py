"""Analytics: the daily roll-up of messages into DailyStats / TemplateDailyStats, and the
report the analytics page reads from them.

Definitions (one place for all of them, `definitions.py`; in words: docs/figures.md):

- A tenant's *day* is its local calendar day (``Tenant.time_zone``), the same day the
  dashboard and the phone quotas use.
- *Sent* (`SENT`): an outbound message that went out (SENT/DELIVERED/READ, or BOUNCED
  later) whose ``sent_at`` falls in the day, except opt-out confirmations. A *new
  contact* is a sent message matching ``FIRST_CONTACT``; a *follow-up* (``FOLLOW_UP``) a
  sent later step of a sequence; a person's message or an AI answer is neither.
- *Delivered* / *read*: ``delivered_at`` / ``read_at`` in the day (events of the day,
  whatever day the message went out). *Failed*: FAILED or DEAD_LETTER (also once
  discarded from the dead letters), *bounces*: BOUNCED, dated by ``failed_at`` (else
  ``sent_at``, else ``created_at``).
- *Reply*: every inbound message received (``created_at``) in the day, as on the
  dashboard. An *opt-out* is a reply the reply path decided was one (`OPT_OUT`).
- *Positive reply*: a reply the AI triage scored at ``sentiment >= POSITIVE_SENTIMENT``
  (50: also the threshold above which hitl.routing answers with an AI reply) or classified
  with an interested intent (``POSITIVE_INTENTS``). Opt-outs are never positive.
- *Attribution*: a reply counts for the template version of the last automated (not
  manual) outbound message sent to the same lead at or before the reply, on any channel;
  when that message has no template version (an AI reply, an opt-out confirmation) or
  there is none, the reply is attributed to no version.

`rollup_day` replaces the tenant's rows of one day in one transaction, so running it
again gives the same rows; it issues a fixed number of queries whatever the volume.
"""

from outreach.analytics.dashboard import ChannelRate, Period, local_day_bounds, message_stats
from outreach.analytics.definitions import (
    DAILY_FIELDS,
    DEFAULT_RANGE_DAYS,
    FIRST_CONTACT,
    MAX_RANGE_DAYS,
    POSITIVE,
    RangeInvalid,
    day_bounds,
    default_range,
    local_today,
    rate,
    report_range,
)
from outreach.analytics.report import (
    ChannelSeries,
    Overview,
    Report,
    ResultRow,
    analytics_report,
    channel_series,
    overview,
    phone_results,
    template_results,
)
from outreach.analytics.rollup import (
    RollupCounts,
    attributed_version,
    days_between,
    refresh_version_totals,
    rollup_day,
    rollup_range,
)

__all__ = [
    "DAILY_FIELDS",
    "DEFAULT_RANGE_DAYS",
    "FIRST_CONTACT",
    "MAX_RANGE_DAYS",
    "POSITIVE",
    "ChannelRate",
    "ChannelSeries",
    "Overview",
    "Period",
    "RangeInvalid",
    "Report",
    "ResultRow",
    "RollupCounts",
    "analytics_report",
    "channel_series",
    "default_range",
    "overview",
    "phone_results",
    "report_range",
    "template_results",
    "attributed_version",
    "day_bounds",
    "days_between",
    "local_day_bounds",
    "local_today",
    "message_stats",
    "rate",
    "refresh_version_totals",
    "rollup_day",
    "rollup_range",
]
