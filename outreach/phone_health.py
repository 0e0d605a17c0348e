"""The phone health guard (seed workers 41 and 45): slow a number down, rest it, let it back.

Every few minutes (`manage.py check_phones`) each number of a tenant gets a score from what
it did over the last settings.PHONE_HEALTH_WINDOW_HOURS (72 h):

| signal            | measured as                                   | ok   | throttle | pause |
| failures in a row | its sends that ended FAILED or DEAD_LETTER    | 1    | 3        | 5     |
|                   | since its last successful one                 |      |          |       |
| undelivered       | share of its first messages older than        | 15 % | 30 %     | 50 %  |
|                   | PHONE_HEALTH_DELIVERY_GRACE_HOURS (6 h) still |      |          |       |
|                   | without a delivered tick (only providers that |      |          |       |
|                   | report delivery)                              |      |          |       |
| negative replies  | share of the leads it first contacted that    | 3 %  | 8 %      | 15 %  |
|                   | opted out after it or answered with block or  |      |          |       |
|                   | spam words                                    |      |          |       |
| disconnections    | times it went OFFLINE                         | 1    | 2        | 3     |

A signal costs nothing up to its "ok" value, 30 points at its "throttle" value and 60 at its
"pause" value (linear between and beyond, at most 100); the score is 100 minus the costs.
So one signal at its throttle value throttles the number (score 70), one at its pause
value pauses it (40), and two signals halfway there add up. The shares count only from
PHONE_HEALTH_MIN_SAMPLE messages or leads: three opt-outs of ten is noise, not a pattern.
Why these values: a WhatsApp number is restricted for the blocks and reports its messages
get and for messages nobody receives (docs/providers.md §4.4, 131048); a few percent of opt-outs
is normal for cold outreach, several times that is what gets numbers reported; a session
that keeps dropping is how a number's ban often starts.

What the score does (thresholds are settings, with hysteresis so a number does not flap):

- score <= PHONE_HEALTH_THROTTLE_SCORE (70): throttled, today's limit drops to
  PHONE_HEALTH_THROTTLE_SHARE of it (whatsapp.quota.day_limits), a PHONE_HEALTH alert;
- score <= PHONE_HEALTH_PAUSE_SCORE (40): paused, its queued work re-planned onto the
  healthy numbers (outreach.replanning.pause_phone), a critical alert;
- a paused number comes back, throttled, once it has rested PHONE_HEALTH_PAUSE_COOLDOWN_HOURS
  and scores above the throttle threshold; a throttled one is healthy again (the alert
  resolved) only at PHONE_HEALTH_RECOVER_SCORE (85);
- an operator who resumes a number the guard paused overrides it: it stays throttled but
  is not paused again for PHONE_HEALTH_OPERATOR_HOLD_HOURS.

Hard signals do not wait for the score: the provider saying the number is restricted
(`AccountRestricted`) pauses it at once (`restricted`), and a ban (`AccountBanned`) makes
it BANNED (outreach.transports). A number's status changes only through whatsapp.phones.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import transaction
from django.db.models import Count, F, Q
from django.db.models.functions import Left
from django.utils import timezone

from cerniq import reasons
from cerniq.models import Tenant
from cerniq.providers import get_backend
from outreach.models import SENT_STATUSES, Channel, Message
from outreach.optout import normalise
from outreach.replanning import pause_phone, replan
from whatsapp import phones
from whatsapp import reasons as codes
from whatsapp.models import Phone, PhoneStatusChange

log = logging.getLogger(__name__)

# Replies that say the person blocked or reported the number, or calls it spam, without
# asking to stop (an opt-out is counted from the journey: outreach.optout owns those words).
BLOCK_WORDS = re.compile(
    r"\b(?:spam\w*|block\w*|blocat\w*|blochez|blocam|raportez|raportat\w*|reported|"
    r"reporting|report you|scam\w*|teap\w*)\b"
)
REPLY_READ = 500  # characters of a reply read for block words (they come first)


@dataclass(frozen=True)
class Curve:
    """What a signal costs: 0 up to `ok`, 30 at `throttle`, 60 at `pause`, linear."""

    ok: float
    throttle: float
    pause: float

    def cost(self, value: float) -> float:
        if value <= self.ok:
            return 0.0
        if value <= self.throttle:
            return 30 * (value - self.ok) / (self.throttle - self.ok)
        return min(100.0, 30 + 30 * (value - self.throttle) / (self.pause - self.throttle))


FAILURES = Curve(ok=1, throttle=3, pause=5)
UNDELIVERED = Curve(ok=0.15, throttle=0.30, pause=0.50)
NEGATIVE = Curve(ok=0.03, throttle=0.08, pause=0.15)
DISCONNECTS = Curve(ok=1, throttle=2, pause=3)


@dataclass(frozen=True)
class Signals:
    """What one number did in the window."""

    failures: int = 0
    contacted: int = 0  # leads it first contacted
    negative: int = 0  # of those: opted out after it, or answered with block words
    judged: int = 0  # first messages old enough to judge delivery
    undelivered: int = 0  # of those: still without a delivered tick
    disconnects: int = 0
    tracks_delivery: bool = True


@dataclass(frozen=True)
class Score:
    value: int
    reasons: tuple[str, ...] = ()  # the signals that cost points (stored reasons), costliest first

    @property
    def reason(self) -> str:
        """The score and its signals as a stored reason (cerniq.reasons)."""
        return reasons.code(codes.HEALTH_SCORE, score=self.value, signals=list(self.reasons))


def score(signals: Signals) -> Score:
    """The 0-100 score of a number's signals (see the module's table)."""
    sample = settings.PHONE_HEALTH_MIN_SAMPLE
    costs: list[tuple[float, str]] = [
        (FAILURES.cost(signals.failures), reasons.code(codes.SIGNAL_FAILURES, n=signals.failures)),
        (
            DISCONNECTS.cost(signals.disconnects),
            reasons.code(codes.SIGNAL_DISCONNECTS, n=signals.disconnects),
        ),
    ]
    if signals.tracks_delivery and signals.judged >= sample:
        share = signals.undelivered / signals.judged
        said = reasons.code(codes.SIGNAL_UNDELIVERED, percent=round(100 * share))
        costs.append((UNDELIVERED.cost(share), said))
    if signals.contacted >= sample:
        share = signals.negative / signals.contacted
        said = reasons.code(codes.SIGNAL_NEGATIVE, percent=round(100 * share))
        costs.append((NEGATIVE.cost(share), said))
    costs = sorted((c for c in costs if c[0] > 0), key=lambda c: -c[0])
    value = max(0, round(100 - sum(cost for cost, _ in costs)))
    return Score(value, tuple(reason for _, reason in costs))


@dataclass
class HealthRun:
    tenant: str
    scored: int = 0
    changed: Counter[str] = field(default_factory=Counter)

    def summary(self) -> str:
        done = ", ".join(f"{k} {v}" for k, v in sorted(self.changed.items())) or "no changes"
        return f"{self.tenant}: {self.scored} phones scored; {done}"


def check_tenant(tenant: Tenant, *, now: datetime | None = None) -> HealthRun:
    """Score every number of the tenant that can send or rests, and act on the scores:
    a constant number of queries for all of them, plus the actions taken."""
    now = now or timezone.now()
    run = HealthRun(tenant=tenant.slug)
    candidates = Phone.objects.filter(
        tenant=tenant, status__in=(Phone.Status.ACTIVE, Phone.Status.PAUSED)
    )
    numbers = list(candidates.order_by("pk"))
    if not numbers:
        return run
    found = signals_of(numbers, now)
    scores = {}
    for phone in numbers:
        phone.tenant = tenant  # alerts name the tenant: no query per phone
        scores[phone.pk] = score(found[phone.pk])
        phone.health_score, phone.health_scored_at = scores[phone.pk].value, now
    Phone.objects.bulk_update(numbers, ["health_score", "health_scored_at"])
    run.scored = len(numbers)
    for phone in numbers:
        change = _act(phone, scores[phone.pk], now)
        if change:
            run.changed[change] += 1
            log.info("phone %s %s: %s", phone.pk, change, reasons.render(scores[phone.pk].reason))
    return run


def _act(phone: Phone, result: Score, now: datetime) -> str:
    """Move the number between healthy, throttled and paused; what changed ("" if nothing)."""
    throttle_at = settings.PHONE_HEALTH_THROTTLE_SCORE
    pause_at = settings.PHONE_HEALTH_PAUSE_SCORE
    if phone.status == Phone.Status.PAUSED:
        if phone.health != Phone.Health.PAUSED:
            return ""  # an operator paused it: theirs to resume
        rested = (phone.health_changed_at or now) + timedelta(
            hours=settings.PHONE_HEALTH_PAUSE_COOLDOWN_HOURS
        )
        if now >= rested and result.value > throttle_at:
            phones.resume(phone, by_health=True)
            return "resumed"
        return ""
    if phone.health == Phone.Health.PAUSED:  # back in rotation some other way
        before = codes.before_of(phone.health_reason)
        phones.set_health(
            phone, Phone.Health.THROTTLED, reasons.code(codes.BACK_IN_ROTATION, before=before)
        )
        return "throttled"
    held = phone.health_hold_until is not None and phone.health_hold_until > now
    if result.value <= pause_at and not held:
        pause_phone(phone, result.reason)
        return "paused"
    if phone.health == Phone.Health.OK and result.value <= throttle_at:
        phones.set_health(phone, Phone.Health.THROTTLED, result.reason)
        return "throttled"
    if phone.health != Phone.Health.OK and result.value >= settings.PHONE_HEALTH_RECOVER_SCORE:
        phones.set_health(phone, Phone.Health.OK, "")
        return "recovered"
    return ""


def restricted(phone: Phone, reason: str) -> None:
    """The provider restricts the number (a hard signal): paused at once, its queued work
    re-planned; it comes back like any number the guard paused, and its new chats rest
    longer still, then ramp up again (outreach.restriction_signs)."""
    said = reasons.code(codes.RESTRICTED, detail=reason)
    with transaction.atomic():
        if phone.status == Phone.Status.ACTIVE:
            pause_phone(phone, said)
        else:
            replan(phone)
        phones.pause_new_contacts(phone, said, alert=False)  # the pause alerted already


# --- signals ------------------------------------------------------------------------------


def signals_of(numbers: list[Phone], now: datetime) -> dict[int, Signals]:
    """Each number's signals in the window: four or five queries for all of them."""
    since = now - timedelta(hours=settings.PHONE_HEALTH_WINDOW_HOURS)
    judged_before = now - timedelta(hours=settings.PHONE_HEALTH_DELIVERY_GRACE_HOURS)
    ids = [p.pk for p in numbers]
    tenants = {p.tenant_id for p in numbers}  # (tenant, direction, sent_at) is indexed
    outbound = Message.objects.filter(
        tenant_id__in=tenants,
        phone_id__in=ids,
        channel=Channel.WHATSAPP,
        direction=Message.Direction.OUTBOUND,
    ).order_by()
    firsts = outbound.filter(quota_cost=1, status__in=SENT_STATUSES, sent_at__gte=since)
    old_enough = Q(sent_at__lte=judged_before)
    contacts = {
        row["phone_id"]: row
        for row in firsts.values("phone_id").annotate(
            contacted=Count("lead_id", distinct=True),
            opted_out=Count(
                "lead_id",
                distinct=True,
                filter=Q(lead__journey__whatsapp_opted_out_at__gte=F("sent_at")),
            ),
            judged=Count("pk", filter=old_enough),
            undelivered=Count("pk", filter=old_enough & Q(status=Message.Status.SENT)),
        )
    }
    blocked = _blocked(firsts, tenants, since)
    failures = dict(
        outbound.filter(
            status__in=(Message.Status.FAILED, Message.Status.DEAD_LETTER), failed_at__gte=since
        )
        .filter(Q(phone__last_sent_at__isnull=True) | Q(failed_at__gt=F("phone__last_sent_at")))
        .values("phone_id")
        .annotate(n=Count("pk"))
        .values_list("phone_id", "n")
    )
    disconnects = dict(
        PhoneStatusChange.objects.filter(
            phone_id__in=ids, status=Phone.Status.OFFLINE, at__gte=since
        )
        .order_by()
        .values("phone_id")
        .annotate(n=Count("pk"))
        .values_list("phone_id", "n")
    )
    result = {}
    for phone in numbers:
        row = contacts.get(phone.pk, {})
        result[phone.pk] = Signals(
            failures=failures.get(phone.pk, 0),
            contacted=row.get("contacted", 0),
            negative=row.get("opted_out", 0) + blocked.get(phone.pk, 0),
            judged=row.get("judged", 0),
            undelivered=row.get("undelivered", 0),
            disconnects=disconnects.get(phone.pk, 0),
            tracks_delivery=tracks_delivery(phone.provider),
        )
    return result


def _blocked(firsts, tenants: set[int], since: datetime) -> Counter[int]:
    """Per number: leads it first contacted (not opted out) whose WhatsApp reply in the
    window has block or spam words. One query, a second only when some do."""
    replies = (
        Message.objects.filter(
            tenant_id__in=tenants,
            channel=Channel.WHATSAPP,
            direction=Message.Direction.INBOUND,
            created_at__gte=since,
            lead__journey__whatsapp_opted_out=False,
            lead_id__in=firsts.values("lead_id"),
        )
        .order_by()
        .annotate(start=Left("body", REPLY_READ))
        .values_list("lead_id", "start")
    )
    leads = {lead_id for lead_id, text in replies if BLOCK_WORDS.search(normalise(text or ""))}
    if not leads:
        return Counter()
    pairs = firsts.filter(lead_id__in=leads).values_list("phone_id", "lead_id").distinct()
    return Counter(phone_id for phone_id, _ in set(pairs))


def tracks_delivery(provider: str) -> bool:
    """Whether the number's provider reports delivered ticks (the sandbox does not)."""
    try:
        backend = get_backend(f"whatsapp.{provider}")
    except ImproperlyConfigured:
        return False
    return bool(getattr(backend, "reports_delivery", True))
