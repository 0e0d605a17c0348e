"""How long a review item may wait, per priority and tenant, in working time.

The defaults are the design's (URGENT 1 h, HIGH 4 h, MEDIUM 24 h) and 72 h for LOW (a
decline waiting for a person to confirm the close: no clock worth an alert soon). A
tenant's admins change them on /settings/review/ (console.views.review_settings); the
queue's due times (hitl.review.sla_due, check_sla) read them here, and only here.

Minutes count working time only (outreach.hours.SendingWindow): 24 h with a 09:00–18:00
window is almost three working days.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import User
from django.utils.translation import gettext as _

from cerniq.models import Tenant
from hitl.models import ReviewSLA
from outreach.models import Priority

DEFAULT_MINUTES: dict[str, int] = {
    Priority.URGENT: 60,
    Priority.HIGH: 4 * 60,
    Priority.MEDIUM: 24 * 60,
    Priority.LOW: 72 * 60,
}
FIELDS: dict[str, str] = {
    Priority.URGENT: "urgent_minutes",
    Priority.HIGH: "high_minutes",
    Priority.MEDIUM: "medium_minutes",
    Priority.LOW: "low_minutes",
}
ORDER = (Priority.URGENT, Priority.HIGH, Priority.MEDIUM, Priority.LOW)
MIN_MINUTES = 5
MAX_MINUTES = 30 * 24 * 60  # thirty days of working time


class SLAError(ValueError):
    """Settings refused: `errors` maps a priority to what is wrong with it."""

    def __init__(self, errors: dict[str, str]) -> None:
        super().__init__("; ".join(errors.values()))
        self.errors = errors


@dataclass(frozen=True)
class Deadlines:
    minutes: dict[str, int]
    customised: bool  # False: the defaults


def deadlines(tenant: Tenant) -> Deadlines:
    """The tenant's minutes per priority."""
    row = ReviewSLA.objects.filter(tenant=tenant).first()
    if row is None:
        return Deadlines(dict(DEFAULT_MINUTES), customised=False)
    return Deadlines({p: getattr(row, FIELDS[p]) for p in ORDER}, customised=True)


def minutes_for(tenant: Tenant, priority: str) -> int:
    return deadlines(tenant).minutes[priority]


def check(minutes: dict[str, int]) -> dict[str, str]:
    """What is wrong with these minutes, per priority (empty: nothing)."""
    errors: dict[str, str] = {}
    for priority in ORDER:
        value = minutes.get(priority)
        if value is None or not MIN_MINUTES <= value <= MAX_MINUTES:
            errors[priority] = _("Enter between %(low)s and %(high)s minutes.") % {
                "low": MIN_MINUTES,
                "high": MAX_MINUTES,
            }
    for faster, slower in zip(ORDER, ORDER[1:], strict=False):
        if slower in errors or faster in errors:
            continue
        if minutes[slower] < minutes[faster]:
            errors[slower] = _(
                "%(slower)s cannot be due sooner than %(faster)s (%(minutes)s minutes)."
            ) % {
                "slower": Priority(slower).label,
                "faster": Priority(faster).label,
                "minutes": minutes[faster],
            }
    return errors


def save(tenant: Tenant, minutes: dict[str, int], *, by: User | None) -> ReviewSLA:
    """Store the tenant's minutes (all four), or raise SLAError and change nothing. Items
    already open keep their due time; new items and escalations use the new minutes."""
    errors = check(minutes)
    if errors:
        raise SLAError(errors)
    values = {FIELDS[p]: minutes[p] for p in ORDER}
    row, _created = ReviewSLA.objects.update_or_create(
        tenant=tenant, defaults={**values, "updated_by": by}
    )
    return row
