"""A/B decisions on templates (outreach.ab_winners): what is counted (old enough sends, a
send that drew a positive reply counted once, this workspace only), the three modes, the
decision history (refreshed, withdrawn, applied, dismissed), a person's ruling kept, the
hourly run and its job, and the database's one open suggestion per template."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.conf import settings
from django.db import IntegrityError, transaction

from outreach.ab_winners import decisions, figures, rule
from outreach.models import ABDecision, Message, Template, TemplateVersion
from outreach.tasks import evaluate_ab_winners
from tests.ab_world import MOMENT, SENT_AT, ab_template, clear_winner, sends
from tests.factories import make_message, make_tenant

pytestmark = pytest.mark.django_db

Status = ABDecision.Status


@pytest.fixture(autouse=True)
def at_moment():
    with time_machine.travel(MOMENT, tick=False):
        yield


def versions_state(template: Template) -> list[tuple[int, int, bool]]:
    return list(template.versions.order_by("version").values_list("version", "weight", "is_active"))


# --- what is counted ------------------------------------------------------------------


def test_counts_sends_old_enough_and_each_positive_send_once(tenant):
    v1, v2 = ab_template(tenant)
    sends(v1, 10, 3, twice=True)  # three leads answered positively twice: 3, not 6
    sends(v1, 5, 2, at=MOMENT - timedelta(hours=71))  # too young: not yet counted
    answered = sends(v2, 4, 0, negative=2)  # refusals are replies, not positive ones
    # A person's message with the version's text is not a send of the A/B test.
    make_message(
        answered[0],
        is_manual=True,
        status=Message.Status.SENT,
        sent_at=SENT_AT,
        template_version=v2,
    )
    counts = figures.counted(tenant, [v1, v2], now=MOMENT, rule=rule.DEFAULT_RULE)
    assert counts == {v1.pk: (10, 3), v2.pk: (4, 0)}
    assert figures.counted(
        tenant, [v1], now=MOMENT + timedelta(hours=2), rule=rule.DEFAULT_RULE
    ) == {v1.pk: (15, 5)}


def test_a_positive_reply_after_the_next_automated_message_is_not_the_versions(tenant):
    v1, v2 = ab_template(tenant)
    lead = sends(v1, 1, 0)[0]
    make_message(
        lead, status=Message.Status.SENT, sent_at=SENT_AT + timedelta(hours=2), template_version=v2
    )
    reply = make_message(
        lead,
        direction=Message.Direction.INBOUND,
        status=Message.Status.RECEIVED,
        idempotency_key=None,
        analysis={"triage": {"sentiment": 90, "intent": "interested"}},
    )
    Message.objects.filter(pk=reply.pk).update(created_at=SENT_AT + timedelta(hours=3))
    counts = figures.counted(tenant, [v1, v2], now=MOMENT, rule=rule.DEFAULT_RULE)
    assert counts == {v1.pk: (1, 0), v2.pk: (1, 1)}


def test_only_versions_in_the_split_are_compared(tenant):
    v1, v2 = ab_template(tenant)
    v3 = TemplateVersion.objects.create(
        tenant=tenant, template=v1.template, version=3, body="Oprit", is_active=False
    )
    v4 = TemplateVersion.objects.create(
        tenant=tenant, template=v1.template, version=4, body="Zero", weight=0
    )
    split = figures.in_split([v1.template_id])[v1.template_id]
    assert split == [v1, v2] and v3 not in split and v4 not in split


# --- the modes ------------------------------------------------------------------------


def test_suggest_mode_keeps_the_weights_and_suggests_once(tenant):
    template, v1, v2 = clear_winner(tenant)
    first = decisions.evaluate(template)
    assert versions_state(template) == [(1, 100, True), (2, 100, True)]
    decision = first.decision
    assert decision is not None and decision.status == Status.SUGGESTED and not first.applied
    assert decision.winner == v1 and decision.losers == [v2.pk]
    assert [row["outcome"] for row in decision.figures] == [rule.WINNER, rule.RETIRE]
    assert [(row["sent"], row["positive"]) for row in decision.figures] == [(300, 45), (300, 6)]
    assert decision.rule == {
        "test": "two_proportion_z_one_sided",
        "alpha": 0.01,
        "comparisons": 1,
        "level": 0.01,
        "min_sends": 200,
        "min_positive": 10,
        "maturity_hours": 72,
    }
    assert decision.changes[0]["weight_after"] == 200 and not decision.changes[1]["active_after"]
    # Evaluated again with more sends: the same suggestion, its figures counted again.
    sends(v1, 20, 5)
    with time_machine.travel(MOMENT + timedelta(hours=1), tick=False):
        again = decisions.evaluate(template)
    assert again.decision is not None and again.decision.pk == decision.pk
    assert again.decision.figures[0]["sent"] == 320
    assert again.decision.updated_at == MOMENT + timedelta(hours=1)
    assert ABDecision.objects.count() == 1


def test_automatic_mode_applies_at_once_and_keeps_the_record(tenant):
    template, v1, v2 = clear_winner(tenant, ab_mode=Template.ABMode.AUTO)
    found = decisions.evaluate(template)
    assert found.applied
    assert versions_state(template) == [(1, 200, True), (2, 100, False)]
    decision = ABDecision.objects.get()
    assert (decision.status, decision.automatic, decision.decided_by) == (
        Status.APPLIED,
        True,
        None,
    )
    assert decision.decided_at == MOMENT
    assert decision.changes == [
        {
            "version_id": v1.pk,
            "version": 1,
            "weight_before": 100,
            "weight_after": 200,
            "active_before": True,
            "active_after": True,
        },
        {
            "version_id": v2.pk,
            "version": 2,
            "weight_before": 100,
            "weight_after": 100,
            "active_before": True,
            "active_after": False,
        },
    ]
    # Nothing left to compare: a second run decides nothing more.
    assert decisions.evaluate(template).decision is None
    assert ABDecision.objects.count() == 1


def test_off_mode_changes_nothing_and_withdraws_a_waiting_suggestion(tenant):
    template, _, _ = clear_winner(tenant)
    waiting = decisions.evaluate(template).decision
    decisions.set_mode(template, Template.ABMode.OFF)
    waiting.refresh_from_db()
    assert (waiting.status, waiting.withdrawn_because) == (Status.SUPERSEDED, "off")
    assert decisions.evaluate(template).decision is None
    assert versions_state(template) == [(1, 100, True), (2, 100, True)]
    assert ABDecision.objects.filter(status=Status.SUGGESTED).count() == 0


def test_nothing_is_decided_below_the_minimum_sample(tenant):
    v1, v2 = ab_template(tenant, ab_mode=Template.ABMode.AUTO)
    sends(v1, 199, 100)
    sends(v2, 400, 0)
    found = decisions.evaluate(v1.template)
    assert found.decision is None and not ABDecision.objects.exists()
    assert [s.outcome for s in found.verdict.standings] == [rule.TOO_FEW, rule.LEADER]
    assert versions_state(v1.template) == [(1, 100, True), (2, 100, True)]


# --- confirm and dismiss ------------------------------------------------------------------


def test_a_person_confirms_the_suggestion(tenant, operator):
    template, _, _ = clear_winner(tenant)
    waiting = decisions.evaluate(template).decision
    done = decisions.confirm(template, waiting.pk, operator)
    assert (done.pk, done.status, done.automatic, done.decided_by) == (
        waiting.pk,
        Status.APPLIED,
        False,
        operator,
    )
    assert versions_state(template) == [(1, 200, True), (2, 100, False)]
    assert decisions.last_applied(template) == done.pk


def test_confirming_another_or_no_suggestion_is_refused(tenant, operator):
    template, _, _ = clear_winner(tenant)
    with pytest.raises(decisions.Refused, match="No A/B suggestion"):
        decisions.confirm(template, 1, operator)
    waiting = decisions.evaluate(template).decision
    with pytest.raises(decisions.Refused, match="replaced by a newer one"):
        decisions.dismiss(template, waiting.pk + 1, operator)
    assert versions_state(template) == [(1, 100, True), (2, 100, True)]


def test_confirming_after_the_figures_changed_withdraws_it(tenant, operator):
    template, v1, v2 = clear_winner(tenant)
    waiting = decisions.evaluate(template).decision
    sends(v2, 600, 150)  # v2 caught up: no winner now
    with pytest.raises(decisions.Refused, match="figures changed"):
        decisions.confirm(template, waiting.pk, operator)
    waiting.refresh_from_db()
    assert (waiting.status, waiting.withdrawn_because) == (Status.SUPERSEDED, "figures")
    assert versions_state(template) == [(1, 100, True), (2, 100, True)]


def test_confirming_after_a_version_was_turned_off_withdraws_it(tenant, operator):
    first, second, third = ab_template(tenant, 3)
    template = first.template
    sends(first, 400, 60)
    sends(second, 400, 8)
    sends(third, 400, 7)
    waiting = decisions.evaluate(template).decision
    assert waiting.losers == sorted([second.pk, third.pk])
    TemplateVersion.objects.filter(pk=third.pk).update(is_active=False)  # someone edited
    with pytest.raises(decisions.Refused, match="changed or turned off"):
        decisions.confirm(template, waiting.pk, operator)
    waiting.refresh_from_db()
    assert (waiting.status, waiting.withdrawn_because) == (Status.SUPERSEDED, "versions")
    # A new suggestion stands for what the figures give now.
    assert ABDecision.objects.get(status=Status.SUGGESTED).losers == [second.pk]


def test_a_dismissed_decision_is_not_suggested_again(tenant, operator):
    template, _, _ = clear_winner(tenant)
    waiting = decisions.evaluate(template).decision
    done = decisions.dismiss(template, waiting.pk, operator)
    assert (done.status, done.decided_by, done.decided_at) == (Status.DISMISSED, operator, MOMENT)
    again = decisions.evaluate(template)
    assert again.decision is None
    assert [s.outcome for s in again.verdict.standings] == [rule.LEADER, rule.KEPT]
    assert list(ABDecision.objects.values_list("status", flat=True)) == [Status.DISMISSED]
    assert versions_state(template) == [(1, 100, True), (2, 100, True)]


def test_a_loser_turned_back_on_by_a_person_stays_on_in_automatic_mode(tenant):
    template, _, v2 = clear_winner(tenant, ab_mode=Template.ABMode.AUTO)
    decisions.evaluate(template)
    TemplateVersion.objects.filter(pk=v2.pk).update(is_active=True)
    assert decisions.evaluate(template).decision is None
    assert versions_state(template) == [(1, 200, True), (2, 100, True)]


def test_history_keeps_every_decision_newest_first(tenant, operator):
    first, second, third = ab_template(tenant, 3)
    template = first.template
    sends(first, 400, 60)
    sends(second, 400, 8)
    sends(third, 400, 50)
    suggested = decisions.evaluate(template).decision
    assert suggested.losers == [second.pk]
    decisions.dismiss(template, suggested.pk, operator)
    sends(third, 400, 2)  # v3 falls behind too: a new decision, for v3 alone
    with time_machine.travel(MOMENT + timedelta(hours=1), tick=False):
        newer = decisions.evaluate(template).decision
        decisions.confirm(template, newer.pk, operator)
    rows = list(ABDecision.objects.filter(template=template))
    assert [(r.status, r.losers) for r in rows] == [
        (Status.APPLIED, [third.pk]),
        (Status.DISMISSED, [second.pk]),
    ]
    assert versions_state(template) == [(1, 200, True), (2, 100, True), (3, 100, False)]


# --- the hourly run, workspaces -----------------------------------------------------------


def test_the_hourly_run_judges_every_active_workspace_alone(tenant, other_tenant):
    mine, _, _ = clear_winner(tenant)
    theirs, _, _ = clear_winner(other_tenant, ab_mode=Template.ABMode.AUTO)
    asleep = make_tenant(is_active=False)
    dormant, _, _ = clear_winner(asleep)
    single = ab_template(tenant, 1)[0].template
    done = decisions.evaluate_all()
    assert done == {"templates": 2, "suggested": 1, "applied": 1}
    assert ABDecision.objects.get(template=mine).tenant == tenant
    assert ABDecision.objects.get(template=theirs).tenant == other_tenant
    assert not ABDecision.objects.filter(template__in=[dormant, single]).exists()


def test_the_other_workspaces_messages_are_not_counted(tenant, other_tenant):
    v1, v2 = ab_template(tenant)
    sends(v1, 300, 45)
    stray = sends(v2, 300, 6)
    # A reply in the other workspace from a lead of the same name changes nothing here.
    Message.objects.filter(lead__in=stray[:200], direction="IN").update(tenant=other_tenant)
    counts = figures.counted(tenant, [v1, v2], now=MOMENT, rule=rule.DEFAULT_RULE)
    assert counts == {v1.pk: (300, 45), v2.pk: (300, 0)}


def test_the_job_is_declared_and_its_actor_runs_the_evaluation(tenant):
    jobs = {job["name"]: job for job in settings.PERIODIC_JOBS}
    assert jobs["ab-winners"] == {
        "name": "ab-winners",
        "cron": "25 * * * *",
        "actor": "outreach.tasks.evaluate_ab_winners",
    }
    template, _, _ = clear_winner(tenant)
    evaluate_ab_winners.fn()
    assert ABDecision.objects.get().template == template


def test_one_open_suggestion_per_template_in_the_database(tenant):
    template, v1, _ = clear_winner(tenant)
    decisions.evaluate(template)
    with pytest.raises(IntegrityError), transaction.atomic():
        ABDecision.objects.create(
            tenant=tenant, template=template, winner=v1, created_at=MOMENT, updated_at=MOMENT
        )
    with pytest.raises(IntegrityError), transaction.atomic():
        ABDecision.objects.create(
            tenant=tenant,
            template=template,
            winner=v1,
            status=Status.APPLIED,
            created_at=MOMENT,
            updated_at=MOMENT,
        )


def test_confirming_when_turned_off_meanwhile_withdraws_it(tenant, operator):
    template, _, _ = clear_winner(tenant)
    waiting = decisions.evaluate(template).decision
    Template.objects.filter(pk=template.pk).update(ab_mode=Template.ABMode.OFF)  # the admin
    with pytest.raises(decisions.Refused, match="off for this template"):
        decisions.confirm(template, waiting.pk, operator)
    assert versions_state(template) == [(1, 100, True), (2, 100, True)]


def test_an_unknown_mode_is_refused(tenant):
    template = ab_template(tenant)[0].template
    with pytest.raises(ValueError):
        decisions.set_mode(template, "sometimes")
    with pytest.raises(IntegrityError), transaction.atomic():
        Template.objects.filter(pk=template.pk).update(ab_mode="never")
