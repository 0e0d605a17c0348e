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
