"""A reply and the sequences it touches: the company's other contacts stop, pause or go on
as their sequence says (outreach.company_stop), a nurture sequence goes on after a reply
that is not a refusal (hitl.reply_holds.go_on), and a reply-first sequence sends its
WhatsApp step only once the lead answered an email."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.urls import reverse

from cerniq import reasons
from hitl import replies
from hitl.replies import process_reply
from hitl.triage import TriageBackend, TriageResult
from outreach import company_stop
from outreach import reasons as codes
from outreach.dispatch import dispatch_due
from outreach.models import (
    Channel,
    Company,
    Enrollment,
    Journey,
    Lead,
    Message,
    Sequence,
    SequenceEvent,
    SequenceStep,
    Stage,
    Template,
    TemplateVersion,
)
from outreach.sequences import advance_after_send
from tests.drain import run_triage
from tests.factories import make_message, make_outreach_world

BUCHAREST = ZoneInfo("Europe/Bucharest")
MONDAY_10 = datetime(2026, 11, 23, 10, 0, tzinfo=BUCHAREST)
BACKEND = "tests.hitl.test_company_and_nurture.{}"


def fixed(intent: str, sentiment: int):
    class Fixed(TriageBackend):
        needs_credentials = False

        def analyse(self, text: str, **kwargs) -> TriageResult:
            return TriageResult(
                sentiment=sentiment,
                intent=intent,
                confidence=0.95,
                language="ro",
                draft="Mulțumim, revenim.",
                backend="offline",
            )

    return Fixed


NeutralTriage = fixed("other", 0)
DeferringTriage = fixed("question", 10)
DecliningTriage = fixed("not_interested", -60)


@pytest.fixture(autouse=True)
def own_ai_budget(monkeypatch):
    monkeypatch.setattr(replies, "AI_LIMIT_KEY", f"ai-test-{uuid.uuid4()}-{{tenant_id}}")


@pytest.fixture
def monday():
    with time_machine.travel(MONDAY_10, tick=False) as traveller:
        yield traveller


def triage_with(settings, name: str) -> None:
    settings.PROVIDERS = {
        **settings.PROVIDERS,
        "ai.triage": {"BACKEND": BACKEND.format(name), "OPTIONS": {}},
    }


def replied(lead: Lead, text: str, channel: str = Channel.WHATSAPP) -> Message:
    message = make_message(
        lead,
        channel=channel,
        direction=Message.Direction.INBOUND,
        status=Message.Status.RECEIVED,
        idempotency_key=None,
        body=text,
    )
    process_reply(lead, message)
    return message


def same_company(tenant, *leads: Lead, cui: str) -> Company:
    company = Company.objects.create(tenant=tenant, name=f"Ferma {cui}", cui=cui)
    Lead.objects.filter(pk__in=[lead.pk for lead in leads]).update(company=company, cui=cui)
    for lead in leads:
        lead.refresh_from_db()
    return company


def firm_world(tenant, option: str, pause_days: int = 14):
    """A, B of one company and C of another, each with step 1 queued."""
    world = make_outreach_world(tenant, leads=3)
    Sequence.objects.filter(pk=world["sequence"].pk).update(
        company_reply=option, company_pause_days=pause_days
    )
    a, b, c = world["leads"]
    same_company(tenant, a, b, cui="1234567")
    same_company(tenant, c, cui="7654321")
    dispatch_due(tenant)
    assert Message.objects.filter(status=Message.Status.QUEUED).count() == 3
    return a, b, c


def queued(lead: Lead) -> bool:
    return Message.objects.filter(lead=lead, status=Message.Status.QUEUED).exists()


def events(lead: Lead) -> list[tuple[str, str]]:
    return [(e.kind, reasons.render(e.reason)) for e in SequenceEvent.objects.filter(lead=lead)]


def test_a_reply_from_a_stops_b_of_the_same_company_and_not_c(tenant, monday):
    a, b, c = firm_world(tenant, Sequence.CompanyReply.STOP)
    replied(a, "Bună ziua, am primit mesajul.")
    stopped = Enrollment.objects.get(lead=b)
    assert stopped.status == Enrollment.Status.STOPPED
    assert stopped.stop_reason == reasons.code(codes.STOP_COMPANY_REPLIED)
    assert not queued(b)  # its follow-up never goes out
    assert events(b) == [("company_stopped", "another contact of the company replied")]
    assert queued(c) and Enrollment.objects.get(lead=c).status == Enrollment.Status.ACTIVE
    assert events(c) == []


def test_pause_holds_b_for_the_days_the_sequence_says_then_resumes(tenant, monday):
    a, b, c = firm_world(tenant, Sequence.CompanyReply.PAUSE, pause_days=10)
    replied(a, "Revin eu cu un telefon.")
    paused = Enrollment.objects.get(lead=b)
    until = MONDAY_10 + timedelta(days=10)
    assert (paused.status, paused.next_run_at) == (Enrollment.Status.PAUSED, until)
    assert not queued(b) and queued(c)
    [(kind, said)] = events(b)
    assert kind == "company_paused" and said.startswith("paused until ")
    assert Journey.objects.get(lead=b).next_action_at is None
    assert company_stop.resume_due(until - timedelta(minutes=1)) == 0
    assert company_stop.resume_due(until) == 1
    resumed = Enrollment.objects.get(lead=b)
    assert (resumed.status, resumed.stop_reason) == (Enrollment.Status.ACTIVE, "")
    assert Journey.objects.get(lead=b).next_action_at == until
    monday.move_to(until)
    assert dispatch_due(tenant).dispatched[Channel.WHATSAPP] == 1
    assert queued(b)  # its step is queued again


def test_continue_leaves_b_alone_and_says_so(tenant, monday):
    a, b, c = firm_world(tenant, Sequence.CompanyReply.CONTINUE)
    replied(a, "Mulțumesc, mă uit.")
    assert queued(b) and Enrollment.objects.get(lead=b).status == Enrollment.Status.ACTIVE
    assert events(b) == [
        (
            "company_continued",
            "another contact of the company replied; this sequence goes on with this contact",
        )
    ]
    assert Enrollment.objects.get(lead=a).status == Enrollment.Status.STOPPED  # a itself


def test_an_out_of_office_answer_gives_back_the_pause_too(tenant, monday, settings):
    triage_with(settings, "OutOfOffice")
    a, b, _ = firm_world(tenant, Sequence.CompanyReply.PAUSE)
    replied(a, "Sunt în concediu până luni.")
    run_triage()
    assert Enrollment.objects.get(lead=b).status == Enrollment.Status.ACTIVE
    assert Journey.objects.get(lead=b).next_action_at is not None


OutOfOffice = fixed("out_of_office", 0)


# --- nurture ------------------------------------------------------------------------


def nurture_world(tenant, *, stop_on_reply: bool = False):
    """One lead whose step 1 went out; step 2 is due a working day later."""
    world = make_outreach_world(tenant, leads=1)
    Sequence.objects.filter(pk=world["sequence"].pk).update(stop_on_reply=stop_on_reply)
    lead = world["leads"][0]
    dispatch_due(tenant)
    sent_first(lead)
    return lead


def sent_first(lead: Lead) -> None:
    message = Message.objects.get(lead=lead, status=Message.Status.QUEUED)
    Message.objects.filter(pk=message.pk).update(status=Message.Status.SENT, sent_at=MONDAY_10)
    enrollment = Enrollment.objects.get(lead=lead, status=Enrollment.Status.ACTIVE)
    advance_after_send(enrollment, message.step, MONDAY_10)


def resolve_review(lead: Lead) -> None:
    Journey.objects.filter(lead=lead).update(requires_human_review=False, review_priority="")


@pytest.mark.parametrize("triage", ["NeutralTriage", "DeferringTriage"])
def test_a_nurture_sequence_goes_on_after_a_reply_that_is_no_refusal(
    tenant, monday, settings, triage
):
    triage_with(settings, triage)
    lead = nurture_world(tenant)
    planned = Journey.objects.get(lead=lead).next_action_at
    replied(lead, "Poate la primăvară, mai vorbim.")
    assert Enrollment.objects.get(lead=lead).status == Enrollment.Status.STOPPED  # until read
    run_triage()
    enrollment = Enrollment.objects.get(lead=lead)
    journey = Journey.objects.get(lead=lead)
    assert enrollment.status == Enrollment.Status.ACTIVE
    assert journey.stage == Stage.WARM_REPLY and journey.next_action_at == planned
    assert [kind for kind, _ in events(lead)] == ["continued"]
    resolve_review(lead)  # a person read the reply; automation then runs again
    monday.move_to(planned)
    assert dispatch_due(tenant).dispatched[Channel.WHATSAPP] == 1
    assert Message.objects.get(lead=lead, status=Message.Status.QUEUED).step.position == 2


def test_a_nurture_sequence_stops_on_a_decline(tenant, monday, settings):
    triage_with(settings, "DecliningTriage")
    lead = nurture_world(tenant)
    replied(lead, "Nu ne interesează.")
    run_triage()
    assert Enrollment.objects.get(lead=lead).status == Enrollment.Status.STOPPED
    assert Journey.objects.get(lead=lead).stage == Stage.DEAD
    assert events(lead) == []


def test_a_nurture_sequence_stops_on_an_opt_out(tenant, monday, settings):
    triage_with(settings, "NeutralTriage")
    lead = nurture_world(tenant)
    replied(lead, "STOP")
    run_triage()
    assert Enrollment.objects.get(lead=lead).status == Enrollment.Status.STOPPED
    assert Journey.objects.get(lead=lead).whatsapp_opted_out
    assert events(lead) == []


def test_a_sequence_that_stops_on_reply_stays_stopped(tenant, monday, settings):
    triage_with(settings, "NeutralTriage")
    lead = nurture_world(tenant, stop_on_reply=True)
    replied(lead, "Poate la primăvară, mai vorbim.")
    run_triage()
    assert Enrollment.objects.get(lead=lead).status == Enrollment.Status.STOPPED
    assert events(lead) == []


# --- reply-first --------------------------------------------------------------------


def reply_first_world(tenant):
    """Step 1 a warm email; step 2 on WhatsApp only if the lead replied; nurture."""
    world = make_outreach_world(tenant, leads=2, steps=2, channel=Channel.EMAIL_WARM)
    sequence = world["sequence"]
    Sequence.objects.filter(pk=sequence.pk).update(stop_on_reply=False)
    template = Template.objects.create(tenant=tenant, name="WA după răspuns", channel="WHATSAPP")
    TemplateVersion.objects.create(
        tenant=tenant, template=template, version=1, body="Bună, {{contact_name}}! Revin aici."
    )
    SequenceStep.objects.filter(sequence=sequence, position=2).update(
        channel=Channel.WHATSAPP, template=template, conditions={"all": [{"kind": "replied"}]}
    )
    dispatch_due(tenant)
    for lead in world["leads"]:
        sent_first(lead)
    return world["leads"]


def test_reply_first_sends_whatsapp_only_after_an_email_reply(tenant, monday, settings):
    triage_with(settings, "NeutralTriage")
    answered, silent = reply_first_world(tenant)
    replied(answered, "Da, trimiteți-mi detalii.", channel=Channel.EMAIL_WARM)
    run_triage()
    resolve_review(answered)
    due = Journey.objects.get(lead=silent).next_action_at
    monday.move_to(due)
    result = dispatch_due(tenant)
    assert result.dispatched == {Channel.WHATSAPP: 1}
    whatsapp = Message.objects.get(channel=Channel.WHATSAPP, status=Message.Status.QUEUED)
    assert whatsapp.lead == answered and whatsapp.step.position == 2
    assert [kind for kind, _ in events(silent)] == ["step_skipped"]
    assert Enrollment.objects.get(lead=silent).status == Enrollment.Status.COMPLETED


def test_the_lead_page_shows_why_its_sequence_stopped_for_a_colleague(
    tenant, monday, client, operator
):
    a, b, _ = firm_world(tenant, Sequence.CompanyReply.STOP)
    replied(a, "Bună ziua, am primit mesajul.")
    client.force_login(operator)
    page = client.get(reverse("outreach:lead", args=[b.pk])).content.decode()
    assert 'data-sequence-event="company_stopped"' in page
    assert "another contact of the company replied" in page
