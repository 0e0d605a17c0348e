"""Is automation still wanted for a lead (outreach.automation): the one rule, its SQL form
agreeing with it, the send path refusing by it, and every event that stops automation
announcing it once, after commit, to the integrations."""

from __future__ import annotations

import itertools

import pytest
from django.db import transaction

from cerniq import integrations, reasons
from hitl import review, takeover
from hitl.replies import process_reply
from outreach import automation, optout, sequences, stages
from outreach import reasons as codes
from outreach.models import Channel, Enrollment, Journey, Message, Priority, Stage
from outreach.sending import why_not_send
from tests.factories import make_lead, make_message, make_phone, make_sequence, make_user

pytestmark = pytest.mark.django_db

ANNOUNCED: list[list[int]] = []


def heard(*, lead_ids: list[int]) -> None:
    ANNOUNCED.append(lead_ids)


@pytest.fixture
def hooked(monkeypatch):
    """An integration that only listens to "automation_stopped"."""
    ANNOUNCED.clear()
    listener = integrations.Integration(
        key="listener", label="Listener", hooks={"automation_stopped": f"{__name__}.heard"}
    )
    monkeypatch.setattr(integrations, "registry", lambda: {"listener": listener})
    return ANNOUNCED


@pytest.fixture
def enrolled(tenant):
    lead = make_lead(tenant, email="ion@agro.ro")
    sequences.enroll(lead, make_sequence(tenant))
    return lead


# --- the rule ------------------------------------------------------------------------------


def test_the_sql_form_agrees_with_the_rule_on_every_combination(tenant):
    user = make_user(tenant)
    stops, nurtures = make_sequence(tenant), make_sequence(tenant)
    nurtures.stop_on_reply = False
    nurtures.save(update_fields=["stop_on_reply"])
    combinations = itertools.product(
        Stage.values, (False, True), (False, True), (None, stops, nurtures)
    )
    for stage, taken_over, held, sequence in combinations:
        lead = make_lead(tenant)
        Journey.objects.filter(lead=lead).update(
            stage=stage,
            taken_over_by=user if taken_over else None,
            requires_human_review=held,
            review_priority=Priority.HIGH if held else "",
        )
        if sequence is not None:
            Enrollment.objects.create(tenant=tenant, lead=lead, sequence=sequence)
    journeys = list(Journey.objects.filter(tenant=tenant))
    assert len(journeys) == len(Stage.values) * 4 * 3
    running = {
        e.lead_id: e for e in Enrollment.objects.filter(tenant=tenant).select_related("sequence")
    }

    def python_form(journey: Journey) -> bool:
        nurture = automation.nurturing(running.get(journey.lead_id))
        return not automation.lead_stopped(journey, nurture=nurture)

    wanted = set(Journey.objects.filter(automation.wanted_q()).values_list("pk", flat=True))
    assert wanted == {j.pk for j in journeys if python_form(j)}
    assert wanted  # some are wanted: the comparison says something
    warm = {j.pk for j in journeys if j.stage == Stage.WARM_REPLY}
    assert wanted & warm  # a nurture sequence runs after a reply ...
    assert warm - wanted  # ... and no other does


def _stopped(journey: Journey, enrollment: Enrollment | None, **kw) -> str:
    return reasons.render(automation.why_stopped(journey, enrollment, **kw))


def test_the_rule_names_the_first_thing_that_stops_automation(enrolled, tenant):
    journey = Journey.objects.get(lead=enrolled)
    enrollment = Enrollment.objects.get(lead=enrolled)
    assert automation.why_stopped(journey, enrollment, channel=Channel.WHATSAPP) == ""
    journey.requires_human_review = True
    assert _stopped(journey, enrollment) == "the lead is held for human review"
    journey.taken_over_by = make_user(tenant)
    assert _stopped(journey, enrollment) == "a colleague took the conversation over"
    journey.stage = Stage.WARM_REPLY  # the stage says more than the hold that came with it
    assert _stopped(journey, enrollment) == "the lead replied"
    journey.email_opted_out = True
    assert _stopped(journey, enrollment, channel=Channel.EMAIL_COLD) == "the lead opted out"
    assert _stopped(journey, enrollment, channel=Channel.WHATSAPP) == "the lead replied"


@pytest.mark.parametrize(
    ("status", "stop_reason", "handed_over", "said"),
    [
        (Enrollment.Status.ACTIVE, "", False, ""),
        (Enrollment.Status.PAUSED, "", False, "the lead was paused"),
        ("STOPPED", "stop.company_replied", False, "another contact of the company replied"),
        (Enrollment.Status.COMPLETED, "", False, "the sequence no longer runs for the lead"),
        # Its last step is with a provider that sends it later: still wanted.
        (Enrollment.Status.COMPLETED, "", True, ""),
    ],
)
def test_the_enrollment_row(enrolled, status, stop_reason, handed_over, said):
    Enrollment.objects.filter(lead=enrolled).update(status=status, stop_reason=stop_reason)
    journey = Journey.objects.get(lead=enrolled)
    enrollment = Enrollment.objects.get(lead=enrolled)
    assert _stopped(journey, enrollment, handed_over=handed_over) == said
    assert _stopped(journey, None) == "the sequence no longer runs for the lead"


@pytest.mark.parametrize("channel", [Channel.WHATSAPP, Channel.EMAIL_WARM, Channel.EMAIL_COLD])
def test_a_queued_step_on_any_channel_is_refused_by_the_rule(enrolled, tenant, channel):
    enrollment = Enrollment.objects.get(lead=enrolled)
    step = enrollment.sequence.steps.get()
    phone = make_phone(tenant) if channel == Channel.WHATSAPP else None
    queued = make_message(
        enrolled, channel=channel, sequence=enrollment.sequence, step=step, phone=phone
    )
    assert why_not_send(queued) == ""
    Journey.objects.filter(lead=enrolled).update(taken_over_by=make_user(tenant))
    assert reasons.is_code(why_not_send(queued), codes.STOP_TAKEOVER)


# --- every stop announces itself, once, after commit --------------------------------------


def _reply(lead) -> None:
    inbound = Message.objects.create(
        tenant=lead.tenant,
        lead=lead,
        channel=Channel.WHATSAPP,
        direction=Message.Direction.INBOUND,
        status=Message.Status.RECEIVED,
        body="Bună ziua, ne interesează oferta. Ce preț aveți?",
        counterpart=lead.phone,
    )
    process_reply(lead, inbound)


STOPS = {
    "takeover": lambda lead: takeover.take_over(lead, make_user(lead.tenant)),
    "review hold": lambda lead: review.open_item(lead, reason="Price?", priority=Priority.HIGH),
    "pause": lambda lead: stages.pause(Journey.objects.get(lead=lead), reason="holiday"),
    "reply on WhatsApp": _reply,
    "company stop": lambda lead: sequences.stop(lead.pk, reasons.code(codes.STOP_COMPANY_REPLIED)),
    "closing stage": lambda lead: stages.transition(
        Journey.objects.get(lead=lead), Stage.DEAD, reason="lost"
    ),
    "opt-out": lambda lead: optout.opt_out(lead, Channel.WHATSAPP),
    "sequence stopped": lambda lead: sequences.stop_sequence(
        Enrollment.objects.get(lead=lead).sequence, "campaign over"
    ),
}


@pytest.mark.parametrize("stop", STOPS.values(), ids=STOPS.keys())
def test_every_stop_is_announced_once_after_commit(
    enrolled, hooked, stop, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        stop(enrolled)
        assert hooked == []  # nothing before the commit
    assert hooked == [[enrolled.pk]]


def test_what_does_not_stop_automation_announces_nothing(
    enrolled, hooked, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        stages.transition(Journey.objects.get(lead=enrolled), Stage.CONTACTED_WA, reason="sent")
    with (
        django_capture_on_commit_callbacks(execute=True),
        pytest.raises(RuntimeError),
        transaction.atomic(),
    ):
        STOPS["takeover"](enrolled)
        raise RuntimeError("rolled back")
    assert hooked == []
