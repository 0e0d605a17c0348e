"""A reply from one contact of a company, and the company's other contacts: each of their
running sequences stops, pauses for some days or goes on, as that sequence says
(`Sequence.company_reply`, `company_pause_days`). Each decision is kept on the contact's
page (a `SequenceEvent`), a stop or pause cancels what was queued for that contact, and a
pause ends by itself (`resume_due`, a periodic job).

Called in the reply's own transaction (hitl.reply_holds.hold), before anyone knows what the
reply says; an out-of-office answer gives it all back (`give_back`).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db.models import Q
from django.utils import timezone

from cerniq import reasons
from outreach import automation, sequences
from outreach import reasons as codes
from outreach.event_models import SequenceEvent
from outreach.models import Enrollment, Journey, Lead, Message, Sequence

RUNNING = (Enrollment.Status.ACTIVE, Enrollment.Status.PAUSED)


def colleagues_replied(lead: Lead, now: datetime) -> dict[str, dict]:
    """Apply each other contact's sequence option; returns, per contact id stopped or
    paused, what ran before (for `give_back`)."""
    if not lead.company_id:
        return {}
    running = (
        Enrollment.objects.filter(
            lead__company_id=lead.company_id, lead__tenant_id=lead.tenant_id, status__in=RUNNING
        )
        .exclude(lead_id=lead.pk)
        .select_related("sequence")
        .order_by("pk")
    )
    held: dict[str, dict] = {}
    for enrollment in running:
        option = enrollment.sequence.company_reply
        if option == Sequence.CompanyReply.CONTINUE:
            _note(enrollment, SequenceEvent.Kind.COMPANY_CONTINUED, codes.COMPANY_CONTINUED, now)
            continue
        snapshot = what_runs(enrollment.lead_id) or {}
        if option == Sequence.CompanyReply.PAUSE:
            until = now + timedelta(days=enrollment.sequence.company_pause_days)
            said = reasons.code(codes.STOP_COMPANY_PAUSED, until=until.isoformat())
            if _pause(enrollment, said, until):
                _note(enrollment, SequenceEvent.Kind.COMPANY_PAUSED, said, now)
                held[str(enrollment.lead_id)] = {**snapshot, "reason": said, "paused": True}
            continue
        said = reasons.code(codes.STOP_COMPANY_REPLIED)
        if sequences.stop(enrollment.lead_id, said):
            _note(enrollment, SequenceEvent.Kind.COMPANY_STOPPED, said, now)
            held[str(enrollment.lead_id)] = {**snapshot, "reason": said}
    return held


def what_runs(lead_id: int) -> dict | None:
    """What a stop or pause is about to end for one lead (kept to give it back), or None
    when nothing runs."""
    enrollments = [
        {"pk": pk, "status": status, "next_run_at": _iso(next_run_at)}
        for pk, status, next_run_at in Enrollment.objects.filter(
            lead_id=lead_id, status__in=RUNNING
        ).values_list("pk", "status", "next_run_at")
    ]
    if not enrollments:
        return None
    journey_next = (
        Journey.objects.filter(lead_id=lead_id).values_list("next_action_at", flat=True).first()
    )
    queued = Message.objects.filter(
        lead_id=lead_id,
        direction=Message.Direction.OUTBOUND,
        status=Message.Status.QUEUED,
        is_manual=False,
    ).exists()
    return {"enrollments": enrollments, "next_action_at": _iso(journey_next), "queued": queued}


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _pause(enrollment: Enrollment, said: str, until: datetime) -> bool:
    """PAUSED until `until` (its reason says so): what was queued is cancelled, what a
    provider holds is withdrawn (the automation rule no longer wants it)."""
    paused = Enrollment.objects.filter(pk=enrollment.pk, status__in=RUNNING).update(
        status=Enrollment.Status.PAUSED,
        stop_reason=said,
        next_run_at=until,
        stalled_reason="",
        stalled_since=None,
    )
    if not paused:
        return False
    Journey.objects.filter(lead_id=enrollment.lead_id).update(next_action_at=None)
    sequences.cancel_queued([enrollment.lead_id], said)
    automation.stopped([enrollment.lead_id])
    return True


def _note(enrollment: Enrollment, kind: str, said: str, now: datetime) -> None:
    SequenceEvent.objects.create(
        tenant_id=enrollment.tenant_id,
        lead_id=enrollment.lead_id,
        enrollment=enrollment,
        kind=kind,
        reason=said,
        created_at=now,
    )


def paused_by_company() -> Q:
    return Q(status=Enrollment.Status.PAUSED, stop_reason__startswith=codes.STOP_COMPANY_PAUSED)


def resume_due(now: datetime | None = None) -> int:
    """Enrollments whose company pause is over run again: due at once (dispatch places
    the step in the sending window). Returns how many."""
    now = now or timezone.now()
    due = list(
        Enrollment.objects.filter(paused_by_company(), next_run_at__lte=now).values_list(
            "pk", "lead_id"
        )
    )
    if not due:
        return 0
    resumed = Enrollment.objects.filter(paused_by_company(), pk__in=[pk for pk, _ in due]).update(
        status=Enrollment.Status.ACTIVE, stop_reason="", next_run_at=now
    )
    Journey.objects.filter(lead_id__in=[lead_id for _, lead_id in due]).update(
        next_action_at=now, updated_at=now
    )
    return resumed
