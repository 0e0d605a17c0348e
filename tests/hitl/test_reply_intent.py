"""The journey's copy of its latest reply's intent (hitl.reply_intent), which the inbox's
"Hot" view and count read: through the real reply path, with triages finishing in either
order, it always equals what the message log says (the intent of the lead's latest reply,
"" while that one is not triaged)."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest

from hitl import inbox, replies, reply_intent, triage_jobs
from hitl.inbox import InboxQuery
from hitl.routing import HOT_INTENTS
from outreach.models import Journey, Lead, Message
from tests.factories import make_user
from tests.hitl.test_triage_jobs import replied

pytestmark = pytest.mark.django_db

ASKS_PRICE = "Bună ziua, cât costă analiza de sol pentru 120 de hectare?"
DECLINES = "Nu mulțumesc, nu suntem interesați."


@pytest.fixture(autouse=True)
def ai_budget_of_its_own(monkeypatch):
    monkeypatch.setattr(replies, "AI_LIMIT_KEY", f"ai-test-{uuid.uuid4()}-{{tenant_id}}")


def copy(lead: Lead) -> str:
    return Journey.objects.get(lead=lead).last_reply_intent


def from_the_log(lead: Lead) -> str:
    """The intent of the lead's latest reply, read from the message log."""
    latest = (
        Message.objects.filter(lead=lead, direction=Message.Direction.INBOUND)
        .order_by("-created_at", "-pk")
        .first()
    )
    return (((latest.analysis or {}).get("triage") or {}).get("intent") or "") if latest else ""


def intent_of(message: Message) -> str:
    message.refresh_from_db()
    return message.analysis["triage"]["intent"]


def test_the_copy_follows_the_latest_reply_whatever_order_the_triages_finish(world, clock):
    lead = world["leads"][0]

    first = replied(lead, ASKS_PRICE)
    assert copy(lead) == "" == from_the_log(lead)  # being analysed
    triage_jobs.run(first.pk)
    assert intent_of(first) in HOT_INTENTS  # the case is about a hot reply
    assert copy(lead) == intent_of(first) == from_the_log(lead)

    # A newer reply: not known until its triage, and an older triage finishing after it
    # does not take its place.
    clock.shift(timedelta(minutes=5))
    second = replied(lead, DECLINES)
    assert copy(lead) == "" == from_the_log(lead)
    clock.shift(timedelta(minutes=5))
    third = replied(lead, ASKS_PRICE)
    triage_jobs.run(third.pk)
    triage_jobs.run(second.pk)  # finishes last, but is not the latest reply
    assert intent_of(second) not in HOT_INTENTS
    assert copy(lead) == intent_of(third) == from_the_log(lead)

    # refresh works out the same from the log.
    Journey.objects.filter(lead=lead).update(last_reply_intent="")
    assert reply_intent.refresh(Journey.objects.filter(lead=lead)) == 1
    assert copy(lead) == from_the_log(lead)


def test_hot_view_and_count_read_the_copy(world, clock):
    operator = make_user(world["leads"][0].tenant)
    hot, cold = world["leads"]
    triage_jobs.run(replied(hot, ASKS_PRICE).pk)
    clock.shift(timedelta(minutes=1))
    triage_jobs.run(replied(cold, ASKS_PRICE).pk)
    clock.shift(timedelta(minutes=1))
    triage_jobs.run(replied(cold, DECLINES).pk)  # its latest reply declines: not hot now

    tenant = hot.tenant
    shown = [row.pk for row in inbox.page(tenant, operator, InboxQuery(view="hot")).rows]
    assert shown == [hot.pk]
    assert inbox.unread_counts(tenant, operator)["view:hot"] == 1
