from __future__ import annotations

import pytest

from outreach import stages
from outreach.models import Stage, StageTransition
from tests.factories import make_lead


@pytest.fixture
def journey(tenant):
    return make_lead(tenant).journey


def test_legal_move_changes_stage_and_writes_audit_row(journey, operator):
    stages.transition(
        journey, Stage.CONTACTED_WA, reason="first message sent", by_system="dispatch"
    )
    journey.refresh_from_db()
    assert (journey.previous_stage, journey.stage) == (Stage.COLD, Stage.CONTACTED_WA)
    row = StageTransition.objects.get(journey=journey)
    assert (row.from_stage, row.to_stage, row.by_system) == ("COLD", "CONTACTED_WA", "dispatch")


@pytest.mark.parametrize("target", [Stage.CONVERTED, Stage.NEGOTIATION, Stage.COLD])
def test_illegal_move_is_refused_and_nothing_changes(journey, target):
    with pytest.raises(stages.IllegalTransition):
        stages.transition(journey, target, reason="try")
    journey.refresh_from_db()
    assert journey.stage == Stage.COLD
    assert not StageTransition.objects.exists()


def test_pause_and_resume_return_to_the_previous_stage(journey, operator):
    stages.transition(journey, Stage.CONTACTED_WA, reason="sent")
    stages.pause(journey, reason="operator asked", by_user=operator)
    assert stages.allowed_targets(journey) == [Stage.CONTACTED_WA, Stage.DEAD]
    stages.resume(journey, reason="back", by_user=operator)
    journey.refresh_from_db()
    assert journey.stage == Stage.CONTACTED_WA
    assert StageTransition.objects.filter(journey=journey).count() == 3


def test_converted_is_final(journey):
    for stage in (Stage.WARM_REPLY, Stage.CONVERTED):
        stages.transition(journey, stage, reason="progress")
    assert stages.allowed_targets(journey) == []
    with pytest.raises(stages.IllegalTransition, match="Cannot move"):
        stages.transition(journey, Stage.DEAD, reason="x")


LEGAL = [(src, dst) for src, targets in stages.ALLOWED.items() for dst in sorted(targets)]
ILLEGAL = [
    (src, dst)
    for src in Stage.values
    for dst in Stage.values
    if src != dst and dst not in stages.ALLOWED[src]
]


def journey_at(tenant, stage, previous=""):
    journey = make_lead(tenant).journey
    type(journey).objects.filter(pk=journey.pk).update(stage=stage, previous_stage=previous)
    journey.refresh_from_db()
    return journey


@pytest.mark.parametrize(("src", "dst"), LEGAL, ids=[f"{a}->{b}" for a, b in LEGAL])
def test_every_legal_transition_works_and_is_audited(tenant, operator, src, dst):
    # A paused lead may only go back where it came from (or to DEAD).
    journey = journey_at(tenant, src, previous=dst if src == Stage.PAUSED else "")
    stages.transition(journey, dst, reason="table test", by_user=operator)
    journey.refresh_from_db()
    assert journey.stage == dst
    audit = StageTransition.objects.get(journey=journey)
    assert (audit.from_stage, audit.to_stage, audit.by_user) == (src, dst, operator)


@pytest.mark.parametrize(("src", "dst"), ILLEGAL, ids=[f"{a}->{b}" for a, b in ILLEGAL])
def test_every_illegal_transition_is_refused_and_changes_nothing(tenant, src, dst):
    journey = journey_at(tenant, src)
    with pytest.raises(stages.IllegalTransition):
        stages.transition(journey, dst, reason="table test")
    journey.refresh_from_db()
    assert journey.stage == src
    assert not StageTransition.objects.filter(journey=journey).exists()


def test_paused_lead_cannot_jump_elsewhere(tenant):
    journey = journey_at(tenant, Stage.PAUSED, previous=Stage.COLD)
    with pytest.raises(stages.IllegalTransition):
        stages.transition(journey, Stage.NEGOTIATION, reason="skip ahead")


def test_a_reason_is_required(tenant):
    journey = journey_at(tenant, Stage.COLD)
    with pytest.raises(stages.IllegalTransition, match="reason"):
        stages.transition(journey, Stage.DEAD, reason="")
