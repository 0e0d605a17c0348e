"""The warm-up ramp: a number new to outreach starts with a few new contacts a day.

WhatsApp watches new numbers closely, and TimelinesAI itself warns that linked numbers used
for cold outreach "get banned fast" (docs/providers.md §1.7): a number that writes to 200
strangers on its first day is the pattern that gets reported and restricted. So a new
number, and one back from a ban or a long disconnection (whatsapp.phones), starts low and
ramps up to the full 200 a day over a schedule the tenant can change (the phones page).

The default, `DEFAULT_STEPS`: days 1-2: 20, 3-4: 40, 5-6: 60, 7-8: 90, 9-10: 120,
11-13: 160, from day 14: 200. It roughly doubles in the first week and grows by a third
after, the shape of the usual WhatsApp warm-up advice (start with tens of new chats, grow
gradually, full volume after about two weeks); each step holds at least two days, so the
health guard (outreach.phone_health, a 72-hour window) sees how the number fares at one
level before the next raise.

This module is the rule only; `whatsapp.quota.day_limits` applies it (the one place that
computes a day's limit).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from whatsapp.models import DEFAULT_DAILY_LIMIT, WarmupPlan

DEFAULT_STEPS: tuple[tuple[int, int], ...] = (
    (1, 20),
    (3, 40),
    (5, 60),
    (7, 90),
    (9, 120),
    (11, 160),
    (14, 200),
)
FULL_LIMIT = DEFAULT_DAILY_LIMIT  # the ramp ends at the design's 200 new contacts a day
MAX_DAYS = 90  # a ramp longer than a quarter is a typo, not a plan
_STEP = re.compile(r"^(\d{1,3})\s*:\s*(\d{1,4})$")


@dataclass(frozen=True)
class Ramp:
    """Steps `(from day, new contacts a day)`; day 1 is the day the ramp started."""

    steps: tuple[tuple[int, int], ...] = DEFAULT_STEPS

    @property
    def days(self) -> int:
        """The day the number reaches full volume (the last step's day)."""
        return self.steps[-1][0]

    def limit_on(self, day_number: int) -> int | None:
        """New contacts allowed on day N of the ramp; None from the last step on (the ramp
        is over and the phone's own daily limit applies)."""
        if day_number >= self.days:
            return None
        allowed = self.steps[0][1]
        for first_day, limit in self.steps:
            if first_day > day_number:
                break
            allowed = limit
        return allowed

    def as_text(self) -> str:
        return ", ".join(f"{day}:{limit}" for day, limit in self.steps)


def day_number(started_on: date, day: date) -> int:
    """Day N of a ramp that started on `started_on` (a local calendar day); 1 on that day."""
    return max((day - started_on).days + 1, 1)


def validate(steps: Sequence[Sequence[int]]) -> Ramp:
    """A ramp from steps, or a ValidationError listing every problem in words."""
    problems: list[str] = []
    if not steps:
        raise ValidationError(_("Give at least one step, e.g. 1:20, 3:40, 14:200."))
    previous: tuple[int, int] | None = None
    for position, (day, limit) in enumerate(steps, 1):
        if position == 1 and day != 1:
            problems.append(_("The first step must start on day 1 (it starts on day %d).") % day)
        if not 1 <= day <= MAX_DAYS:
            problems.append(
                _("Step %(n)d: the day must be 1 to %(max)d.") % {"n": position, "max": MAX_DAYS}
            )
        if not 1 <= limit <= FULL_LIMIT:
            problems.append(
                _("Step %(n)d: the limit must be 1 to %(max)d new contacts a day.")
                % {"n": position, "max": FULL_LIMIT}
            )
        if previous is not None and day <= previous[0]:
            problems.append(
                _("Step %(n)d: day %(day)d must come after day %(before)d.")
                % {"n": position, "day": day, "before": previous[0]}
            )
        if previous is not None and limit <= previous[1]:
            problems.append(
                _("Step %(n)d: the limit must grow (%(limit)d is not above %(before)d).")
                % {"n": position, "limit": limit, "before": previous[1]}
            )
        previous = (day, limit)
    if previous is not None and previous[1] != FULL_LIMIT:
        problems.append(
            _(
                "The last step must reach the full %(max)d new contacts a day: "
                "that is where the ramp ends."
            )
            % {"max": FULL_LIMIT}
        )
    if problems:
        raise ValidationError(problems)
    return Ramp(tuple((int(day), int(limit)) for day, limit in steps))


def parse(text: str) -> Ramp:
    """`"1:20, 3:40, 14:200"` (commas, semicolons or new lines between steps) as a Ramp."""
    steps: list[tuple[int, int]] = []
    for part in re.split(r"[,;\n]+", text or ""):
        part = part.strip()
        if not part:
            continue
        match = _STEP.match(part)
        if match is None:
            raise ValidationError(
                _('"%(part)s" is not a step: write day:limit, e.g. 3:40.') % {"part": part[:20]}
            )
        steps.append((int(match[1]), int(match[2])))
    return validate(steps)


def ramp_for(tenant_id: int) -> Ramp:
    """The tenant's ramp: its plan, else the default."""
    stored = WarmupPlan.objects.filter(tenant_id=tenant_id).values_list("steps", flat=True)
    return stored_ramp(stored.first())


def save_ramp(tenant_id: int, ramp: Ramp) -> None:
    """Store the tenant's plan (whatsapp.quota.change_ramp also moves today's limits)."""
    WarmupPlan.objects.update_or_create(
        tenant_id=tenant_id, defaults={"steps": [list(step) for step in ramp.steps]}
    )


def stored_ramp(stored: object) -> Ramp:
    """A stored plan, or the default when there is none (or it no longer validates)."""
    if not stored or not isinstance(stored, list):
        return Ramp()
    try:
        return validate([tuple(step) for step in stored])
    except (ValidationError, TypeError, ValueError):
        return Ramp()
