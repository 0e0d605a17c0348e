"""The review queue: SLAs in working hours, stopping automation, actions, escalation."""

from __future__ import annotations

from datetime import datetime, timedelta
from io import StringIO
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import translation

from cerniq import reasons
from cerniq.models import Alert
from hitl import reasons as hitl_reasons
from hitl import review
from hitl.models import ReviewItem
from hitl.review import ReviewError
from outreach import stages
from outreach.dispatch import dispatch_due
from outreach.models import Journey, Message, Priority, Stage, StageTransition
from outreach.sending import send_message
from tests.factories import make_message, make_outreach_world, make_user

BUCHAREST = ZoneInfo("Europe/Bucharest")
MONDAY_10 = datetime(2026, 11, 23, 10, 0, tzinfo=BUCHAREST)


def at(*args: int) -> datetime:
    return datetime(*args, tzinfo=BUCHAREST)


def inbound(lead, body="Da, sunt interesat. Cât costă?"):
    return make_message(
        lead,
        direction=Message.Direction.INBOUND,
        status=Message.Status.RECEIVED,
        idempotency_key=None,
        body=body,
    )


def open_reply(lead, priority=Priority.HIGH, draft="Bună ziua! Vă trimit oferta.", **kw):
    return review.open_item(
        lead, reason="positive reply", priority=priority, message=inbound(lead), draft=draft, **kw
    )


def journey_of(lead) -> Journey:
    return Journey.objects.get(lead=lead)


def move_to_warm_reply(lead):
    stages.transition(journey_of(lead), Stage.WARM_REPLY, reason="reply", by_system="tests")


# --- SLA in working hours --------------------------------------------------------------


@pytest.mark.parametrize(
    ("opened", "priority", "due"),
    [
        # Friday 17:30: 30 minutes on Friday, 30 on Monday.
        (at(2026, 11, 20, 17, 30), Priority.URGENT, at(2026, 11, 23, 9, 30)),
        # Friday 17:00: 1h on Friday; Mon 30 Nov and Tue 1 Dec are public holidays.
        (at(2026, 11, 27, 17, 0), Priority.HIGH, at(2026, 12, 2, 12, 0)),
        # 24 working hours with a 09:00-18:00 window: 8h Monday, 9h Tuesday, 7h Wednesday.
        (MONDAY_10, Priority.MEDIUM, at(2026, 11, 25, 16, 0)),
        # 72h: Mon 8 + Tue..Fri 36 + (holidays) + Wed..Fri 27 = 71, then 1h the next Monday.
        (MONDAY_10, Priority.LOW, at(2026, 12, 7, 10, 0)),
        # Opened on a Sunday: counting starts at Monday's opening.
        (at(2026, 11, 22, 15, 0), Priority.URGENT, at(2026, 11, 23, 10, 0)),
    ],
)
def test_sla_due_counts_only_working_hours(tenant, opened, priority, due):
    with time_machine.travel(opened, tick=False):
        world = make_outreach_world(tenant, leads=1, phones=1)
        item = open_reply(world["leads"][0], priority=priority)
    item.refresh_from_db()
    assert item.sla_due_at == due
    assert item.priority == priority and item.status == ReviewItem.Status.OPEN


# --- opening stops automation ------------------------------------------------------------


def test_open_item_flags_the_journey(lead):
    item = open_reply(lead, priority=Priority.HIGH, sentiment=70, intent="interested")
    journey = journey_of(lead)
    assert journey.requires_human_review
    assert journey.review_priority == Priority.HIGH
    assert journey.review_reason == "positive reply"
    assert item.sentiment_score == 70 and item.intent == "interested"
    assert item.ai_draft.startswith("Bună ziua")


def test_dispatch_skips_a_lead_under_review(tenant, world):
    flagged, other = world["leads"]
    open_reply(flagged)
    result = dispatch_due(tenant)
    assert result.eligible == 1
    assert list(Message.objects.filter(direction="OUT").values_list("lead_id", flat=True)) == [
        other.pk
    ]


def test_an_already_queued_automated_message_is_cancelled_when_sent(tenant, lead):
    dispatch_due(tenant)
    queued = Message.objects.get(lead=lead, direction="OUT")
    assert queued.status == Message.Status.QUEUED and not queued.is_manual
    open_reply(lead)
    outcome = send_message(queued.pk)
    assert (
        outcome.kind == "cancelled"
        and reasons.render(outcome.detail) == "the lead is held for human review"
    )
    queued.refresh_from_db()
    assert queued.status == Message.Status.CANCELLED


def test_open_item_is_idempotent_per_message_and_kind(lead):
    message = inbound(lead)
    first = review.open_item(lead, reason="reply", priority=Priority.LOW, message=message)
    again = review.open_item(lead, reason="reply", priority=Priority.HIGH, message=message)
    assert again.pk == first.pk
    assert ReviewItem.objects.filter(lead=lead).count() == 1
    approval = review.open_item(
        lead, reason="draft", priority=Priority.LOW, message=message, kind="APPROVAL"
    )
    assert approval.pk != first.pk
    # Once closed, the same message may be reviewed again.
    review.reject(first, make_user(lead.tenant), "not relevant")
    reopened = review.open_item(lead, reason="reply", priority=Priority.LOW, message=message)
    assert reopened.pk not in (first.pk, approval.pk)


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"priority": "NOW"}, "Unknown priority"),
        ({"reason": " "}, "needs a reason"),
        ({"sentiment": 101}, "between -100 and 100"),
        ({"kind": "OTHER"}, "Unknown review kind"),
    ],
)
def test_open_item_validates(lead, kwargs, error):
    args = {"reason": "reply", "priority": Priority.LOW, **kwargs}
    with pytest.raises(ReviewError, match=error):
        review.open_item(lead, **args)
    assert not ReviewItem.objects.exists()
    assert not journey_of(lead).requires_human_review


def test_open_item_refuses_another_leads_message(world):
    lead, other = world["leads"]
    with pytest.raises(ReviewError, match="does not belong"):
        review.open_item(lead, reason="x", priority=Priority.LOW, message=inbound(other))


# --- actions -----------------------------------------------------------------------------


def test_assign(lead, operator):
    item = open_reply(lead)
    review.assign(item, operator)
    assert item.status == ReviewItem.Status.ASSIGNED and item.assignee == operator
    assert item.assigned_at == MONDAY_10
    colleague = make_user(lead.tenant)
    review.assign(item, colleague)  # reassigning is allowed
    assert item.assignee == colleague


def test_assign_refuses_outsiders_and_closed_items(lead, operator, other_tenant):
    item = open_reply(lead)
    with pytest.raises(ReviewError, match="not a member"):
        review.assign(item, make_user(other_tenant))
    review.reject(item, operator, "spam")
    with pytest.raises(ReviewError, match="already dismissed"):
        review.assign(item, operator)


def test_approve_queues_the_draft_as_a_manual_message_and_resolves(lead, operator):
    item = open_reply(lead)
    message = review.approve_draft(item, operator)
    message.refresh_from_db()
    assert message.status == Message.Status.QUEUED and message.is_manual
    assert message.body == "Bună ziua! Vă trimit oferta."
    assert message.sent_by == operator and message.channel_reason == "approved AI reply"
    assert item.status == ReviewItem.Status.RESOLVED
    assert item.resolved_by == operator and item.resolved_at == MONDAY_10
    assert f"#{message.pk}" in item.resolution
    journey = journey_of(lead)
    assert not journey.requires_human_review and journey.review_priority == ""
    assert send_message(message.pk).kind == "sent"


def test_edit_and_send(lead, operator):
    item = open_reply(lead)
    message = review.approve_draft(item, operator, text="  Bună ziua, vă sun mâine la 10.  ")
    assert message.body == "Bună ziua, vă sun mâine la 10."
    assert "edited reply" in item.resolution


def test_approve_without_a_draft_needs_text(lead, operator):
    item = open_reply(lead, draft="")
    with pytest.raises(ReviewError, match="no AI draft"):
        review.approve_draft(item, operator)
    item.refresh_from_db()
    assert item.status == ReviewItem.Status.OPEN


def test_a_refused_send_changes_nothing(lead, operator):
    item = open_reply(lead)
    Journey.objects.filter(lead=lead).update(whatsapp_opted_out=True)
    with pytest.raises(ReviewError, match="opted out of WhatsApp"):
        review.approve_draft(item, operator)
    item.refresh_from_db()
    assert item.status == ReviewItem.Status.OPEN and not item.resolution
    assert not Message.objects.filter(lead=lead, is_manual=True).exists()
    assert journey_of(lead).requires_human_review


def test_only_the_assignee_acts_on_an_assigned_item(lead, operator):
    item = open_reply(lead)
    review.assign(item, operator)
    colleague = make_user(lead.tenant, first_name="Ana", last_name="Pop")
    with pytest.raises(ReviewError, match="assigned to"):
        review.approve_draft(item, colleague)
    with pytest.raises(ReviewError, match="assigned to"):
        review.resolve(item, colleague)
    assert not Message.objects.filter(lead=lead, is_manual=True).exists()
    review.assign(item, colleague)
    review.resolve(item, colleague)
    assert item.status == ReviewItem.Status.RESOLVED and item.resolved_by == colleague


def test_reject_dismisses_without_sending(lead, operator):
    item = open_reply(lead)
    with pytest.raises(ReviewError, match="Say why"):
        review.reject(item, operator, "  ")
    review.reject(item, operator, "auto-reply from their mail server")
    assert item.status == ReviewItem.Status.DISMISSED
    assert item.resolution == "auto-reply from their mail server"
    assert not Message.objects.filter(lead=lead, is_manual=True).exists()
    assert not journey_of(lead).requires_human_review


@pytest.mark.parametrize("stage", [None, Stage.NEGOTIATION, Stage.CONVERTED, Stage.DEAD])
def test_resolve_with_each_stage(lead, operator, stage):
    move_to_warm_reply(lead)
    item = open_reply(lead)
    review.resolve(item, operator, stage=stage, note="called them")
    assert item.status == ReviewItem.Status.RESOLVED
    assert item.resolved_stage == (stage or "") and item.resolution == "called them"
    journey = journey_of(lead)
    assert journey.stage == (stage or Stage.WARM_REPLY)
    assert not journey.requires_human_review
    moves = StageTransition.objects.filter(journey=journey, by_user=operator)
    if stage:
        move = moves.get()
        assert (move.from_stage, move.to_stage) == (Stage.WARM_REPLY, stage)
        assert reasons.parse(move.reason) == (hitl_reasons.STAGE_REVIEW, {"note": "called them"})
    else:
        assert not moves.exists()


@pytest.mark.parametrize(
    ("stage", "error"),
    [
        (Stage.NEGOTIATION, "Cannot move a lead from Cold to Negotiation"),
        (Stage.PAUSED, "can only close a lead as"),
        (Stage.COLD, "can only close a lead as"),
    ],
)
def test_illegal_resolve_changes_nothing(lead, operator, stage, error):
    item = open_reply(lead)
    with pytest.raises(ReviewError, match=error):
        review.resolve(item, operator, stage=stage)
    item.refresh_from_db()
    assert item.status == ReviewItem.Status.OPEN and item.resolved_at is None
    journey = journey_of(lead)
    assert journey.stage == Stage.COLD and journey.requires_human_review
    assert not StageTransition.objects.filter(journey=journey).exists()


def test_resolving_twice_is_refused(lead, operator):
    item = open_reply(lead)
    review.resolve(item, operator)
    with pytest.raises(ReviewError, match="already resolved"):
        review.resolve(item, operator, stage=Stage.DEAD)
    assert journey_of(lead).stage == Stage.COLD


def test_journey_keeps_the_highest_priority_and_is_released_by_the_last_item(lead, operator):
    low = open_reply(lead, priority=Priority.LOW)
    assert journey_of(lead).review_priority == Priority.LOW
    urgent = review.open_item(
        lead, reason="asks for a call", priority=Priority.URGENT, message=inbound(lead)
    )
    journey = journey_of(lead)
    assert (journey.review_priority, journey.review_reason) == (Priority.URGENT, "asks for a call")
    review.resolve(urgent, operator)
    journey = journey_of(lead)
    assert journey.requires_human_review and journey.review_priority == Priority.LOW
    assert review.release_journey_if_clear(lead) is False
    review.reject(low, operator, "duplicate")
    journey = journey_of(lead)
    assert not journey.requires_human_review
    assert (journey.review_priority, journey.review_reason) == ("", "")


def test_release_makes_a_stalled_enrollment_due_again(tenant, lead, operator):
    dispatch_due(tenant)
    queued = Message.objects.get(lead=lead, direction="OUT")
    item = open_reply(lead)
    assert send_message(queued.pk).kind == "cancelled"
    assert journey_of(lead).next_action_at is None  # dispatch cleared it: in flight
    review.resolve(item, operator)
    assert journey_of(lead).next_action_at == MONDAY_10
    dispatch_due(tenant)
    again = Message.objects.get(lead=lead, direction="OUT", status=Message.Status.QUEUED)
    assert again.step_id == queued.step_id and again.pk != queued.pk


def test_release_does_not_touch_a_lead_whose_step_is_still_queued(tenant, lead, operator):
    dispatch_due(tenant)
    item = open_reply(lead)
    review.resolve(item, operator)
    assert journey_of(lead).next_action_at is None  # the queued step will go out and plan


# --- SLA escalation ----------------------------------------------------------------------


def sla_alerts():
    return Alert.objects.filter(kind=Alert.Kind.SLA_BREACH)


def test_check_sla_escalates_once_per_breach(lead, clock):
    item = open_reply(lead, priority=Priority.LOW)
    due = item.sla_due_at
    assert review.check_sla(due - timedelta(seconds=1)) == 0

    first = due + timedelta(minutes=1)
    assert review.check_sla(first) == 1
    item.refresh_from_db()
    assert item.priority == Priority.MEDIUM and item.sla_breached_at == first
    assert item.sla_due_at == review.sla_due(lead.tenant, Priority.MEDIUM, first)
    assert journey_of(lead).review_priority == Priority.MEDIUM
    alert = sla_alerts().get()
    assert alert.subject == f"review:{item.pk}" and alert.severity == Alert.Severity.WARNING
    assert alert.occurrences == 1 and reasons.parse(alert.message)[1]["now"] == Priority.MEDIUM
    with translation.override("en"):
        assert "missed its Low deadline; now Medium" in reasons.render(alert.message)

    for minutes in (2, 3):
        assert review.check_sla(due + timedelta(minutes=minutes)) == 0
    item.refresh_from_db()
    assert item.priority == Priority.MEDIUM and item.sla_breached_at == first
    assert sla_alerts().get().occurrences == 1

    second = item.sla_due_at
    assert review.check_sla(second) == 1
    item.refresh_from_db()
    assert item.priority == Priority.HIGH and item.sla_breached_at == second
    assert journey_of(lead).review_priority == Priority.HIGH
    assert sla_alerts().get().occurrences == 2
    assert review.check_sla(second + timedelta(minutes=1)) == 0


def test_urgent_stays_urgent_and_alerts_critical(lead, clock):
    item = open_reply(lead, priority=Priority.HIGH)
    review.check_sla(item.sla_due_at)
    item.refresh_from_db()
    assert item.priority == Priority.URGENT
    assert sla_alerts().get().severity == Alert.Severity.CRITICAL
    review.check_sla(item.sla_due_at)
    item.refresh_from_db()
    assert item.priority == Priority.URGENT
    assert item.sla_due_at == review.sla_due(lead.tenant, Priority.URGENT, item.sla_breached_at)
    alert = sla_alerts().get()
    assert alert.occurrences == 2
    assert reasons.parse(alert.message)[1] | {"due": ""} == {
        "lead": lead.name,
        "why": item.reason,
        "missed": Priority.URGENT,
        "now": Priority.URGENT,
        "due": "",
    }


def test_an_open_warning_alert_becomes_critical_when_the_item_reaches_urgent(lead, clock):
    item = open_reply(lead, priority=Priority.MEDIUM)
    review.check_sla(item.sla_due_at)
    assert sla_alerts().get().severity == Alert.Severity.WARNING
    item.refresh_from_db()
    review.check_sla(item.sla_due_at)
    assert sla_alerts().get().severity == Alert.Severity.CRITICAL


def test_closed_items_are_not_escalated_and_their_alert_is_resolved(lead, operator, clock):
    item = open_reply(lead, priority=Priority.URGENT)
    review.check_sla(item.sla_due_at)
    review.resolve(item, operator)
    assert sla_alerts().get().resolved_at is not None
    assert review.check_sla(item.sla_due_at + timedelta(days=30)) == 0


def test_check_sla_uses_the_clock_by_default(lead, clock):
    open_reply(lead, priority=Priority.URGENT)
    assert review.check_sla() == 0
    clock.shift(timedelta(hours=1))
    assert review.check_sla() == 1
    assert review.check_sla() == 0


def test_check_sla_selects_breached_items_in_one_query(tenant, clock):
    leads = make_outreach_world(tenant, leads=5, phones=1)["leads"]

    def run(to_open):
        for lead in to_open:
            open_reply(lead, priority=Priority.URGENT)
        with CaptureQueriesContext(connection) as queries:
            escalated = review.check_sla(MONDAY_10 + timedelta(hours=2))
        selects = [
            q["sql"]
            for q in queries.captured_queries
            if q["sql"].startswith("SELECT") and 'FROM "hitl_reviewitem"' in q["sql"]
        ]
        return escalated, len(selects)

    # The breached items, then the open items of their leads: 2 whatever the count.
    assert run(leads[:1]) == (1, 2)
    assert run(leads[1:]) == (4, 2)  # the first one is not due again yet


def test_check_sla_command(lead, clock):
    item = open_reply(lead, priority=Priority.URGENT)
    clock.move_to(item.sla_due_at + timedelta(minutes=1))
    out = StringIO()
    call_command("check_sla", stdout=out)
    assert out.getvalue().strip() == "escalated 1 items"
    out = StringIO()
    call_command("check_sla", stdout=out)
    assert out.getvalue().strip() == "escalated 0 items"
