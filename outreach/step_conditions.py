"""A sequence step's conditions (`SequenceStep.conditions`): whether dispatch sends the
step, skips it (with the reason kept), or waits until it can tell. The one owner of what
each condition means; dispatch loads the facts for a whole batch and asks `judge`.

Stored as `{"all": [{"kind": ..., "hours": N, "stages": [...]}, ...]}`: every condition
must hold. Kinds:

| kind                     | the step goes when                                          |
| no_reply                 | the lead has not replied on any channel                     |
| replied                  | the lead has replied on some channel (reply-first: open by   |
|                          | email, go on WhatsApp only once the person answered)        |
| whatsapp_not_delivered   | our last WhatsApp message was not delivered `hours` after it |
|                          | went (or none went); waits until then; a provider that does  |
|                          | not report delivery cannot tell, so the step is skipped      |
| whatsapp_not_read        | the same with "read"                                        |
| email_bounced            | the lead's address bounced                                  |
| no_phone                 | the lead has no number we can reach                         |
| stage_not                | the lead's stage is none of `stages`                        |
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

KINDS = (
    "no_reply",
    "replied",
    "whatsapp_not_delivered",
    "whatsapp_not_read",
    "email_bounced",
    "no_phone",
    "stage_not",
)
TIMED = ("whatsapp_not_delivered", "whatsapp_not_read")
MAX_HOURS = 24 * 30
MAX_CONDITIONS = 8


class ConditionInvalid(ValueError):
    """A stored or submitted condition that means nothing: `field` says which part."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}")
        self.field = field
        self.problem = problem


@dataclass(frozen=True)
class Condition:
    kind: str
    hours: int = 0
    stages: tuple[str, ...] = ()

    def as_json(self) -> dict[str, Any]:
        found: dict[str, Any] = {"kind": self.kind}
        if self.kind in TIMED:
            found["hours"] = self.hours
        if self.kind == "stage_not":
            found["stages"] = list(self.stages)
        return found


@dataclass(frozen=True)
class Facts:
    """What the conditions read of one lead (dispatch loads them for its whole batch)."""

    replied: bool
    stage: str
    has_phone: bool
    email_bounced: bool
    last_whatsapp_at: datetime | None = None  # our last WhatsApp message went then
    delivered_at: datetime | None = None
    read_at: datetime | None = None
    reports_delivery: bool = True  # the provider of that message tells delivery and reading


@dataclass(frozen=True)
class Verdict:
    go: bool
    kind: str = ""  # the condition that decided a skip or a wait
    wait_until: datetime | None = None  # not decidable yet: ask again then

    @property
    def skipped(self) -> bool:
        return not self.go and self.wait_until is None


GO = Verdict(True)


def parse(raw: Any, *, known_stages: frozenset[str] | None = None) -> list[Condition]:
    """The conditions of a stored or submitted value; ConditionInvalid names the part at
    fault. `{}` and `None` mean none."""
    if raw in (None, {}, []):
        return []
    if not isinstance(raw, dict) or set(raw) != {"all"} or not isinstance(raw["all"], list):
        raise ConditionInvalid("conditions", 'expected {"all": [...]}')
    items = raw["all"]
    if len(items) > MAX_CONDITIONS:
        raise ConditionInvalid("conditions", f"at most {MAX_CONDITIONS} conditions")
    found = []
    for index, item in enumerate(items):
        at = f"conditions.all[{index}]"
        if not isinstance(item, dict):
            raise ConditionInvalid(at, "not an object")
        kind = item.get("kind")
        if kind not in KINDS:
            raise ConditionInvalid(f"{at}.kind", f"one of {', '.join(KINDS)}")
        hours = 0
        if kind in TIMED:
            given = item.get("hours")
            if not isinstance(given, int) or isinstance(given, bool) or not 1 <= given <= MAX_HOURS:
                raise ConditionInvalid(f"{at}.hours", f"whole hours from 1 to {MAX_HOURS}")
            hours = given
        stages: tuple[str, ...] = ()
        if kind == "stage_not":
            raw_stages = item.get("stages")
            if not isinstance(raw_stages, list) or not raw_stages:
                raise ConditionInvalid(f"{at}.stages", "a non-empty list of stages")
            if not all(isinstance(s, str) for s in raw_stages) or (
                known_stages is not None and not set(raw_stages) <= known_stages
            ):
                raise ConditionInvalid(f"{at}.stages", "only known stages")
            stages = tuple(dict.fromkeys(raw_stages))
        found.append(Condition(kind, hours, stages))
    return found


def to_json(conditions: list[Condition]) -> dict[str, Any]:
    return {"all": [c.as_json() for c in conditions]} if conditions else {}


def judge(conditions: list[Condition], facts: Facts, now: datetime) -> Verdict:
    """Send, skip (the first condition that fails says why) or wait (until the latest
    moment a timed condition can tell)."""
    wait_until: datetime | None = None
    waiting_on = ""
    for condition in conditions:
        verdict = _one(condition, facts, now)
        if verdict.skipped:
            return verdict
        if verdict.wait_until is not None and (
            wait_until is None or verdict.wait_until > wait_until
        ):
            wait_until, waiting_on = verdict.wait_until, condition.kind
    if wait_until is not None:
        return Verdict(False, waiting_on, wait_until)
    return GO


def _one(condition: Condition, facts: Facts, now: datetime) -> Verdict:
    kind = condition.kind
    if kind == "no_reply":
        return GO if not facts.replied else Verdict(False, kind)
    if kind == "replied":
        return GO if facts.replied else Verdict(False, kind)
    if kind == "email_bounced":
        return GO if facts.email_bounced else Verdict(False, kind)
    if kind == "no_phone":
        return GO if not facts.has_phone else Verdict(False, kind)
    if kind == "stage_not":
        return GO if facts.stage not in condition.stages else Verdict(False, kind)
    # whatsapp_not_delivered / whatsapp_not_read
    if facts.last_whatsapp_at is None:
        return GO  # nothing went: it was not delivered, nor read
    reached = facts.delivered_at if kind == "whatsapp_not_delivered" else facts.read_at
    if reached is not None:
        return Verdict(False, kind)
    if not facts.reports_delivery:
        return Verdict(False, f"{kind}:unknown")
    deadline = facts.last_whatsapp_at + timedelta(hours=condition.hours)
    if now < deadline:
        return Verdict(False, kind, wait_until=deadline)
    return GO
