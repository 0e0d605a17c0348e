"""Flow 3: a reply stops automation, moves the stage and is routed; opt-outs are final."""

from __future__ import annotations

from datetime import date, datetime, timedelta

import pytest

from cerniq import reasons
from cerniq.models import Tenant
from hitl import reasons as hitl_reasons
from hitl.models import ReviewItem
from integrations.timelinesai.inbound import handle_received, handle_sent
from integrations.timelinesai.receiver import WhatsAppMessageEvent
from outreach.dispatch import dispatch_due
from outreach.manual import SendRefused, send_manual
from outreach.models import Enrollment, Journey, Lead, Message
from outreach.sending import send_message
from tests.drain import run_triage
from tests.factories import make_lead, make_outreach_world
from tests.whatsapp.conftest import MONDAY_10

_uids = iter(range(1, 10_000))


def reply(lead: Lead, text: str, *, phone: str = "", chat_id: str = "") -> WhatsAppMessageEvent:
    return WhatsAppMessageEvent(
        event_type="message:received:new",
        message_uid=f"in-{next(_uids)}",
        chat_id=chat_id,
        chat_url="",
        direction="received",
        text=text,
        sender_phone=phone or lead.phone,
        sender_name=lead.contact_name,
        recipient_phone="",
        account_phone="",
        timestamp=MONDAY_10,
        origin="WhatsApp",
    )


@pytest.fixture
def contacted(tenant, clock):
    """Three leads that got step 1 (sent) and have step 2 QUEUED already."""
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


def queued_follow_up(lead: Lead) -> Message:
    return Message.objects.get(lead=lead, status__in=["QUEUED", "CANCELLED"], step__position=2)


def test_a_reply_stops_the_queued_follow_up_and_moves_the_stage(contacted):
    lead = contacted["leads"][0]
    handle_received(lead.tenant, reply(lead, "Da, sunt interesat. Trimiteți-mi detalii."))
    run_triage()
    follow_up = queued_follow_up(lead)
    assert follow_up.status == "CANCELLED"
    assert send_message(follow_up.pk).kind == "skipped"  # never goes out
    journey = Journey.objects.get(lead=lead)
    assert journey.stage == "WARM_REPLY" and journey.reply_count == 1
    assert Enrollment.objects.get(lead=lead).status == "STOPPED"
    inbound = Message.objects.get(lead=lead, direction="IN")
    assert inbound.analysis["triage"]["intent"] == "interested"
    # The other leads carry on.
    assert Message.objects.filter(status="QUEUED").count() == 2


def test_the_same_reply_delivered_twice_is_stored_once(contacted):
    lead = contacted["leads"][0]
    event = reply(lead, "Da, sunt interesat.")
    handle_received(lead.tenant, event)
    run_triage()
    handle_received(lead.tenant, event)
    run_triage()
    assert Message.objects.filter(direction="IN").count() == 1
    assert Journey.objects.get(lead=lead).reply_count == 1


@pytest.mark.parametrize(
    ("text", "kind", "priority"),
    [
        # Priority follows value and risk (issue 19 §2), never the tone alone.
        ("Nu sunt interesat, mulțumesc.", "REPLY", "LOW"),
        ("Cât costă semințele de porumb? Ce preț aveți?", "REPLY", "HIGH"),
        ("Aveți și livrare în județul Iași?", "REPLY", "HIGH"),
        ("Da, sunt interesat, putem vorbi la telefon?", "APPROVAL", "URGENT"),
        ("Da, sunt interesat, putem vorbi mâine la 10?", "REPLY", "URGENT"),  # a time: a person
    ],
)
def test_each_routing_band_creates_the_right_review_item(contacted, text, kind, priority):
    lead = contacted["leads"][0]
    handle_received(lead.tenant, reply(lead, text))
    run_triage()
    item = ReviewItem.objects.get(lead=lead)
    assert (item.kind, item.priority) == (kind, priority), item.reason
    journey = Journey.objects.get(lead=lead)
    assert journey.requires_human_review and journey.review_priority == priority
    decision = Message.objects.get(lead=lead, direction="IN").analysis["decision"]
    assert reasons.parse(decision) == (
        hitl_reasons.DECISION_REVIEW,
        {"priority": priority, "why": item.reason},
    )


def test_positive_reply_is_answered_automatically_when_the_tenant_allows_it(contacted):
    lead = contacted["leads"][0]
    Tenant.objects.filter(pk=lead.tenant_id).update(ai_auto_reply_enabled=True)
    handle_received(lead.tenant, reply(lead, "Da, sunt interesat, aștept oferta."))
    run_triage()
    answer = Message.objects.get(
        lead=lead, idempotency_key=f"ai-reply:{Message.objects.get(direction='IN').pk}"
    )
    assert answer.status == "QUEUED" and not answer.is_manual and answer.quota_cost == 0
    assert not ReviewItem.objects.exists()
    assert send_message(answer.pk).kind == "sent"


def test_company_stop_reaches_every_lead_with_the_cui(tenant, contacted):
    """CUI is unique per tenant, so today a company is one lead; the stop still goes by CUI
    so contacts imported without a CUI are untouched and nothing else is stopped."""
    first, colleague, stranger = contacted["leads"]
    Lead.objects.filter(pk=first.pk).update(cui="18547290")
    first.refresh_from_db()
    handle_received(tenant, reply(first, "Vă răspund eu, nu e nevoie de alte mesaje acum."))
    run_triage()
    assert Enrollment.objects.get(lead=first).status == "STOPPED"
    assert Enrollment.objects.get(lead=stranger).status == "ACTIVE"
    assert Enrollment.objects.get(lead=colleague).status == "ACTIVE"


@pytest.mark.parametrize(
    "text",
    [
        "STOP",
        "dezabonare",
        "Nu mai trimiteți mesaje!",
        "nu mă mai contactați",
        "Unsubscribe please",
        "nu ma mai contactati va rog",
    ],
)
def test_opt_out_confirms_once_and_every_path_refuses_afterwards(contacted, text):
    lead = contacted["leads"][0]
    handle_received(lead.tenant, reply(lead, text))
    handle_received(lead.tenant, reply(lead, text))  # says it twice: one confirmation
    run_triage()
    confirmations = Message.objects.filter(lead=lead, idempotency_key__startswith="optout-confirm:")
    assert confirmations.count() == 1
    assert send_message(confirmations.get().pk).kind == "sent"
    journey = Journey.objects.get(lead=lead)
    assert journey.whatsapp_opted_out
    assert queued_follow_up(lead).status == "CANCELLED"
    # Dispatch, manual sends and AI replies all refuse from now on.
    Journey.objects.filter(pk=journey.pk).update(next_action_at=MONDAY_10)
    dispatch_due(lead.tenant)
    assert not Message.objects.filter(lead=lead, status="QUEUED").exists()
    with pytest.raises(SendRefused, match="opted out"):
        send_manual(lead, "Doar o întrebare…")
    sneaky = Message.objects.create(
        tenant=lead.tenant,
        lead=lead,
        channel="WHATSAPP",
        direction="OUT",
        status="QUEUED",
        body="AI reply",
        phone=contacted["phones"][0],
        counterpart=lead.phone,
        idempotency_key="ai-reply:999",
    )
    assert send_message(sneaky.pk).kind == "cancelled"
    assert not ReviewItem.objects.exists()


def test_out_of_office_moves_the_next_step_and_is_not_a_reply(contacted):
    lead = contacted["leads"][0]
    handle_received(lead.tenant, reply(lead, "Sunt în concediu până pe 7 decembrie."))
    run_triage()
    journey = Journey.objects.get(lead=lead)
    assert journey.stage == "CONTACTED_WA" and journey.reply_count == 0
    assert Enrollment.objects.get(lead=lead).status == "ACTIVE"
    assert journey.next_action_at.date() == date(2026, 12, 7)
    assert queued_follow_up(lead).status == "CANCELLED"  # goes again after the return


def test_unknown_sender_is_kept(tenant, clock):
    stranger = Lead(tenant=tenant, phone="+40799111222", contact_name="?")
    handle_received(tenant, reply(stranger, "Bună, cine sunteți?"))
    kept = Message.objects.get(direction="IN")
    assert kept.lead is None and kept.counterpart == "+40799111222"


def test_found_by_chat_id_before_phone(tenant, contacted):
    lead = contacted["leads"][1]
    Message.objects.filter(lead=lead, direction="OUT").update(provider_thread_id="777")
    handle_received(tenant, reply(lead, "Da, interesat", phone="+40700000001", chat_id="777"))
    assert Message.objects.get(direction="IN").lead == lead


def test_our_send_coming_back_teaches_us_the_chat_and_phone_app_sends_are_recorded(contacted):
    lead = contacted["leads"][0]
    sent = Message.objects.filter(lead=lead, status="SENT").first()
    echo = WhatsAppMessageEvent(
        event_type="message:sent:new",
        message_uid=sent.provider_message_id,
        chat_id="4242",
        chat_url="https://app.timelines.ai/chat/4242/messages/",
        direction="sent",
        text=sent.body,
        sender_phone="",
        sender_name="",
        recipient_phone=lead.phone,
        account_phone=sent.phone.number,
        timestamp=MONDAY_10,
        origin="Public API",
    )
    handle_sent(lead.tenant, echo)
    sent.refresh_from_db()
    assert (sent.provider_thread_id, sent.provider_url) == ("4242", echo.chat_url)
    from_phone = WhatsAppMessageEvent(
        **{
            **echo.__dict__,
            "message_uid": "typed-on-phone",
            "origin": "WhatsApp",
            "text": "Revin eu cu un telefon.",
        }
    )
    handle_sent(lead.tenant, from_phone)
    manual = Message.objects.get(provider_message_id="typed-on-phone")
    assert manual.is_manual and manual.lead == lead and manual.status == "SENT"


def test_received_datetime_is_kept(contacted):
    lead = contacted["leads"][0]
    handle_received(lead.tenant, reply(lead, "Da, interesat"))
    assert Message.objects.get(direction="IN").sent_at == MONDAY_10
    assert isinstance(MONDAY_10, datetime)


def test_asking_not_to_be_called_is_not_an_opt_out():
    from outreach.optout import is_opt_out

    assert not is_opt_out("Nu mă sunați, scrieți-mi aici pe WhatsApp.")
    assert is_opt_out("Vă rog nu mă mai sunați.")
    assert is_opt_out("Opriți mesajele astea!")


def test_opt_out_in_words_only_the_ai_understands_is_honoured(contacted):
    lead = contacted["leads"][0]
    handle_received(
        lead.tenant, reply(lead, "Vă rog să nu mai folosiți acest număr pentru reclame")
    )
    run_triage()
    journey = Journey.objects.get(lead=lead)
    from outreach.optout import is_opt_out

    if not is_opt_out("Vă rog să nu mai folosiți acest număr pentru reclame"):
        # Only the triage caught it; the result must be the same opt-out.
        assert (
            reasons.is_code(
                Message.objects.get(lead=lead, direction="IN").analysis["decision"],
                hitl_reasons.DECISION_OPT_OUT,
            )
            or not journey.whatsapp_opted_out
        )


def test_ai_budget_of_the_tenant_is_enforced_with_an_offline_fallback(tenant, monkeypatch):
    import uuid

    from hitl import replies

    monkeypatch.setattr(replies, "AI_REQUESTS_PER_MINUTE", 2)
    # A key of its own: earlier tests in this minute may have used this tenant id's budget.
    monkeypatch.setattr(replies, "AI_LIMIT_KEY", f"ai-test-{uuid.uuid4()}-{{tenant_id}}")
    lead = make_lead(tenant)
    results = [replies.analyse(lead, "Da, sunt interesat.") for _ in range(3)]
    assert [r.fell_back for r in results] == [False, False, True]
    assert reasons.parse(results[2].fallback_reason) == (
        hitl_reasons.TRIAGE_RATE_LIMIT,
        {"limit": 2},
    )
    assert results[2].intent == results[0].intent  # the offline rules still answer
