"""Stalled enrollments: dispatch could not move them on, and a person must see why.

Dispatch (outreach.dispatch) records the reason (a code, outreach.reasons) and since when
on the Enrollment instead of skipping it silently; the stall is cleared when a step is
queued again or the enrollment ends. The lead page, the leads list ("stalled" filter), the
API and the dashboard read it from here.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from datetime import datetime

from django.db.models import Exists, F, OuterRef, Q, QuerySet, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from outreach import reasons as codes
from outreach.models import Enrollment, Journey, Lead

# Skips that leave an enrollment unable to move until something changes: shown as
# "stalled" on the enrollment (a full quota or a step already queued is only waiting).
STALLING = frozenset(
    {
        codes.NO_FURTHER_STEP,
        codes.NO_CHANNEL,
        codes.NO_FALLBACK,
        codes.TEMPLATE_INACTIVE,
        codes.TEMPLATE_ERROR,
        codes.TOO_LONG,
        codes.NO_SENDING_PHONE,
        codes.NO_BASIS,
        codes.TEMPLATE_NOT_COMPLIANT,
        codes.CONDITIONS_INVALID,
    }
)


def record(stalls: list[tuple[Enrollment, str]], moved: list[int], now: datetime) -> None:
    """Stalled enrollments keep the reason and since when (one UPDATE per reason); those
    that moved on are stalled no more (one UPDATE)."""
    by_reason: dict[str, list[int]] = defaultdict(list)
    for enrollment, reason in stalls:
        by_reason[reason].append(enrollment.pk)
    for reason, ids in by_reason.items():
        Enrollment.objects.filter(pk__in=ids).update(
            stalled_reason=reason, stalled_since=Coalesce(F("stalled_since"), Value(now))
        )
    if moved:
        Enrollment.objects.filter(
            lead_id__in=moved, status=Enrollment.Status.ACTIVE, stalled_since__isnull=False
        ).update(stalled_reason="", stalled_since=None)


def stalled_q() -> Q:
    """Leads whose running enrollment is stalled (for filters and counts, in SQL)."""
    return Q(
        Exists(
            Enrollment.objects.filter(
                lead_id=OuterRef("pk"),
                status=Enrollment.Status.ACTIVE,
                stalled_since__isnull=False,
            )
        )
    )


def stalled_leads(leads: QuerySet[Lead]) -> QuerySet[Lead]:
    return leads.filter(stalled_q())


def wake(lead_ids: Iterable[int], now: datetime | None = None) -> int:
    """Something about these leads changed: their stalled enrollments are due again, so
    the next dispatch looks at them. Called by whatever may unblock one: the import's
    updates, `lead_entry.update_lead`, `optout.lift_opt_out`, `takeover.hand_back`, the
    contact policy. (A number that can send again needs no wake: leads stalled for want
    of a sending number stay due.)"""
    now = now or timezone.now()
    waiting = Enrollment.objects.filter(
        lead_id__in=list(lead_ids), status=Enrollment.Status.ACTIVE, stalled_since__isnull=False
    ).values("lead_id")
    return Journey.objects.filter(lead_id__in=waiting, next_action_at__isnull=True).update(
        next_action_at=now, updated_at=now
    )
