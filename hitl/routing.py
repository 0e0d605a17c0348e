"""Routing a triaged reply (seed workers J/L): AI reply, approval, or a review item.

| signal                                   | decision                                   |
| trigger keyword (urgent, preț, avocat …) | review HIGH                                |
| sentiment < 0                            | review URGENT                              |
| sentiment 0–49                           | review MEDIUM                              |
| sentiment ≥ 50                           | AI reply: sent when the tenant allows auto- |
|                                          | replies for the intent, else an approval   |
"""

from __future__ import annotations

from dataclasses import dataclass

from cerniq.models import Tenant
from outreach.models import POSITIVE_SENTIMENT, Priority

AUTO_REPLY_THRESHOLD = POSITIVE_SENTIMENT


@dataclass(frozen=True)
class Route:
    action: str  # "auto_reply" | "approval" | "review"
    priority: str
    reason: str


def route(tenant: Tenant, *, sentiment: int, intent: str, keywords: tuple[str, ...]) -> Route:
    if keywords:
        return Route("review", Priority.HIGH, f"trigger keywords: {', '.join(keywords)}")
    if sentiment < 0:
        return Route("review", Priority.URGENT, f"negative sentiment {sentiment}")
    if sentiment < AUTO_REPLY_THRESHOLD:
        return Route(
            "review", Priority.MEDIUM, f"sentiment {sentiment} below {AUTO_REPLY_THRESHOLD}"
        )
    allowed = tenant.ai_auto_reply_intents
    if tenant.ai_auto_reply_enabled and (not allowed or intent in allowed):
        return Route(
            "auto_reply", Priority.LOW, f"sentiment {sentiment}, intent {intent}: auto-reply"
        )
    why = "auto-replies are off" if not tenant.ai_auto_reply_enabled else f"{intent} needs approval"
    return Route("approval", Priority.MEDIUM, f"sentiment {sentiment}, intent {intent}: {why}")
