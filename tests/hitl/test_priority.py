"""A reply's priority follows its value and its risk (issue 19 §2), through the whole reply
path (hitl.replies.process_reply): triage, routing, the review item, the stage."""

from __future__ import annotations

import pytest
from django.utils import translation

from cerniq import reasons
from hitl import reasons as hitl_reasons
from hitl.models import ReviewItem
from hitl.replies import process_reply
from outreach.models import Journey, Message, Priority, Stage, StageTransition
from tests.drain import run_triage
from tests.factories import make_lead, make_message
from tests.hitl.priority_dev import CASES

pytestmark = pytest.mark.usefixtures("clock")


def replied(tenant, text: str, *, stage: str = Stage.CONTACTED_WA):
    lead = make_lead(tenant)
    Journey.objects.filter(lead=lead).update(stage=stage)
    message = make_message(
        lead, direction=Message.Direction.INBOUND, status=Message.Status.RECEIVED, body=text
    )
    process_reply(lead, message)
    run_triage()  # the ai.triage workers
    return lead, Journey.objects.get(lead=lead)


def outcome(lead, journey) -> str:
    items = list(ReviewItem.objects.filter(lead=lead))
    if journey.whatsapp_opted_out:
        assert all(item.priority == Priority.URGENT for item in items)  # a complaint in it
        return "OPT_OUT"
    if not items:
        return "NONE"
    (item,) = items
    return item.priority


@pytest.mark.parametrize("case", CASES, ids=lambda case: f"{case.what}:{case.text[:40]}")
def test_every_wording_gets_the_priority_of_its_value_and_risk(tenant, case):
    lead, journey = replied(tenant, case.text)
    assert outcome(lead, journey) == case.outcome


@pytest.mark.parametrize(
    ("text", "priority", "stage"),
    [
        ("Da, sunt interesat", Priority.URGENT, Stage.WARM_REPLY),
        ("Nu sunt interesat", Priority.LOW, Stage.DEAD),
    ],
)
def test_the_hot_reply_outranks_the_decline(tenant, text, priority, stage):
    lead, journey = replied(tenant, text)
    item = ReviewItem.objects.get(lead=lead)
    assert item.priority == priority
    assert journey.stage == stage and journey.review_priority == priority


def test_a_decline_closes_the_lead_and_says_so_in_each_language(tenant):
    lead, journey = replied(tenant, "Mulțumim, dar nu avem nevoie momentan.")
    move = StageTransition.objects.get(journey=journey)
    assert (move.from_stage, move.to_stage) == (Stage.CONTACTED_WA, Stage.DEAD)
    assert reasons.is_code(move.reason, hitl_reasons.STAGE_DECLINE)
    with translation.override("en"):
        assert reasons.render(move.reason) == "Declined on WhatsApp"
    with translation.override("ro"):
        assert reasons.render(move.reason) == "A refuzat pe WhatsApp"
    item = ReviewItem.objects.get(lead=lead)
    assert item.priority == Priority.LOW and reasons.is_code(
        item.reason, hitl_reasons.ROUTE_DECLINE
    )


@pytest.mark.parametrize(
    "text",
    [
        "Sunt în concediu până pe 12 august.",  # out of office
        "Vă rog să nu-mi mai scrieți.",  # an opt-out
        "Nu sunt interesat, mulțumesc.",  # a decline
        "Poate la toamnă, acum nu e momentul.",  # not now: a person plans it, no warm reply yet
    ],
)
def test_only_a_real_reply_makes_a_warm_reply(tenant, text):
    lead, journey = replied(tenant, text)
    assert journey.stage != Stage.WARM_REPLY or "toamnă" in text
    moves = StageTransition.objects.filter(journey=journey, to_stage=Stage.WARM_REPLY)
    for move in moves:
        assert reasons.is_code(move.reason, hitl_reasons.STAGE_REPLY)


def test_a_real_reply_makes_a_warm_reply_with_a_coded_reason(tenant):
    lead, journey = replied(tenant, "Cât costă tona de azotat?")
    move = StageTransition.objects.get(journey=journey)
    assert move.to_stage == Stage.WARM_REPLY
    with translation.override("ro"):
        assert reasons.render(move.reason) == "A răspuns pe WhatsApp"


def test_a_decline_in_a_conversation_is_left_to_the_person_on_it(tenant):
    lead, journey = replied(tenant, "Nu mai suntem interesați, mulțumim.", stage=Stage.NEGOTIATION)
    assert journey.stage == Stage.NEGOTIATION
    assert not StageTransition.objects.filter(journey=journey).exists()
    assert ReviewItem.objects.get(lead=lead).priority == Priority.LOW
