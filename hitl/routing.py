"""Routing a triaged reply: an automatic answer, a draft to approve, or a review item, and
how urgent it is. The one place that decides a reply's priority (docs/review-queue.md).

Priority follows what the reply is worth and what it risks, never its tone alone: a
polite "no, thank you" is no emergency, a "yes" is.

| the reply                                              | priority | answered automatically? |
| interested, asks for a meeting or a call               | URGENT   | when sure, allowed, and |
|                                                        |          | it names no time        |
| a complaint, a legal or data-protection threat         | URGENT   | never                   |
| asks for a price, asks a concrete question             | HIGH     | never (score < 50)      |
| mentions a trigger keyword (preț, manager, avocat …)   | ≥ HIGH   | never                   |
| points to someone else, anything else                  | MEDIUM   | never                   |
| sounds ironic                                          | ≥ MEDIUM | never                   |
| "not now, maybe later"                                 | MEDIUM   | never                   |
| a plain decline, wrong person                          | LOW      | never                   |

Out-of-office replies and opt-outs never get here (hitl.replies): the first only move the
next step, the second are honoured by outreach.optout (with an URGENT item when they also
complain). Every rule that applies is named in the reason; the highest priority wins.
"""

from __future__ import annotations

from dataclasses import dataclass

from cerniq import reasons
from cerniq.models import Tenant
from hitl import reasons as why
from hitl.triage.base import Intent
from outreach.models import POSITIVE_SENTIMENT, Priority

AUTO_REPLY_THRESHOLD = POSITIVE_SENTIMENT
# Below this confidence a positive reply is drafted for a person to approve, never sent
# automatically: on the old and development sets (5-fold cross-validation) every
# non-positive reply that reached the automatic path had a confidence under 0.6. The same
# when the offline triage's rules and model disagree ("uncertain"): in cross-validation
# that kept 247 of 276 automatic answers and removed the last wrong one.
AUTO_REPLY_MIN_CONFIDENCE = 0.6
RANK: dict[str, int] = {Priority.LOW: 0, Priority.MEDIUM: 1, Priority.HIGH: 2, Priority.URGENT: 3}

# What a reply is worth: its intent's priority and the reason a person reads.
VALUE: dict[str, tuple[str, str]] = {
    Intent.INTERESTED: (Priority.URGENT, why.ROUTE_INTERESTED),
    Intent.MEETING_REQUEST: (Priority.URGENT, why.ROUTE_MEETING),
    Intent.COMPLAINT: (Priority.URGENT, why.ROUTE_COMPLAINT),
    Intent.PRICE_REQUEST: (Priority.HIGH, why.ROUTE_PRICE),
    Intent.QUESTION: (Priority.HIGH, why.ROUTE_QUESTION),
    Intent.REFERRAL: (Priority.MEDIUM, why.ROUTE_REFERRAL),
    Intent.OTHER: (Priority.MEDIUM, why.ROUTE_OTHER),
    Intent.NOT_INTERESTED: (Priority.LOW, why.ROUTE_DECLINE),
    Intent.WRONG_PERSON: (Priority.LOW, why.ROUTE_WRONG_PERSON),
    # Handled before routing (an opt-out, an autoreply); here only if a backend says so late.
    Intent.UNSUBSCRIBE: (Priority.LOW, why.ROUTE_OTHER),
    Intent.OUT_OF_OFFICE: (Priority.LOW, why.ROUTE_OTHER),
}
# Replies a person should hear of at once (hitl.hot_replies), whatever else is decided.
HOT_INTENTS = frozenset({Intent.INTERESTED, Intent.MEETING_REQUEST, Intent.PRICE_REQUEST})
MAX_REASONS = 3  # named in a stored reason (the column holds 255 characters)


@dataclass(frozen=True)
class Route:
    action: str  # "auto_reply" | "approval" | "review"
    priority: str
    reason: str  # a stored reason (cerniq.reasons)
    hot: bool = False  # a person should hear of it within seconds (hitl.hot_replies)


def complains(intent: str, signals: tuple[str, ...] | list[str]) -> bool:
    """Whether a triaged reply is a complaint a person must see. The one decision, for an
    opt-out (hitl.replies.is_complaint) as for any reply: the intent, or the "complaint"
    signal that every backend takes from the offline rules (`hitl.triage.offline.find_signals`:
    the vocabulary `hitl.triage.rules.COMPLAINT_SIGNAL` and `outreach.optout.threatens`)."""
    return intent == "complaint" or "complaint" in signals


def declines(intent: str, signals: tuple[str, ...] | list[str]) -> bool:
    """A plain decline: no interest, not "maybe later", no complaint. It closes the lead
    (outreach.stages.after_reply) and waits, LOW, for a person to confirm the close."""
    return intent == Intent.NOT_INTERESTED and not (
        "deferral" in signals or complains(intent, signals)
    )


def is_hot(intent: str, signals: tuple[str, ...] | list[str]) -> bool:
    """Interest, a meeting, a price: speed to lead decides the sale."""
    return intent in HOT_INTENTS and "sarcasm" not in signals and not complains(intent, signals)


def _reviews(
    intent: str, keywords: tuple[str, ...], signals: tuple[str, ...]
) -> list[tuple[str, str]]:
    """(priority, reason) of every rule that applies, the intent's value first."""
    priority, reason = VALUE.get(intent, (Priority.MEDIUM, why.ROUTE_OTHER))
    if intent == Intent.NOT_INTERESTED and "deferral" in signals:
        priority, reason = Priority.MEDIUM, why.ROUTE_DEFERRAL
    found = [(priority, reasons.code(reason))]
    if complains(intent, signals) and intent != Intent.COMPLAINT:
        found.append((Priority.URGENT, reasons.code(why.ROUTE_COMPLAINT)))
    if "meeting_time" in signals and intent != Intent.NOT_INTERESTED and "sarcasm" not in signals:
        found.append((Priority.URGENT, reasons.code(why.ROUTE_MEETING_TIME)))
    if keywords:
        found.append(
            (Priority.HIGH, reasons.code(why.ROUTE_KEYWORDS, keywords=", ".join(keywords)))
        )
    if "sarcasm" in signals:
        found.append((Priority.MEDIUM, reasons.code(why.ROUTE_SARCASM)))
    return found


def _stored(found: list[tuple[str, str]]) -> str:
    """One stored reason: the decisive one first, then the others that apply."""
    ordered = sorted(found, key=lambda row: -RANK[row[0]])  # stable: the intent first
    codes = list(dict.fromkeys(reason for _, reason in ordered))[:MAX_REASONS]
    return codes[0] if len(codes) == 1 else reasons.code(why.ROUTE_SEVERAL, reasons=codes)


def route(
    tenant: Tenant,
    *,
    sentiment: int,
    intent: str,
    keywords: tuple[str, ...],
    signals: tuple[str, ...] = (),
    confidence: float = 1.0,
) -> Route:
    found = _reviews(intent, keywords, signals)
    priority = max((p for p, _ in found), key=RANK.__getitem__)
    hot = is_hot(intent, signals)
    # An automatic answer only for a positive reply nothing argues against.
    blocked = len(found) > 1 or complains(intent, signals) or sentiment < AUTO_REPLY_THRESHOLD
    if blocked:
        return Route("review", priority, _stored(found), hot)
    allowed = tenant.ai_auto_reply_intents
    sure = confidence >= AUTO_REPLY_MIN_CONFIDENCE and "uncertain" not in signals
    if tenant.ai_auto_reply_enabled and (not allowed or intent in allowed) and sure:
        return Route("auto_reply", priority, reasons.code(why.ROUTE_AUTO_REPLY, intent=intent), hot)
    if not tenant.ai_auto_reply_enabled:
        held = reasons.code(why.ROUTE_APPROVAL_OFF)
    elif allowed and intent not in allowed:
        held = reasons.code(why.ROUTE_APPROVAL_INTENT, intent=intent)
    elif "uncertain" in signals:
        held = reasons.code(why.ROUTE_APPROVAL_UNCERTAIN)
    else:
        held = reasons.code(why.ROUTE_APPROVAL_CONFIDENCE, confidence=f"{confidence:.2f}")
    return Route("approval", priority, _stored([*found, (priority, held)]), hot)
