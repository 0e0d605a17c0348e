"""Dispatch evaluates each step's conditions (outreach.step_conditions): a condition that
does not hold skips the step, moves the enrollment past it and keeps why on the lead's
page; a timed one waits until it can tell; conditions that mean nothing stall the lead."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext

from cerniq import reasons
from outreach import reasons as codes
from outreach.dispatch import dispatch_due
from outreach.hours import SendingWindow
from outreach.models import (
    Channel,
    Enrollment,
    Journey,
    Lead,
    Message,
    SequenceEvent,
    SequenceStep,
    Stage,
)
from outreach.plan_preview import preview
from tests.factories import make_outreach_world

BUCHAREST = ZoneInfo("Europe/Bucharest")
MONDAY_10 = datetime(2026, 11, 23, 10, 0, tzinfo=BUCHAREST)


@pytest.fixture
def monday():
    with time_machine.travel(MONDAY_10, tick=False):
        yield MONDAY_10


def conditioned_world(tenant, conditions, *, leads=2, channel=Channel.WHATSAPP):
    world = make_outreach_world(tenant, leads=leads, channel=channel)
    SequenceStep.objects.filter(sequence=world["sequence"], position=1).update(
        conditions={"all": conditions}
    )
    return world


def outcome(lead: Lead) -> str:
    """ "sent", or the stored reason of the skip kept on the lead's page."""
    if Message.objects.filter(lead=lead, step__isnull=False).exists():
        return "sent"
    event = SequenceEvent.objects.filter(lead=lead).first()
    return event.reason if event else ""


def skipped_for(kind: str) -> str:
    return reasons.code(codes.STEP_SKIPPED, position=1, condition=kind)


def test_a_step_for_leads_without_a_reply_skips_those_who_replied(tenant, monday):
    world = conditioned_world(tenant, [{"kind": "no_reply"}])
    replied, quiet = world["leads"]
    Journey.objects.filter(lead=replied).update(last_reply_at=MONDAY_10 - timedelta(days=1))
    result = dispatch_due(tenant)
    assert outcome(quiet) == "sent"
    assert outcome(replied) == skipped_for("no_reply")
    assert result.skipped[codes.STEP_SKIPPED] == 1
    said = reasons.render(outcome(replied))
    assert (
        said == "step 1 skipped: the lead has replied, and the step is only for leads who have not"
    )


def test_the_skipped_step_is_passed_and_the_next_one_follows_its_delay(tenant, monday):
    world = conditioned_world(tenant, [{"kind": "replied"}])
    lead = world["leads"][0]
    dispatch_due(tenant)
    enrollment = Enrollment.objects.get(lead=lead)
    journey = Journey.objects.get(lead=lead)
    due = SendingWindow.for_tenant(tenant).add_delay(
        MONDAY_10, 1, SequenceStep.DelayUnit.WORKING_DAYS
    )
    assert (enrollment.current_step, enrollment.status) == (1, Enrollment.Status.ACTIVE)
    assert (journey.sequence_step, journey.next_action_at) == (1, due)
    event = SequenceEvent.objects.get(lead=lead)
    assert (event.kind, event.step.position, event.enrollment) == ("step_skipped", 1, enrollment)
    # The day after, step 2 (no condition) goes out.
    with time_machine.travel(due, tick=False):
        assert dispatch_due(tenant).dispatched[Channel.WHATSAPP] == 2
    assert Message.objects.get(lead=lead).step.position == 2


def test_a_skipped_last_step_completes_the_enrollment(tenant, monday):
    world = make_outreach_world(tenant, leads=1, steps=1)
    SequenceStep.objects.filter(sequence=world["sequence"]).update(
        conditions={"all": [{"kind": "replied"}]}
    )
    dispatch_due(tenant)
    enrollment = Enrollment.objects.get(lead=world["leads"][0])
    assert enrollment.status == Enrollment.Status.COMPLETED
    assert Journey.objects.get(lead=world["leads"][0]).next_action_at is None


def test_email_bounced_goes_only_for_a_bounced_address(tenant, monday):
    world = conditioned_world(tenant, [{"kind": "email_bounced"}])
    bounced, fine = world["leads"]
    Lead.objects.filter(pk=bounced.pk).update(email_status=Lead.EmailStatus.BOUNCED)
    dispatch_due(tenant)
    assert outcome(bounced) == "sent"
    assert outcome(fine) == skipped_for("email_bounced")


def test_no_phone_goes_only_for_leads_without_a_reachable_number(tenant, monday):
    world = conditioned_world(tenant, [{"kind": "no_phone"}], leads=3, channel=Channel.EMAIL_WARM)
    with_phone, no_phone, unreachable = world["leads"]
    Lead.objects.filter(pk=no_phone.pk).update(phone="")
    Lead.objects.filter(pk=unreachable.pk).update(phone_reachable=False)
    dispatch_due(tenant)
    assert outcome(with_phone) == skipped_for("no_phone")
    assert outcome(no_phone) == "sent" and outcome(unreachable) == "sent"


def test_stage_not_skips_the_named_stages(tenant, monday):
    world = conditioned_world(tenant, [{"kind": "stage_not", "stages": [Stage.CONTACTED_EMAIL]}])
    emailed, cold = world["leads"]
    Journey.objects.filter(lead=emailed).update(stage=Stage.CONTACTED_EMAIL)
    dispatch_due(tenant)
    assert outcome(cold) == "sent"
    assert outcome(emailed) == skipped_for("stage_not")


def earlier_whatsapp(
    world, lead, *, hours_ago, delivered=False, read=False, provider="timelinesai"
):
    phone = world["phones"][0]
    type(phone).objects.filter(pk=phone.pk).update(provider=provider)
    sent_at = MONDAY_10 - timedelta(hours=hours_ago)
    return Message.objects.create(
        tenant=lead.tenant,
        lead=lead,
        channel=Channel.WHATSAPP,
        direction=Message.Direction.OUTBOUND,
        status=Message.Status.READ if read else Message.Status.DELIVERED if delivered else "SENT",
        phone=phone,
        counterpart=lead.phone,
        provider_thread_id="chat-1",
        idempotency_key=f"earlier:{lead.pk}",
        sent_at=sent_at,
        delivered_at=sent_at + timedelta(minutes=1) if delivered or read else None,
        read_at=sent_at + timedelta(minutes=2) if read else None,
    )


@pytest.mark.parametrize("kind", ["whatsapp_not_delivered", "whatsapp_not_read"])
def test_not_delivered_or_read_within_hours(tenant, monday, kind):
    world = conditioned_world(tenant, [{"kind": kind, "hours": 24}], leads=4)
    late, reached, recent, never = world["leads"]
    earlier_whatsapp(world, late, hours_ago=30)
    earlier_whatsapp(world, reached, hours_ago=30, delivered=True, read=True)
    earlier = earlier_whatsapp(world, recent, hours_ago=2)
    result = dispatch_due(tenant)
    assert Message.objects.filter(lead=late).count() == 2  # the earlier one and this step
    assert Message.objects.filter(lead=never).count() == 1  # nothing went: not delivered
    assert outcome(reached) == skipped_for(kind)
    # Two hours after: the step waits until 24 hours after that message, nothing recorded.
    assert Message.objects.filter(lead=recent).count() == 1
    assert not SequenceEvent.objects.filter(lead=recent).exists()
    waiting = Journey.objects.get(lead=recent)
    assert waiting.next_action_at == earlier.sent_at + timedelta(hours=24)
    assert Enrollment.objects.get(lead=recent).current_step == 0
    assert result.skipped[codes.CONDITION_WAIT] == 1


def test_a_provider_that_reports_no_ticks_cannot_tell_so_the_step_is_skipped(tenant, monday):
    world = conditioned_world(tenant, [{"kind": "whatsapp_not_read", "hours": 24}], leads=1)
    lead = world["leads"][0]
    earlier_whatsapp(world, lead, hours_ago=30, provider="sandbox")
    dispatch_due(tenant)
    assert outcome(lead) == skipped_for("whatsapp_not_read:unknown")
    assert "reports none" in reasons.render(outcome(lead))


def test_conditions_that_mean_nothing_stall_the_lead_with_the_reason(tenant, monday):
    world = conditioned_world(tenant, [{"kind": "whatsapp_not_read"}], leads=1)  # no hours
    lead = world["leads"][0]
    result = dispatch_due(tenant)
    enrollment = Enrollment.objects.get(lead=lead)
    assert result.skipped[codes.CONDITIONS_INVALID] == 1
    assert reasons.is_code(enrollment.stalled_reason, codes.CONDITIONS_INVALID)
    assert "conditions.all[0].hours" in reasons.render(enrollment.stalled_reason)
    assert not Message.objects.filter(lead=lead).exists()


def test_dispatch_keeps_constant_queries_with_conditions(tenant, other_tenant, monday):
    def world(owner, leads):
        built = conditioned_world(
            owner, [{"kind": "no_reply"}, {"kind": "stage_not", "stages": ["DEAD"]}], leads=leads
        )
        half = [lead.pk for lead in built["leads"][::2]]
        Journey.objects.filter(lead_id__in=half).update(last_reply_at=MONDAY_10)
        return built

    world(tenant, 10)
    world(other_tenant, 300)
    with CaptureQueriesContext(connection) as small:
        assert dispatch_due(tenant).skipped[codes.STEP_SKIPPED] == 5
    with CaptureQueriesContext(connection) as big:
        assert dispatch_due(other_tenant, batch_size=500).skipped[codes.STEP_SKIPPED] == 150

    def selects(ctx):
        return sum(q["sql"].lstrip().upper().startswith("SELECT") for q in ctx.captured_queries)

    assert selects(small) == selects(big)
    if connection.vendor == "postgresql":
        assert len(small.captured_queries) == len(big.captured_queries)


def test_a_dry_run_writes_no_skip(tenant, monday):
    world = conditioned_world(tenant, [{"kind": "replied"}], leads=1)
    result = dispatch_due(tenant, dry_run=True)
    assert result.skipped[codes.STEP_SKIPPED] == 1
    assert not SequenceEvent.objects.exists()
    assert Enrollment.objects.get(lead=world["leads"][0]).current_step == 0


def test_the_plan_preview_explains_a_skipped_step(tenant, monday):
    world = conditioned_world(tenant, [{"kind": "replied"}], leads=2)
    Journey.objects.filter(lead=world["leads"][0]).update(last_reply_at=MONDAY_10)
    shown = preview(tenant, now=MONDAY_10 - timedelta(hours=3))
    texts = {group.text: group.count for group in shown.waiting}
    wanted = "step 1 skipped: the lead has not replied, and the step is only for leads who have"
    assert texts.get(wanted) == 1
    assert len(shown.sends) == 1
    assert not SequenceEvent.objects.exists()  # the preview writes nothing
