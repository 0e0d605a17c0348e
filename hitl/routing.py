"""Routing a triaged reply (seed workers J/L): AI reply, approval, or a review item.

Every rule that applies is weighed and the most urgent one decides:

| signal                                          | decision                            |
| a complaint (intent, or a complaint signal)     | review URGENT                       |
| sentiment < 0                                   | review URGENT                       |
| trigger keyword (urgent, preț, avocat …)        | review HIGH                         |
| a concrete meeting time ("joi la 10")           | review HIGH: a person confirms it   |
| sarcasm or irony                                | review MEDIUM at least: never an    |
|                                                 | automatic answer                    |
| sentiment 0–49                                  | review MEDIUM                       |
| sentiment ≥ 50, none of the above               | AI reply: sent when the tenant      |
|                                                 | allows auto-replies for the intent  |
|                                                 | and the triage is sure enough       |
|                                                 | (confidence ≥ 0.6, and the rules    |
|                                                 | and the model agree), else an       |
|                                                 | approval                            |
"""

from __future__ import annotations

from dataclasses import dataclass

from cerniq.models import Tenant
from outreach.models import POSITIVE_SENTIMENT, Priority

AUTO_REPLY_THRESHOLD = POSITIVE_SENTIMENT
# Below this confidence a positive reply is drafted for a person to approve, never sent
# automatically: on the old and development sets (5-fold cross-validation) every
# non-positive reply that reached the automatic path had a confidence under 0.6. The same
# when the offline triage's rules and model disagree ("uncertain"): in cross-validation
# that kept 247 of 276 automatic answers and removed the last wrong one.
AUTO_REPLY_MIN_CONFIDENCE = 0.6
_RANK = {Priority.MEDIUM: 1, Priority.HIGH: 2, Priority.URGENT: 3}


@dataclass(frozen=True)
class Route:
    action: str  # "auto_reply" | "approval" | "review"
    priority: str
    reason: str


def complains(intent: str, signals: tuple[str, ...] | list[str]) -> bool:
    """Whether a triaged reply is a complaint a person must see. The one decision, for an
    opt-out (hitl.replies.is_complaint) as for any reply: the intent, or the "complaint"
    signal that every backend takes from the offline rules (`hitl.triage.offline.find_signals`:
    the vocabulary `hitl.triage.rules.COMPLAINT_SIGNAL` and `outreach.optout.threatens`)."""
    return intent == "complaint" or "complaint" in signals


def route(
    tenant: Tenant,
    *,
    sentiment: int,
    intent: str,
    keywords: tuple[str, ...],
    signals: tuple[str, ...] = (),
    confidence: float = 1.0,
) -> Route:
    reviews: list[tuple[str, str]] = []
    if complains(intent, signals):
        reviews.append((Priority.URGENT, "complaint"))
    if sentiment < 0:
        reviews.append((Priority.URGENT, f"negative sentiment {sentiment}"))
    if keywords:
        reviews.append((Priority.HIGH, f"trigger keywords: {', '.join(keywords)}"))
    if "meeting_time" in signals:
        reviews.append((Priority.HIGH, "proposes a meeting time: a person confirms it"))
    if "sarcasm" in signals:
        reviews.append((Priority.MEDIUM, "sarcasm: never answered automatically"))
    if 0 <= sentiment < AUTO_REPLY_THRESHOLD:
        reviews.append((Priority.MEDIUM, f"sentiment {sentiment} below {AUTO_REPLY_THRESHOLD}"))
    if reviews:
        top = max(_RANK[priority] for priority, _ in reviews)
        priority = next(p for p, _ in reviews if _RANK[p] == top)
        return Route("review", priority, "; ".join(reason for _, reason in reviews))
    allowed = tenant.ai_auto_reply_intents
    sure = confidence >= AUTO_REPLY_MIN_CONFIDENCE and "uncertain" not in signals
    if tenant.ai_auto_reply_enabled and (not allowed or intent in allowed) and sure:
        return Route(
            "auto_reply", Priority.LOW, f"sentiment {sentiment}, intent {intent}: auto-reply"
        )
    if not tenant.ai_auto_reply_enabled:
        why = "auto-replies are off"
    elif allowed and intent not in allowed:
        why = f"{intent} needs approval"
    elif "uncertain" in signals:
        why = "the rules and the intent model disagree"
    else:
        why = f"confidence {confidence:.2f} below {AUTO_REPLY_MIN_CONFIDENCE}"
    return Route("approval", Priority.MEDIUM, f"sentiment {sentiment}, intent {intent}: {why}")
