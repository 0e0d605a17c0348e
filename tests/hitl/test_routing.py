"""Routing a triaged reply: priority follows value and risk (issue 19 §2), the most urgent
applicable rule decides, and an automatic answer only goes out when nothing argues against
it. Real wordings through the whole reply path: tests/hitl/test_priority.py."""

from __future__ import annotations

import pytest
from django.utils import translation

from cerniq import reasons
from cerniq.models import Tenant
from hitl import reasons as why
from hitl.routing import AUTO_REPLY_MIN_CONFIDENCE, declines, is_hot, route


def tenant(**kw) -> Tenant:
    return Tenant(name="t", ai_auto_reply_enabled=True, ai_auto_reply_intents=[], **kw)


@pytest.mark.parametrize(
    ("kwargs", "action", "priority"),
    [
        # value: interest and meetings first, then prices and questions
        ({"sentiment": 75, "intent": "interested", "confidence": 0.5}, "approval", "URGENT"),
        ({"sentiment": 80, "intent": "meeting_request"}, "auto_reply", "URGENT"),
        (
            {"sentiment": 85, "intent": "meeting_request", "signals": ("meeting_time",)},
            "review",
            "URGENT",
        ),
        ({"sentiment": 30, "intent": "price_request"}, "review", "HIGH"),
        ({"sentiment": 20, "intent": "question"}, "review", "HIGH"),
        ({"sentiment": 20, "intent": "referral"}, "review", "MEDIUM"),
        ({"sentiment": 10, "intent": "other"}, "review", "MEDIUM"),
        # a plain decline is no emergency, however negative its score
        ({"sentiment": -35, "intent": "not_interested"}, "review", "LOW"),
        ({"sentiment": -60, "intent": "not_interested"}, "review", "LOW"),
        ({"sentiment": -20, "intent": "wrong_person"}, "review", "LOW"),
        (
            {"sentiment": 10, "intent": "not_interested", "signals": ("deferral",)},
            "review",
            "MEDIUM",
        ),
        # risk: complaints and legal threats, whatever the intent
        ({"sentiment": -60, "intent": "complaint"}, "review", "URGENT"),
        ({"sentiment": 20, "intent": "question", "signals": ("complaint",)}, "review", "URGENT"),
        (
            {"sentiment": -35, "intent": "not_interested", "signals": ("complaint",)},
            "review",
            "URGENT",
        ),
        # trigger keywords raise to at least HIGH, never lower
        ({"sentiment": -35, "intent": "not_interested", "keywords": ("pret",)}, "review", "HIGH"),
        ({"sentiment": 75, "intent": "interested", "keywords": ("pret",)}, "review", "URGENT"),
        # irony is never answered automatically, and is read as what it means
        ({"sentiment": 70, "intent": "interested", "signals": ("sarcasm",)}, "review", "URGENT"),
        (
            {"sentiment": -30, "intent": "not_interested", "signals": ("sarcasm",)},
            "review",
            "MEDIUM",
        ),
        # a time inside a sarcastic decline is no meeting
        (
            {
                "sentiment": -30,
                "intent": "not_interested",
                "signals": ("sarcasm", "meeting_time"),
            },
            "review",
            "MEDIUM",
        ),
        # the automatic path keeps its guards; the priority says how hot it is
        ({"sentiment": 70, "intent": "interested", "confidence": 0.59}, "approval", "URGENT"),
        (
            {"sentiment": 70, "intent": "interested", "signals": ("uncertain",)},
            "approval",
            "URGENT",
        ),
        ({"sentiment": 70, "intent": "interested", "confidence": 0.6}, "auto_reply", "URGENT"),
    ],
)
def test_priority_follows_value_and_risk(kwargs, action, priority):
    kwargs.setdefault("keywords", ())
    decision = route(tenant(), **kwargs)
    assert (decision.action, decision.priority) == (action, priority), reasons.render(
        decision.reason
    )


def test_the_issue_examples_are_the_right_way_round():
    yes = route(tenant(), sentiment=75, intent="interested", keywords=(), confidence=0.5)
    no = route(tenant(), sentiment=-35, intent="not_interested", keywords=())
    assert (yes.priority, no.priority) == ("URGENT", "LOW")
    assert yes.hot and not no.hot


def test_every_reason_that_applies_is_named_the_decisive_one_first():
    decision = route(
        tenant(),
        sentiment=-40,
        intent="not_interested",
        keywords=("avocat",),
        signals=("complaint",),
    )
    code, params = reasons.parse(decision.reason)
    assert code == why.ROUTE_SEVERAL
    assert [reasons.parse(r)[0] for r in params["reasons"]] == [
        why.ROUTE_COMPLAINT,
        why.ROUTE_KEYWORDS,
        why.ROUTE_DECLINE,
    ]
    with translation.override("en"):
        assert reasons.render(decision.reason) == (
            "Complaint or legal threat: a person answers it; Mentions: avocat; "
            "Declines: confirm the lead is closed, or reopen it"
        )


def test_approval_says_why_in_the_readers_language():
    low = route(tenant(), sentiment=70, intent="interested", keywords=(), confidence=0.4)
    assert reasons.parse(low.reason) == (
        why.ROUTE_SEVERAL,
        {
            "reasons": [
                why.ROUTE_INTERESTED,
                reasons.code(why.ROUTE_APPROVAL_CONFIDENCE, confidence="0.40"),
            ]
        },
    )
    off = route(
        Tenant(name="t", ai_auto_reply_enabled=False),
        sentiment=70,
        intent="interested",
        keywords=(),
    )
    assert off.action == "approval" and off.priority == "URGENT"
    with translation.override("en"):
        assert reasons.render(off.reason) == (
            "Interested: answer quickly; Automatic answers are off: approve the draft"
        )
    with translation.override("ro"):
        assert reasons.render(off.reason) == (
            "Interesat: răspunde repede; Răspunsurile automate sunt oprite: aprobă ciorna"
        )
    assert AUTO_REPLY_MIN_CONFIDENCE == 0.6


@pytest.mark.parametrize(
    ("intent", "signals", "hot", "decline"),
    [
        ("interested", (), True, False),
        ("meeting_request", ("meeting_time",), True, False),
        ("price_request", (), True, False),
        ("question", (), False, False),
        ("interested", ("sarcasm",), False, False),
        ("price_request", ("complaint",), False, False),  # a complaint goes its own way
        ("not_interested", (), False, True),
        ("not_interested", ("deferral",), False, False),  # "maybe in autumn" is no close
        ("not_interested", ("complaint",), False, False),
        ("wrong_person", (), False, False),
    ],
)
def test_what_is_hot_and_what_is_a_decline(intent, signals, hot, decline):
    assert is_hot(intent, signals) is hot
    assert declines(intent, signals) is decline
