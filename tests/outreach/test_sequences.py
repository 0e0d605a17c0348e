from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
import time_machine

from cerniq import reasons
from outreach import reasons as codes
from outreach import sequences, stages
from outreach.models import Enrollment, Journey, Message, Stage
from outreach.sequences import (
    EnrollmentError,
    StepSpec,
    VersionSpec,
    advance_after_send,
    enroll,
    replace_steps,
    save_versions,
)
from tests.factories import make_lead, make_message, make_outreach_world, make_template
from whatsapp.models import QuotaUsage

BUCHAREST = ZoneInfo("Europe/Bucharest")
FRIDAY_17 = datetime(2026, 11, 27, 17, 0, tzinfo=BUCHAREST)


@pytest.fixture
def world(tenant):
    with time_machine.travel(FRIDAY_17, tick=False):
        yield make_outreach_world(tenant, leads=2, steps=2, enroll=False)


def test_enroll_schedules_the_first_step_in_the_window(world):
    lead = world["leads"][0]
    with time_machine.travel(datetime(2026, 11, 28, 12, 0, tzinfo=BUCHAREST), tick=False):
        enrollment = enroll(lead, world["sequence"])
    # Saturday noon: Monday 30 Nov and Tuesday 1 Dec are holidays, so Wednesday 09:00.
    assert enrollment.next_run_at == datetime(2026, 12, 2, 9, 0, tzinfo=BUCHAREST)
    journey = Journey.objects.get(lead=lead)
    assert journey.next_action_at == enrollment.next_run_at
    assert journey.current_sequence == world["sequence"]


def test_one_active_enrollment_per_lead_and_only_before_a_reply(world):
    lead, other = world["leads"]
    enroll(lead, world["sequence"])
    with pytest.raises(EnrollmentError, match="already in a sequence"):
        enroll(lead, world["sequence"])
    stages.transition(other.journey, Stage.WARM_REPLY, reason="replied")
    with pytest.raises(EnrollmentError, match="the lead is Warm reply"):
        enroll(other, world["sequence"])


def test_advance_schedules_next_step_then_completes(world):
    lead = world["leads"][0]
    enrollment = enroll(lead, world["sequence"])
    first, second = world["sequence"].steps.order_by("position")
    advance_after_send(enrollment, first, FRIDAY_17)
    enrollment.refresh_from_db()
    # One working day after Friday 17:00 is Monday 17:00... Monday 30 Nov is a holiday,
    # Tuesday 1 Dec too: Wednesday 17:00.
    assert enrollment.next_run_at == datetime(2026, 12, 2, 17, 0, tzinfo=BUCHAREST)
    assert (enrollment.current_step, enrollment.status) == (1, "ACTIVE")
    advance_after_send(enrollment, second, FRIDAY_17 + timedelta(days=5))
    enrollment.refresh_from_db()
    assert (enrollment.current_step, enrollment.status) == (2, "COMPLETED")
    assert Journey.objects.get(lead=lead).next_action_at is None


def test_editing_a_sequence_does_not_change_running_enrollments(world, tenant):
    lead, late = world["leads"]
    sequence = world["sequence"]
    enrollment = enroll(lead, sequence)
    new_template = make_template(tenant)
    version = replace_steps(sequence, [StepSpec("WHATSAPP", new_template.pk)])
    assert version == 2
    assert enrollment.sequence_version == 1
    assert sequences.steps_of(sequence, 1)[0].template != new_template  # old steps kept
    late_enrollment = enroll(late, sequence)
    assert late_enrollment.sequence_version == 2
    assert [s.template for s in sequences.steps_of(sequence)] == [new_template]


def test_editing_an_unused_sequence_rewrites_its_steps_in_place(world, tenant):
    template = make_template(tenant)
    assert replace_steps(world["sequence"], [StepSpec("WHATSAPP", template.pk)] * 3) == 1
    assert world["sequence"].steps.count() == 3


@pytest.mark.parametrize("stage", [Stage.DEAD, Stage.CONVERTED])
def test_final_stages_stop_the_sequence_and_cancel_queued_work(world, tenant, stage):
    lead = world["leads"][0]
    enroll(lead, world["sequence"])
    queued = make_message(lead, phone=world["phones"][0], quota_cost=1, quota_day=FRIDAY_17.date())
    QuotaUsage.objects.create(tenant=tenant, phone=world["phones"][0], day=FRIDAY_17.date(), used=1)
    journey = Journey.objects.get(lead=lead)
    if stage == Stage.CONVERTED:
        stages.transition(journey, Stage.WARM_REPLY, reason="replied")
    stages.transition(journey, stage, reason="operator")
    enrollment = Enrollment.objects.get(lead=lead)
    assert enrollment.status == "STOPPED"
    assert reasons.is_code(enrollment.stop_reason, codes.STOP_STAGE, codes.STOP_REPLY)
    queued.refresh_from_db()
    assert queued.status == Message.Status.CANCELLED
    assert QuotaUsage.objects.get().used == 0


def test_pause_holds_the_enrollment_and_resume_makes_the_lead_due(world):
    lead = world["leads"][0]
    enroll(lead, world["sequence"])
    journey = Journey.objects.get(lead=lead)
    with time_machine.travel(FRIDAY_17, tick=False):
        stages.pause(journey, reason="operator")
        assert Enrollment.objects.get(lead=lead).status == "PAUSED"
        stages.resume(journey, reason="operator")
    assert Enrollment.objects.get(lead=lead).status == "ACTIVE"
    assert Journey.objects.get(lead=lead).next_action_at == FRIDAY_17


def test_cancelled_message_frees_its_key_for_a_later_attempt(world):
    lead = world["leads"][0]
    message = make_message(lead, idempotency_key="k-1")
    sequences.cancel_message(message, "test")
    message.refresh_from_db()
    assert message.idempotency_key == f"k-1#cancelled-{message.pk}"
    make_message(lead, idempotency_key="k-1")  # the step can be queued again


def test_lead_without_journey_in_tenant_is_skipped(world, other_tenant):
    stranger = make_lead(other_tenant)
    result = sequences.enroll_many([stranger], world["sequence"])
    assert result.enrolled == 0 and result.skipped == {"enroll.not_in_workspace": 1}


def test_editing_a_used_versions_text_makes_a_new_version_and_keeps_the_results(tenant):
    template = make_template(tenant, name="Oferta")
    used = template.versions.get()
    make_message(make_lead(tenant), template_version=used)
    fresh = save_versions(template, [VersionSpec(body="Salut {{company_name}}", weight=10)])[0]
    saved = save_versions(
        template,
        [
            VersionSpec(id=used.pk, body="Bună ziua, text nou", weight=90),
            VersionSpec(id=fresh.pk, body="Hei {{company_name}}", weight=20),
        ],
    )
    rows = list(template.versions.order_by("version").values_list("version", "body", "is_active"))
    assert rows == [
        (1, used.body, False),  # retired: its messages and results keep their text
        (2, "Hei {{company_name}}", True),  # never used: edited in place
        (3, "Bună ziua, text nou", True),
    ]
    assert [v.version for v in saved] == [3, 2]


def test_changing_only_weight_or_state_of_a_used_version_stays_in_place(tenant):
    template = make_template(tenant, name="Pondere")
    version = template.versions.get()
    make_message(make_lead(tenant), template_version=version)
    save_versions(
        template,
        [VersionSpec(id=version.pk, body=version.body, subject=version.subject, weight=5)],
    )
    assert list(template.versions.values_list("version", "weight", "is_active")) == [(1, 5, True)]
