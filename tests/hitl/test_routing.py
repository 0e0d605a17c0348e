"""Routing a triaged reply (issue #10 §2): the most urgent applicable rule decides, and an
automatic answer only goes out when nothing argues against it."""

from __future__ import annotations

import pytest

from cerniq.models import Tenant
from hitl.routing import AUTO_REPLY_MIN_CONFIDENCE, route


def tenant(**kw) -> Tenant:
    return Tenant(name="t", ai_auto_reply_enabled=True, ai_auto_reply_intents=[], **kw)


@pytest.mark.parametrize(
    ("kwargs", "action", "priority"),
    [
        # a complaint is URGENT even when a keyword alone would make it HIGH
        (
            {"sentiment": -60, "intent": "complaint", "keywords": ("reclamatie",)},
            "review",
            "URGENT",
        ),
        ({"sentiment": 20, "intent": "question", "signals": ("complaint",)}, "review", "URGENT"),
        ({"sentiment": -35, "intent": "not_interested", "keywords": ("pret",)}, "review", "URGENT"),
        ({"sentiment": 30, "intent": "price_request", "keywords": ("pret",)}, "review", "HIGH"),
        (
            {"sentiment": 80, "intent": "meeting_request", "signals": ("meeting_time",)},
            "review",
            "HIGH",
        ),
        ({"sentiment": 70, "intent": "interested", "signals": ("sarcasm",)}, "review", "MEDIUM"),
        ({"sentiment": 20, "intent": "question"}, "review", "MEDIUM"),
        ({"sentiment": 70, "intent": "interested", "confidence": 0.59}, "approval", "MEDIUM"),
        (
            {"sentiment": 70, "intent": "interested", "signals": ("uncertain",)},
            "approval",
            "MEDIUM",
        ),
        ({"sentiment": 70, "intent": "interested", "confidence": 0.6}, "auto_reply", "LOW"),
        ({"sentiment": 80, "intent": "meeting_request"}, "auto_reply", "LOW"),
    ],
)
def test_the_most_urgent_rule_decides(kwargs, action, priority):
    kwargs.setdefault("keywords", ())
    decision = route(tenant(), **kwargs)
    assert (decision.action, decision.priority) == (action, priority), decision.reason


def test_every_reason_that_applies_is_given():
    decision = route(
        tenant(), sentiment=-40, intent="complaint", keywords=("avocat",), signals=("complaint",)
    )
    assert decision.reason.startswith("complaint")
    assert "avocat" in decision.reason and "negative sentiment -40" in decision.reason


def test_approval_says_why():
    low = route(tenant(), sentiment=70, intent="interested", keywords=(), confidence=0.4)
    assert f"below {AUTO_REPLY_MIN_CONFIDENCE}" in low.reason
    off = route(
        Tenant(name="t", ai_auto_reply_enabled=False),
        sentiment=70,
        intent="interested",
        keywords=(),
    )
    assert off.action == "approval" and "auto-replies are off" in off.reason
