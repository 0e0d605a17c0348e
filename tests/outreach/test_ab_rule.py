"""The A/B rule (outreach.ab_winners.rule), over any figures: nothing is decided below the
minimum sample, a clearly better version with enough sends wins, equal rates never do; the
z-test against hand-computed values; Bonferroni; the weights a decision moves; a person's
earlier ruling kept."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from outreach.ab_winners.rule import (
    DEFAULT_RULE,
    KEEP,
    KEPT,
    LEADER,
    MAX_WEIGHT,
    RETIRE,
    TOO_FEW,
    WINNER,
    Arm,
    Rule,
    changes,
    judge,
    p_one_sided,
    settle,
    z_score,
)

MIN = DEFAULT_RULE.min_sends
sizes = st.integers(min_value=MIN, max_value=20_000)


def arm(number: int, sent: int, positive: int, weight: int = 100) -> Arm:
    return Arm(version_id=100 + number, version=number, weight=weight, sent=sent, positive=positive)


@st.composite
def below_the_minimum(draw: st.DrawFn) -> list[Arm]:
    """Two versions, at least one of them under the minimum sends, any rates."""
    short = draw(st.integers(min_value=0, max_value=MIN - 1))
    other = draw(st.integers(min_value=0, max_value=20_000))
    short_pos = draw(st.integers(min_value=0, max_value=short))
    other_pos = draw(st.integers(min_value=0, max_value=other))
    arms = [arm(1, short, short_pos), arm(2, other, other_pos)]
    return arms if draw(st.booleans()) else arms[::-1]


@settings(max_examples=300, deadline=None)
@given(below_the_minimum())
def test_below_the_minimum_sample_nothing_is_decided_whatever_the_figures(arms):
    verdict = judge(arms)
    assert not verdict.decides and verdict.winner is None and verdict.key is None
    short = next(a for a in arms if a.sent < MIN)
    assert next(s for s in verdict.standings if s.arm == short).outcome == TOO_FEW


@settings(max_examples=300, deadline=None)
@given(sizes, sizes, st.integers(min_value=0, max_value=DEFAULT_RULE.min_positive - 1), st.data())
def test_too_few_positive_replies_together_decide_nothing(n1, n2, together, data):
    x1 = data.draw(st.integers(min_value=0, max_value=together))
    verdict = judge([arm(1, n1, x1), arm(2, n2, together - x1)])
    assert not verdict.decides
    assert {s.outcome for s in verdict.standings} <= {LEADER, TOO_FEW}


@settings(max_examples=300, deadline=None)
@given(sizes, sizes, st.booleans())
def test_a_clearly_better_version_with_enough_sample_is_promoted(n_good, n_bad, good_first):
    good = arm(1 if good_first else 2, n_good, math.ceil(0.15 * n_good))
    bad = arm(2 if good_first else 1, n_bad, math.floor(0.02 * n_bad))
    verdict = judge([good, bad])
    assert verdict.decides
    assert verdict.winner == good and verdict.losers == (bad,)
    outcomes = {s.arm.version: s.outcome for s in verdict.standings}
    assert outcomes == {good.version: WINNER, bad.version: RETIRE}


@settings(max_examples=300, deadline=None)
@given(
    st.integers(min_value=MIN, max_value=5_000),
    st.data(),
    st.lists(st.integers(min_value=1, max_value=4), min_size=2, max_size=5),
)
def test_equal_rates_never_promote(n, data, scales):
    """Every version with the same positive rate (any sample sizes): no decision."""
    x = data.draw(st.integers(min_value=0, max_value=n))
    verdict = judge([arm(i, n * scale, x * scale) for i, scale in enumerate(scales, 1)])
    assert not verdict.decides
    assert all(s.outcome in (LEADER, KEEP, TOO_FEW) for s in verdict.standings)
    assert all(s.z in (None, 0.0) for s in verdict.standings)


def test_the_z_test_matches_the_values_worked_by_hand():
    # 60/400 against 12/400: pooled 72/800 = 0.09, se = sqrt(0.09 · 0.91 · 2/400)
    se = math.sqrt(0.09 * 0.91 * (2 / 400))
    assert z_score(60, 400, 12, 400) == pytest.approx((0.15 - 0.03) / se)
    assert z_score(12, 400, 60, 400) == pytest.approx(-(0.15 - 0.03) / se)
    assert z_score(0, 300, 0, 500) == 0.0 and z_score(300, 300, 500, 500) == 0.0
    assert p_one_sided(0.0) == 0.5
    assert p_one_sided(1.6448536) == pytest.approx(0.05, abs=1e-7)
    assert p_one_sided(2.3263479) == pytest.approx(0.01, abs=1e-8)
    assert p_one_sided(8.0) == pytest.approx(6.22096e-16, rel=1e-4)  # far in the tail
    with pytest.raises(ValueError):
        z_score(1, 0, 1, 10)


def test_the_significance_is_shared_by_the_comparisons_bonferroni():
    # 40/400 against 22/400: z 2.38, p 0.0087, below 0.01 alone but not below 0.01 / 2;
    # against 20/400: z 2.69, p 0.0036, below 0.01 / 2.
    leader, close, far = arm(1, 400, 40), arm(2, 400, 22), arm(3, 400, 20)
    verdict = judge([leader, close, far])
    assert verdict.comparisons == 2 and verdict.level == pytest.approx(0.005)
    assert verdict.losers == (far,)
    assert [s.outcome for s in verdict.standings] == [WINNER, KEEP, RETIRE]
    assert judge([leader, close]).losers == (close,)  # one comparison: the whole 0.01
    # 40/400 against 26/400 (z 1.80, p 0.036) is kept at 0.01 but would go at 0.05.
    assert not judge([leader, arm(2, 400, 26)]).decides
    assert judge([leader, arm(2, 400, 26)], Rule(alpha=0.05)).decides


def test_a_version_under_the_minimum_is_left_out_of_the_comparisons():
    best, worse, young = arm(1, 1000, 150), arm(2, 1000, 20), arm(3, 50, 25)
    verdict = judge([best, worse, young])
    assert verdict.winner == best and verdict.losers == (worse,)
    assert verdict.comparisons == 1
    assert [s.outcome for s in verdict.standings] == [WINNER, RETIRE, TOO_FEW]
    assert verdict.rule_dict()["comparisons"] == 1


def test_the_leader_on_a_tie_is_the_larger_sample_then_the_older_version():
    assert judge([arm(1, 400, 40), arm(2, 800, 80)]).standings[1].outcome == LEADER
    assert judge([arm(2, 400, 40), arm(1, 400, 40)]).standings[0].outcome == LEADER


def test_the_winner_takes_the_losers_weight_capped():
    winner, loser, other = arm(1, 400, 60, 100), arm(2, 400, 5, 150), arm(3, 400, 7, 900)
    made = changes(winner, [loser])
    assert [(c.version, c.weight_after, c.active_after) for c in made] == [
        (1, 250, True),
        (2, 150, False),
    ]
    assert changes(winner, [loser, other])[0].weight_after == MAX_WEIGHT


def test_settle_keeps_what_a_person_already_ruled_on():
    verdict = judge([arm(1, 1000, 150), arm(2, 1000, 20), arm(3, 1000, 10)])
    assert verdict.key == (101, (102, 103))
    partly = settle(verdict, {102})
    assert partly.key == (101, (103,))
    assert [s.outcome for s in partly.standings] == [WINNER, KEPT, RETIRE]
    fully = settle(verdict, {102, 103})
    assert not fully.decides and fully.winner is None
    assert [s.outcome for s in fully.standings] == [LEADER, KEPT, KEPT]
    assert settle(verdict, set()) is verdict


def test_figures_are_stored_rounded_and_complete():
    verdict = judge([arm(1, 400, 60), arm(2, 400, 12)])
    assert verdict.figures() == [
        {
            "version_id": 101,
            "version": 1,
            "weight": 100,
            "sent": 400,
            "positive": 60,
            "rate": 15.0,
            "z": None,
            "p_value": None,
            "outcome": WINNER,
        },
        {
            "version_id": 102,
            "version": 2,
            "weight": 100,
            "sent": 400,
            "positive": 12,
            "rate": 3.0,
            "z": 5.93,
            "p_value": 1.51e-09,
            "outcome": RETIRE,
        },
    ]


@pytest.mark.parametrize(
    "kw",
    [{"alpha": 0}, {"alpha": 1}, {"min_sends": 0}, {"min_positive": 0}, {"maturity_hours": -1}],
)
def test_a_rule_out_of_bounds_is_refused(kw):
    with pytest.raises(ValueError):
        Rule(**kw)


def test_an_arm_with_more_positive_than_sends_is_refused():
    with pytest.raises(ValueError):
        arm(1, 10, 11)
