"""Operator takeover: no automated message reaches the lead; the operator's does."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
import time_machine

from cerniq import reasons
from cerniq.providers import get_backend
from hitl import review
from hitl.review import ReviewError
from hitl.takeover import TakeoverError, hand_back, send_as_operator, take_over
from outreach.dispatch import dispatch_due
from outreach.manual import SendRefused, queue_reply, send_manual
from outreach.models import Enrollment, Journey, Message, Priority, Stage, StageTransition
from outreach.reasons import STOP_TAKEOVER
from outreach.sending import send_message
from tests.factories import make_message, make_outreach_world, make_user

BUCHAREST = ZoneInfo("Europe/Bucharest")
MONDAY_10 = datetime(2026, 11, 23, 10, 0, tzinfo=BUCHAREST)
TUESDAY_10 = MONDAY_10 + timedelta(days=1)


@pytest.fixture
def sandbox(settings):
    """A fresh sandbox WhatsApp backend (phones with provider "sandbox" use it)."""
    settings.PROVIDERS = {**settings.PROVIDERS}  # resets the cached backends
    return get_backend("whatsapp.sandbox")


@pytest.fixture
def world(tenant, clock, sandbox):
    world = make_outreach_world(tenant, leads=1, phones=1)
    assert world["phones"][0].provider == "sandbox"
    return world


@pytest.fixture
def lead(world):
    return world["leads"][0]


@pytest.fixture
def contacted(tenant, lead, clock):
    """Step 1 went out on Monday 10:00; step 2 is due Tuesday 10:00."""
    dispatch_due(tenant)
    first = Message.objects.get(lead=lead)
    assert send_message(first.pk).kind == "sent"
    journey = Journey.objects.get(lead=lead)
    assert journey.stage == Stage.CONTACTED_WA and journey.next_action_at == TUESDAY_10
    return first


def journey_of(lead) -> Journey:
    return Journey.objects.get(lead=lead)


def automated(lead, phone, **kw) -> Message:
    return make_message(lead, phone=phone, is_manual=False, **kw)


def test_take_over_sets_the_holder_and_stops_the_sequence(tenant, lead, operator, clock):
    dispatch_due(tenant)
    queued = Message.objects.get(lead=lead)
    journey = take_over(lead, operator)
    assert journey.taken_over_by == operator and journey.taken_over_at == MONDAY_10
    assert journey.next_action_at is None
    enrollment = Enrollment.objects.get(lead=lead)
    assert enrollment.status == Enrollment.Status.STOPPED
    assert reasons.is_code(enrollment.stop_reason, STOP_TAKEOVER)
    assert enrollment.next_run_at is None
    queued.refresh_from_db()
    assert queued.status == Message.Status.CANCELLED
    assert reasons.is_code(queued.error, STOP_TAKEOVER)
    assert take_over(lead, operator).taken_over_by == operator  # same user: no-op


def test_take_over_is_refused_while_someone_else_holds_it(lead):
    holder = make_user(lead.tenant, first_name="Ana", last_name="Pop")
    take_over(lead, holder)
    colleague = make_user(lead.tenant)
    with pytest.raises(TakeoverError, match="Ana Pop took over this conversation on 23 Nov"):
        take_over(lead, colleague)
    assert journey_of(lead).taken_over_by == holder
    assert issubclass(TakeoverError, ReviewError)


def test_take_over_refuses_outsiders(lead, other_tenant):
    with pytest.raises(ReviewError, match="not a member"):
        take_over(lead, make_user(other_tenant))
    assert journey_of(lead).taken_over_by is None


def test_no_automated_message_reaches_a_taken_over_lead(tenant, world, lead, operator, sandbox):
    phone = world["phones"][0]
    take_over(lead, operator)
    # Dispatch: the lead is due (and enrolled again behind the operator's back) but skipped.
    Enrollment.objects.filter(lead=lead).update(status=Enrollment.Status.ACTIVE, stop_reason="")
    Journey.objects.filter(lead=lead).update(next_action_at=MONDAY_10)
    assert dispatch_due(tenant).eligible == 0
    assert not Message.objects.filter(lead=lead, status=Message.Status.QUEUED).exists()
    # A sequence follow-up queued concurrently, and an AI auto reply: both cancelled.
    step = world["sequence"].steps.get(position=2)
    follow_up = automated(lead, phone, sequence=world["sequence"], step=step)
    ai_reply = automated(lead, phone, body="Mulțumim! Revenim cu oferta.", channel_reason="AI")
    for message in (follow_up, ai_reply):
        outcome = send_message(message.pk)
        assert outcome.kind == "cancelled"
        said = reasons.render(outcome.detail)
        assert said == "a colleague took the conversation over", said
        message.refresh_from_db()
        assert message.status == Message.Status.CANCELLED
    assert sandbox.outbox == []
    # The operator's own message goes out.
    mine = send_as_operator(lead, operator, "Bună ziua, sunt Ion de la Cerniq.")
    assert mine.is_manual and mine.sent_by == operator
    assert send_message(mine.pk).kind == "sent"
    assert [sent.text for sent in sandbox.outbox] == ["Bună ziua, sunt Ion de la Cerniq."]


def test_only_the_holder_writes_to_a_taken_over_lead(lead, operator):
    with pytest.raises(TakeoverError, match="Take over the conversation"):
        send_as_operator(lead, operator, "Bună ziua")
    take_over(lead, operator)
    colleague = make_user(lead.tenant, username="maria")
    with pytest.raises(TakeoverError, match="took over this conversation"):
        send_as_operator(lead, colleague, "Bună ziua")
    assert not Message.objects.filter(lead=lead, is_manual=True).exists()


def test_the_guard_is_in_queue_reply_for_every_caller(lead, operator):
    """Pages, the review queue and automation all queue through outreach.manual, which
    refuses anyone but the holder, and automation altogether, while a lead is taken over."""
    take_over(lead, operator)
    colleague = make_user(lead.tenant, username="maria")
    with pytest.raises(SendRefused, match="took over this conversation on"):
        send_manual(lead, "Bună ziua", user=colleague)
    with pytest.raises(SendRefused, match="automation is off"):
        queue_reply(lead, "Mulțumim!", reason="AI auto-reply", is_manual=False)
    assert not Message.objects.filter(lead=lead, status=Message.Status.QUEUED).exists()
    assert send_manual(lead, "Bună ziua", user=operator).sent_by == operator


def test_a_refused_operator_message_is_a_takeover_error(lead, operator):
    take_over(lead, operator)
    with pytest.raises(TakeoverError, match="empty"):
        send_as_operator(lead, operator, "   ")


def test_review_approval_is_refused_to_others_during_a_takeover(lead, operator):
    item = review.open_item(lead, reason="reply", priority=Priority.HIGH, draft="Bună ziua!")
    take_over(lead, operator)
    colleague = make_user(lead.tenant, username="maria")
    with pytest.raises(ReviewError, match="took over this conversation on"):
        review.approve_draft(item, colleague)
    message = review.approve_draft(item, operator)
    assert message.sent_by == operator


def test_hand_back_with_resume_continues_the_sequence(tenant, lead, operator, contacted, clock):
    take_over(lead, operator)
    send_message(send_as_operator(lead, operator, "Vă sun mâine.").pk)
    clock.move_to(TUESDAY_10 + timedelta(hours=1))
    assert dispatch_due(tenant).eligible == 0  # step 2 was due, but the lead is taken over

    journey = hand_back(lead, operator)
    assert journey.taken_over_by is None and journey.taken_over_at is None
    assert journey.next_action_at == TUESDAY_10 + timedelta(hours=1)
    enrollment = Enrollment.objects.get(lead=lead)
    assert enrollment.status == Enrollment.Status.ACTIVE and enrollment.current_step == 1

    assert dispatch_due(tenant).eligible == 1
    step2 = Message.objects.get(lead=lead, status=Message.Status.QUEUED)
    assert step2.step.position == 2 and "Pasul 2" in step2.body and not step2.is_manual
    assert send_message(step2.pk).kind == "sent"


def test_hand_back_without_resume_leaves_the_sequence_stopped(tenant, lead, operator, contacted):
    take_over(lead, operator)
    journey = hand_back(lead, operator, resume=False)
    assert journey.taken_over_by is None and journey.next_action_at is None
    assert Enrollment.objects.get(lead=lead).status == Enrollment.Status.STOPPED
    with time_machine.travel(TUESDAY_10 + timedelta(hours=1), tick=False):
        assert dispatch_due(tenant).eligible == 0
    assert not Message.objects.filter(lead=lead, status=Message.Status.QUEUED).exists()


def test_hand_back_with_a_stage(tenant, lead, operator, contacted):
    take_over(lead, operator)
    journey = hand_back(lead, operator, stage=Stage.DEAD)
    assert journey.stage == Stage.DEAD and journey.taken_over_by is None
    assert journey.next_action_at is None  # DEAD: nothing resumes
    assert Enrollment.objects.get(lead=lead).status == Enrollment.Status.STOPPED
    move = StageTransition.objects.get(journey=journey, to_stage=Stage.DEAD)
    assert move.by_user == operator


def test_illegal_hand_back_stage_changes_nothing(lead, operator, contacted):
    take_over(lead, operator)
    with pytest.raises(TakeoverError, match="Cannot move a lead"):
        hand_back(lead, operator, stage=Stage.CONVERTED)
    journey = journey_of(lead)
    assert journey.stage == Stage.CONTACTED_WA and journey.taken_over_by == operator


def test_hand_back_of_a_lead_that_moved_on_does_not_resume(tenant, lead, operator, contacted):
    take_over(lead, operator)
    hand_back(lead, operator, stage=Stage.PAUSED)
    journey = journey_of(lead)
    assert journey.stage == Stage.PAUSED and journey.next_action_at is None
    assert Enrollment.objects.get(lead=lead).status == Enrollment.Status.STOPPED


def test_only_the_holder_hands_back(lead, operator):
    with pytest.raises(TakeoverError, match="not taken over"):
        hand_back(lead, operator)
    take_over(lead, operator)
    colleague = make_user(lead.tenant, username="maria")
    with pytest.raises(TakeoverError, match=f"Only {operator.username}"):
        hand_back(lead, colleague)
    assert journey_of(lead).taken_over_by == operator


def test_hand_back_keeps_review_flags(tenant, lead, operator, contacted):
    review.open_item(lead, reason="asks for price", priority=Priority.HIGH)
    take_over(lead, operator)
    hand_back(lead, operator)
    journey = journey_of(lead)
    assert journey.requires_human_review and journey.taken_over_by is None
    with time_machine.travel(TUESDAY_10 + timedelta(hours=1), tick=False):
        assert dispatch_due(tenant).eligible == 0  # still under review
