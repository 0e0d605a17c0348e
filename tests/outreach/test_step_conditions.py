"""A step's conditions (outreach.step_conditions): each kind sends, skips or waits, a stored
value that means nothing is refused naming its part, and every condition must hold."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from outreach.step_conditions import Condition, ConditionInvalid, Facts, judge, parse, to_json

NOW = datetime(2026, 11, 23, 10, 0, tzinfo=UTC)
QUIET = Facts(replied=False, stage="CONTACTED_EMAIL", has_phone=True, email_bounced=False)


def facts(**changes) -> Facts:
    return Facts(**{**QUIET.__dict__, **changes})


@pytest.mark.parametrize(
    ("condition", "lead", "go"),
    [
        (Condition("no_reply"), QUIET, True),
        (Condition("no_reply"), facts(replied=True), False),
        (Condition("replied"), facts(replied=True), True),
        (Condition("replied"), QUIET, False),
        (Condition("email_bounced"), facts(email_bounced=True), True),
        (Condition("email_bounced"), QUIET, False),
        (Condition("no_phone"), facts(has_phone=False), True),
        (Condition("no_phone"), QUIET, False),
        (Condition("stage_not", stages=("WARM_REPLY",)), QUIET, True),
        (Condition("stage_not", stages=("CONTACTED_EMAIL",)), QUIET, False),
    ],
)
def test_each_plain_kind_sends_or_skips(condition, lead, go):
    verdict = judge([condition], lead, NOW)
    assert verdict.go is go
    assert verdict.skipped is (not go) and (go or verdict.kind == condition.kind)


def test_not_delivered_waits_until_it_can_tell_then_sends():
    sent = NOW - timedelta(hours=5)
    condition = Condition("whatsapp_not_delivered", hours=24)
    waiting = judge([condition], facts(last_whatsapp_at=sent), NOW)
    assert not waiting.go and waiting.wait_until == sent + timedelta(hours=24)
    assert judge([condition], facts(last_whatsapp_at=sent), sent + timedelta(hours=24)).go
    delivered = facts(last_whatsapp_at=sent, delivered_at=sent + timedelta(minutes=1))
    assert judge([condition], delivered, NOW).skipped
    assert judge([condition], QUIET, NOW).go  # nothing went


def test_not_read_and_a_provider_that_cannot_tell():
    sent = NOW - timedelta(hours=50)
    condition = Condition("whatsapp_not_read", hours=48)
    delivered_unread = facts(last_whatsapp_at=sent, delivered_at=sent)
    assert judge([condition], delivered_unread, NOW).go
    read = facts(last_whatsapp_at=sent, read_at=sent + timedelta(hours=1))
    assert judge([condition], read, NOW).skipped
    blind = facts(last_whatsapp_at=sent, reports_delivery=False)
    verdict = judge([condition], blind, NOW)
    assert verdict.skipped and verdict.kind == "whatsapp_not_read:unknown"


def test_every_condition_must_hold_and_a_skip_beats_a_wait():
    sent = NOW - timedelta(hours=1)
    both = [Condition("whatsapp_not_delivered", hours=24), Condition("no_reply")]
    assert judge(both, facts(last_whatsapp_at=sent), NOW).wait_until is not None
    assert judge(both, facts(last_whatsapp_at=sent, replied=True), NOW).skipped


def test_stored_values_round_trip_and_nonsense_is_refused_naming_the_part():
    conditions = [
        Condition("no_reply"),
        Condition("whatsapp_not_read", hours=48),
        Condition("stage_not", stages=("WARM_REPLY", "DEAD")),
    ]
    assert parse(to_json(conditions)) == conditions
    assert parse({}) == [] and parse(None) == []
    for raw, field in [
        ({"any": []}, "conditions"),
        ({"all": ["x"]}, "conditions.all[0]"),
        ({"all": [{"kind": "sometimes"}]}, "conditions.all[0].kind"),
        ({"all": [{"kind": "whatsapp_not_read", "hours": 0}]}, "conditions.all[0].hours"),
        ({"all": [{"kind": "whatsapp_not_read", "hours": True}]}, "conditions.all[0].hours"),
        ({"all": [{"kind": "stage_not", "stages": []}]}, "conditions.all[0].stages"),
    ]:
        with pytest.raises(ConditionInvalid) as refused:
            parse(raw)
        assert refused.value.field == field
    with pytest.raises(ConditionInvalid):
        parse(
            {"all": [{"kind": "stage_not", "stages": ["NOPE"]}]}, known_stages=frozenset({"DEAD"})
        )
