"""Issue #10 §2 on the reply path: complaints that ask to stop are opted out and reviewed
URGENT, sarcasm never gets an automatic answer, a concrete meeting time goes to a person
HIGH, return dates are read relative to the message's own day, huge texts are bounded."""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import replace
from datetime import date, datetime, timedelta
from unittest import mock
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone

from cerniq import reasons
from cerniq.models import Tenant
from hitl import reasons as hitl_reasons
from hitl.models import ReviewItem
from hitl.replies import process_reply
from hitl.triage import offline
from hitl.triage.base import MAX_TRIAGE_CHARS
from integrations.timelinesai.inbound import handle_received
from outreach import optout
from outreach.dispatch import dispatch_due
from outreach.models import Enrollment, Journey, Message
from outreach.sending import send_message
from tests.drain import run_triage
from tests.factories import make_outreach_world
from tests.whatsapp.conftest import MONDAY_10
from tests.whatsapp.test_replies import queued_follow_up, reply

BUCHAREST = ZoneInfo("Europe/Bucharest")


@pytest.fixture
def contacted(tenant, clock):
    """Three leads that got step 1 (sent) and have step 2 QUEUED (as in test_replies)."""
    world = make_outreach_world(tenant, leads=3, phones=1, steps=3)
    dispatch_due(tenant)
    for message in Message.objects.all():
        assert send_message(message.pk).kind == "sent"
    Journey.objects.update(next_action_at=MONDAY_10)
    clock.shift(timedelta(hours=1))
    Journey.objects.update(next_action_at=MONDAY_10 + timedelta(minutes=30))
    dispatch_due(tenant)
    assert Message.objects.filter(status="QUEUED").count() == 3
    return world


def inbound(lead) -> Message:
    return Message.objects.get(lead=lead, direction="IN")


@pytest.mark.parametrize(
    "text",
    [
        "De unde aveți numărul meu? Ștergeți-mi datele, altfel fac plângere la ANSPDCP.",
        "Dacă mă mai contactați, vă dau în judecată.",
        "V-am mai spus o dată: nu mai trimiteți mesaje!",
        "I never gave you consent. Remove me under GDPR or my lawyer will call.",
    ],
)
def test_a_complaint_that_asks_to_stop_is_opted_out_and_reviewed_urgent(contacted, text):
    lead = contacted["leads"][0]
    handle_received(lead.tenant, reply(lead, text))
    run_triage()
    journey = Journey.objects.get(lead=lead)
    assert journey.whatsapp_opted_out
    assert Message.objects.filter(lead=lead, idempotency_key__startswith="optout-confirm:")
    assert queued_follow_up(lead).status == "CANCELLED"
    item = ReviewItem.objects.get(lead=lead)
    assert item.priority == "URGENT" and item.kind == "REPLY" and item.message == inbound(lead)
    assert journey.requires_human_review and journey.review_priority == "URGENT"
    decision = inbound(lead).analysis["decision"]
    assert reasons.is_code(decision, hitl_reasons.DECISION_OPT_OUT_COMPLAINT)


def test_a_plain_stop_opens_no_review_item(contacted):
    lead = contacted["leads"][0]
    handle_received(lead.tenant, reply(lead, "Nu mai doresc să primesc mesaje, mulțumesc."))
    run_triage()
    assert Journey.objects.get(lead=lead).whatsapp_opted_out
    assert not ReviewItem.objects.exists()


@pytest.mark.parametrize(
    "text",
    [
        "Fac reclamație, mi-ați trimis alt tip de semințe decât am comandat!",
        "Cine v-a dat numărul meu de telefon?",
        "Avocatul meu vă va contacta în legătură cu factura.",
    ],
)
def test_a_complaint_without_a_stop_is_reviewed_urgent(contacted, text):
    lead = contacted["leads"][0]
    handle_received(lead.tenant, reply(lead, text))
    run_triage()
    assert not Journey.objects.get(lead=lead).whatsapp_opted_out
    assert ReviewItem.objects.get(lead=lead).priority == "URGENT"


@pytest.mark.parametrize(
    "text",
    [
        "Super, încă un mesaj minunat. Abia așteptam 🙄",
        "Oh great, another amazing offer. Just what I needed.",
        "Da, sigur, sună foarte interesant 😂",
    ],
)
def test_sarcasm_never_gets_an_automatic_answer(contacted, text):
    lead = contacted["leads"][0]
    Tenant.objects.filter(pk=lead.tenant_id).update(ai_auto_reply_enabled=True)
    handle_received(lead.tenant, reply(lead, text))
    run_triage()
    assert not Message.objects.filter(lead=lead, idempotency_key__startswith="ai-reply:")
    assert ReviewItem.objects.get(lead=lead).kind == "REPLY"


@pytest.mark.parametrize(
    "text",
    [
        "Da, sunt interesat, sunați-mă joi la 10.",
        "Putem vorbi mâine la ora 14?",
        "Happy to talk, call me on Friday at 3pm.",
    ],
)
def test_a_concrete_meeting_time_goes_to_a_person_urgent(contacted, text):
    # Issue 19 §2: a meeting request is URGENT; a proposed time makes a person confirm it.
    lead = contacted["leads"][0]
    Tenant.objects.filter(pk=lead.tenant_id).update(ai_auto_reply_enabled=True)
    handle_received(lead.tenant, reply(lead, text))
    run_triage()
    item = ReviewItem.objects.get(lead=lead)
    assert (item.kind, item.priority) == ("REPLY", "URGENT"), item.reason
    assert reasons.is_code(item.reason, hitl_reasons.ROUTE_SEVERAL)
    assert hitl_reasons.ROUTE_MEETING_TIME in reasons.parse(item.reason)[1]["reasons"]
    assert not Message.objects.filter(lead=lead, idempotency_key__startswith="ai-reply:")


def test_a_return_date_is_read_relative_to_the_day_the_message_was_written(contacted):
    # Written on 20 September, processed on 23 November (a replayed or late delivery):
    # "back on 15 October" is a date already past, not 15 October of next year.
    lead = contacted["leads"][0]
    before = Journey.objects.get(lead=lead).next_action_at
    written = datetime(2026, 9, 20, 9, 0, tzinfo=BUCHAREST)
    event = replace(reply(lead, "Sunt în concediu, revin pe 15 octombrie."), timestamp=written)
    handle_received(lead.tenant, event)
    run_triage()
    assert inbound(lead).analysis["triage"]["return_date"] == "2026-10-15"
    journey = Journey.objects.get(lead=lead)
    # Not moved to October 2027: the step the reply stopped is due again now.
    assert before is None and journey.next_action_at == timezone.now()
    assert Enrollment.objects.get(lead=lead).status == "ACTIVE"


def test_back_on_monday_means_the_monday_after_the_message(contacted):
    lead = contacted["leads"][0]
    friday = datetime(2026, 11, 20, 16, 0, tzinfo=BUCHAREST)  # processed Monday 23 at 10:00
    event = replace(reply(lead, "Out of office. Back on Monday."), timestamp=friday)
    handle_received(lead.tenant, event)
    run_triage()
    assert inbound(lead).analysis["triage"]["return_date"] == str(date(2026, 11, 23))


# What the reply path may read of one text: the opt-out check reads a head and a tail window,
# triage a prefix. Their cost is bounded by these, whatever a reply's length (timing is the
# benches' business; this is the property that keeps it bounded).
READ_BOUND = max(2 * optout.OPT_OUT_WINDOW, MAX_TRIAGE_CHARS)


@contextmanager
def reads_recorded():
    """The length of every text the opt-out check and the offline triage normalise."""
    lengths: list[int] = []

    def recording(normalise):
        def wrapper(text: str) -> str:
            lengths.append(len(text))
            return normalise(text)

        return wrapper

    with (
        mock.patch.object(optout, "normalise", recording(optout.normalise)),
        mock.patch.object(offline, "normalise", recording(offline.normalise)),
    ):
        yield lengths


def test_a_huge_reply_is_stored_whole_triaged_on_a_bounded_prefix_and_a_stop_at_its_end_is_heard(
    contacted,
):
    lead = contacted["leads"][0]
    filler = "Bună ziua, vă scriu în legătură cu oferta de semințe și îngrășăminte. " * 15_000
    body = filler + "\n\nSTOP"
    message = Message.objects.create(
        tenant=lead.tenant,
        lead=lead,
        channel="WHATSAPP",
        direction="IN",
        status="RECEIVED",
        body=body,
        counterpart=lead.phone,
    )
    with reads_recorded() as reads:
        decision = process_reply(lead, message)
        run_triage()
    assert 0 < max(reads) <= READ_BOUND < len(body)  # never the whole 1 MB text
    assert reasons.is_code(decision, hitl_reasons.DECISION_OPT_OUT)
    assert Journey.objects.get(lead=lead).whatsapp_opted_out
    assert len(Message.objects.get(pk=message.pk).body) == len(body)


def test_a_huge_reply_without_a_stop_is_triaged_on_a_bounded_prefix(contacted):
    lead = contacted["leads"][1]
    body = "Da, sunt interesat, trimiteți-mi detalii despre semințe. " * 20_000
    message = Message.objects.create(
        tenant=lead.tenant,
        lead=lead,
        channel="WHATSAPP",
        direction="IN",
        status="RECEIVED",
        body=body,
        counterpart=lead.phone,
    )
    with reads_recorded() as reads:
        process_reply(lead, message)
        run_triage()
    assert 0 < max(reads) <= READ_BOUND < len(body)
    assert inbound(lead).analysis["triage"]["intent"] == "interested"
