"""The bounce shield's rule (a campaign pauses above 3 % bounces; docs/workers.md 42, 46).

One place decides whether a bounce rate is over its threshold; the integrations act on it
(Instantly: pause the campaign at the provider and raise an alert, on the webhook that tips
it over, not in a nightly job).

The minimum sample: a rate over a handful of sends says nothing (1 bounce in 10 is 10 %).
With MIN_SAMPLE = 100 sends and the default 3 % threshold the campaign pauses at its 4th
bounce in its first 100: if the list's real bounce rate is 1 %, that happens with a
probability of about 2 % (binomial, 100 trials); if it is 5 %, with about 74 %, and by 200
sends with about 87 %. A mailbox provider starts distrusting a sender well above 5 %, so
this catches a bad list while it costs a sender little, and rarely stops a good one.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from django.db.models import F, QuerySet

MIN_SAMPLE = 100


@dataclass(frozen=True)
class Verdict:
    breached: bool
    rate_percent: Decimal
    reason: str


def bounce_verdict(sent: int, bounced: int, threshold_percent: Decimal | float) -> Verdict:
    """Whether `bounced` of `sent` is over `threshold_percent` (strictly), on enough sends."""
    threshold = Decimal(str(threshold_percent))
    rate = (
        (Decimal(bounced) * 100 / Decimal(sent)).quantize(Decimal("0.01")) if sent else Decimal(0)
    )
    reason = f"bounce rate {rate}% ({bounced} of {sent} sent) over {threshold}%"
    if sent < MIN_SAMPLE:
        return Verdict(False, rate, f"{sent} sent: fewer than {MIN_SAMPLE} to judge")
    return Verdict(rate > threshold, rate, reason)


def count_send(rows: QuerySet) -> None:
    """One more email sent by these counters' owner (a campaign, a sender account)."""
    rows.update(sent=F("sent") + 1)


def count_bounce(rows: QuerySet) -> None:
    """One more bounce. Events arrive in any order: a bounce before its own `sent` (or for
    an email sent before we subscribed) counts the send too, so `bounced <= sent` holds and
    no bounce is lost to the shield; the late `sent` then errs by one towards a lower rate."""
    if not rows.filter(bounced__lt=F("sent")).update(bounced=F("bounced") + 1):
        rows.update(sent=F("sent") + 1, bounced=F("bounced") + 1)
