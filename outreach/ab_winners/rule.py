"""The A/B rule: when is one version of a template better on positive replies, and what
changes then. Pure functions over counts (no database), so the rule can be tested over any
figures (docs/ab-winners.md says it in words).

Each version is a series of sends, each of which drew a positive reply or did not. The
version with the best rate among those with enough sends (the leader) is compared with
every other one by a one-sided two-proportion z-test (pooled): a version is significantly
worse when the test's p-value is below `Rule.alpha` divided by the number of comparisons
made (Bonferroni), and only when both have `min_sends` sends and `min_positive` positive
sends between them (below that the normal approximation is poor and nothing is decided).
The leader wins when at least one version is significantly worse: each such loser is
retired and its weight goes to the winner (capped at MAX_WEIGHT).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

# The largest weight a version may have (TemplateVersion's check constraint).
MAX_WEIGHT = 1000

# What a version came out of one evaluation as.
WINNER = "winner"  # the leader, and at least one version is significantly worse
LEADER = "leader"  # the best rate with enough sends, nothing significantly worse yet
RETIRE = "retire"  # significantly worse than the leader
KEEP = "keep"  # compared with the leader, not significantly worse
KEPT = "kept"  # significantly worse, but a person kept it (see `settle`)
TOO_FEW = "too_few"  # too few sends (or positive sends with the leader) to compare
OUTCOMES = (WINNER, LEADER, RETIRE, KEEP, KEPT, TOO_FEW)

TEST_NAME = "two_proportion_z_one_sided"


@dataclass(frozen=True)
class Rule:
    """The rule's thresholds, stored with every decision (docs/ab-winners.md)."""

    alpha: float = 0.01  # family-wise: shared by the leader's comparisons (Bonferroni)
    min_sends: int = 200  # sends of each version compared
    min_positive: int = 10  # positive sends of the two versions compared, together
    maturity_hours: int = 72  # a send counts once it is this old (docs/ab-winners.md)

    def __post_init__(self) -> None:
        if not 0 < self.alpha < 1:
            raise ValueError("alpha must be between 0 and 1")
        if self.min_sends < 1 or self.min_positive < 1 or self.maturity_hours < 0:
            raise ValueError("the minimum sample and the maturity must be positive")

    def as_dict(self, comparisons: int) -> dict:
        level = self.alpha / comparisons if comparisons else self.alpha
        return {
            "test": TEST_NAME,
            "alpha": self.alpha,
            "comparisons": comparisons,
            "level": level,
            "min_sends": self.min_sends,
            "min_positive": self.min_positive,
            "maturity_hours": self.maturity_hours,
        }


DEFAULT_RULE = Rule()


@dataclass(frozen=True)
class Arm:
    """One version in the template's split and its counts: sends old enough to count, and
    how many of them drew a positive reply."""

    version_id: int
    version: int
    weight: int
    sent: int
    positive: int

    def __post_init__(self) -> None:
        if self.sent < 0 or not 0 <= self.positive <= self.sent:
            raise ValueError("positive sends must be between 0 and the sends")

    @property
    def rate(self) -> float:
        return self.positive / self.sent if self.sent else 0.0


@dataclass(frozen=True)
class Standing:
    """One version's place in an evaluation; z and p against the leader (None for the
    leader itself and for a version that was not compared)."""

    arm: Arm
    outcome: str
    z: float | None = None
    p_value: float | None = None

    def as_dict(self) -> dict:
        return {
            "version_id": self.arm.version_id,
            "version": self.arm.version,
            "weight": self.arm.weight,
            "sent": self.arm.sent,
            "positive": self.arm.positive,
            "rate": round(100 * self.arm.rate, 2) if self.arm.sent else None,
            "z": None if self.z is None else round(self.z, 3),
            "p_value": None if self.p_value is None else float(f"{self.p_value:.3g}"),
            "outcome": self.outcome,
        }


@dataclass(frozen=True)
class Verdict:
    """What the rule says of a template's versions now."""

    rule: Rule
    standings: tuple[Standing, ...]
    comparisons: int = 0  # tests made (the Bonferroni divisor)
    winner: Arm | None = None
    losers: tuple[Arm, ...] = field(default_factory=tuple)

    @property
    def decides(self) -> bool:
        return self.winner is not None and bool(self.losers)

    @property
    def level(self) -> float:
        """The p-value a comparison must be below (alpha shared by the comparisons)."""
        return self.rule.alpha / self.comparisons if self.comparisons else self.rule.alpha

    @property
    def key(self) -> tuple[int, tuple[int, ...]] | None:
        """The decision's identity: its winner and its losers (None when nothing decided)."""
        if not self.decides or self.winner is None:
            return None
        return self.winner.version_id, tuple(sorted(a.version_id for a in self.losers))

    def rule_dict(self) -> dict:
        return self.rule.as_dict(self.comparisons)

    def figures(self) -> list[dict]:
        return [standing.as_dict() for standing in self.standings]


def z_score(x1: int, n1: int, x2: int, n2: int) -> float:
    """The pooled two-proportion z statistic of x1/n1 over x2/n2 (0 when both rates are
    0 or both 1: no evidence either way)."""
    if n1 <= 0 or n2 <= 0:
        raise ValueError("both sides need sends")
    pooled = (x1 + x2) / (n1 + n2)
    spread = pooled * (1 - pooled) * (1 / n1 + 1 / n2)
    if spread <= 0:
        return 0.0
    return (x1 / n1 - x2 / n2) / math.sqrt(spread)


def p_one_sided(z: float) -> float:
    """P(Z >= z) for a standard normal Z: the upper tail, in closed form (erfc keeps its
    precision far into the tail)."""
    return 0.5 * math.erfc(z / math.sqrt(2))


def _leader_order(arm: Arm) -> tuple[float, int, int]:
    # The best rate; on a tie the larger sample, then the older version.
    return (arm.rate, arm.sent, -arm.version)


def judge(arms: Sequence[Arm], rule: Rule = DEFAULT_RULE) -> Verdict:
    """The verdict on a template's versions in its split (active, approved, weight > 0)."""
    ordered = sorted(arms, key=lambda arm: arm.version)
    eligible = [arm for arm in ordered if arm.sent >= rule.min_sends]
    if len(eligible) < 2:
        leader = max(eligible, key=_leader_order) if eligible else None
        return Verdict(
            rule,
            tuple(Standing(arm, LEADER if arm is leader else TOO_FEW) for arm in ordered),
        )
    leader = max(eligible, key=_leader_order)
    tested = [
        arm
        for arm in eligible
        if arm is not leader and leader.positive + arm.positive >= rule.min_positive
    ]
    comparisons = len(tested)
    level = rule.alpha / comparisons if comparisons else rule.alpha
    scores: dict[int, tuple[float, float]] = {}
    losers = []
    for arm in tested:
        z = z_score(leader.positive, leader.sent, arm.positive, arm.sent)
        p = p_one_sided(z)
        scores[arm.version_id] = (z, p)
        if p < level:
            losers.append(arm)
    standings = []
    for arm in ordered:
        if arm is leader:
            standings.append(Standing(arm, WINNER if losers else LEADER))
        elif arm.version_id in scores:
            z, p = scores[arm.version_id]
            standings.append(Standing(arm, RETIRE if arm in losers else KEEP, z, p))
        else:
            standings.append(Standing(arm, TOO_FEW))
    return Verdict(
        rule,
        tuple(standings),
        comparisons=comparisons,
        winner=leader if losers else None,
        losers=tuple(losers),
    )


def settle(verdict: Verdict, kept: set[int]) -> Verdict:
    """The verdict without the losers a person already ruled on under the same winner: a
    version a decision retired and a person turned back on, or whose retirement a person
    dismissed, is not proposed again (its outcome says `kept`). No loser left: no winner."""
    if verdict.winner is None or not kept & {arm.version_id for arm in verdict.losers}:
        return verdict
    losers = tuple(arm for arm in verdict.losers if arm.version_id not in kept)
    winner = verdict.winner if losers else None
    standings = []
    for standing in verdict.standings:
        outcome = standing.outcome
        if standing.arm.version_id in kept and outcome == RETIRE:
            outcome = KEPT
        elif outcome == WINNER and not losers:
            outcome = LEADER
        standings.append(Standing(standing.arm, outcome, standing.z, standing.p_value))
    return Verdict(verdict.rule, tuple(standings), verdict.comparisons, winner, losers)


@dataclass(frozen=True)
class Change:
    """What a decision does to one version (weight, on/off)."""

    version_id: int
    version: int
    weight_before: int
    weight_after: int
    active_before: bool
    active_after: bool

    def as_dict(self) -> dict:
        return {
            "version_id": self.version_id,
            "version": self.version,
            "weight_before": self.weight_before,
            "weight_after": self.weight_after,
            "active_before": self.active_before,
            "active_after": self.active_after,
        }


def changes(winner: Arm, losers: Sequence[Arm]) -> list[Change]:
    """The winner takes the retired versions' weight (capped at MAX_WEIGHT), so the split
    between it and the versions still being tested moves its way; each loser is retired."""
    raised = min(MAX_WEIGHT, winner.weight + sum(arm.weight for arm in losers))
    found = [Change(winner.version_id, winner.version, winner.weight, raised, True, True)]
    found += [
        Change(arm.version_id, arm.version, arm.weight, arm.weight, True, False) for arm in losers
    ]
    return found
