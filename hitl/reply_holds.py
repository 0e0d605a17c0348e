"""A reply stops automation the moment it is stored, before anyone knows what it says.

`hold` runs in the reply's own transaction (hitl.replies.process_reply): the lead's
sequence stops (`outreach.sequences.stop`: a follow-up already queued never goes out),
whatever the triage later finds, and the company's other contacts stop, pause or go on as
their sequences say (outreach.company_stop). It returns what it stopped, kept on the
reply's `ReplyTriage` row.

Only an out-of-office answer is not a reply: once the triage says so, `give_back` restarts
what that reply stopped, at the time it was planned for (or after the person's return),
unless something else happened to the lead since (another message from it, a new
enrollment, a stage where automation no longer runs, a different stop). A nurture
sequence (`Sequence.stop_on_reply` false) goes on the same way after a reply that is not a
refusal or an opt-out (`go_on`).
"""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone
from django.utils.dateparse import parse_datetime

from cerniq import reasons
from outreach import automation, company_stop, sequences
from outreach.company_stop import RUNNING, what_runs
from outreach.models import Enrollment, Journey, Lead, Message, SequenceEvent
from outreach.past_messages import NOT_HISTORY
from outreach.reasons import NURTURE_CONTINUED, STOP_REPLY

# What a hold left: stopped, or paused by a colleague's reply (outreach.company_stop).
RUNNING_OR_STOPPED = (Enrollment.Status.STOPPED, Enrollment.Status.PAUSED)


def hold(lead: Lead) -> dict:
    """Stop the lead's sequence, and apply each of its company's other contacts' sequence
    option (outreach.company_stop: stop, pause or go on). Returns {"leads": {lead id: what
    ran}, "company_stopped": n} for `give_back` and `go_on`."""
    now = timezone.now()
    stopped: dict[str, dict] = {}
    snapshot = what_runs(lead.pk)
    running = (
        Enrollment.objects.filter(lead_id=lead.pk, status=Enrollment.Status.ACTIVE)
        .select_related("sequence")
        .first()
    )
    said = reasons.code(STOP_REPLY)
    if sequences.stop(lead.pk, said) and snapshot is not None:
        stopped[str(lead.pk)] = {**snapshot, "reason": said}
        if automation.nurturing(running):
            stopped[str(lead.pk)]["nurture"] = True
    colleagues = company_stop.colleagues_replied(lead, now)
    return {"leads": stopped | colleagues, "company_stopped": len(colleagues)}


def go_on(lead: Lead, message: Message, held: dict) -> bool:
    """A nurture sequence goes on after this reply (its triage found no refusal): restarted
    as it was planned, the decision kept on the lead's page. False when nothing restarts
    (no nurture sequence ran, or something else happened to the lead since)."""
    state = (held.get("leads") or {}).get(str(lead.pk))
    if not state or not state.get("nurture"):
        return False
    if not _give_back_one(lead.pk, state, message, None, nurture=True):
        return False
    SequenceEvent.objects.create(
        tenant_id=lead.tenant_id,
        lead_id=lead.pk,
        enrollment_id=state["enrollments"][0]["pk"],
        kind=SequenceEvent.Kind.CONTINUED,
        reason=reasons.code(NURTURE_CONTINUED),
        created_at=timezone.now(),
    )
    return True


def give_back(message: Message, held: dict, *, back: datetime | None = None) -> int:
    """Restart what the reply `message` stopped (it was an out-of-office answer): each
    enrollment as it was, due when it was planned, or at `back` when that is later; a step
    that was queued is due again at once (or at `back`). Returns how many leads restarted."""
    restarted = 0
    for lead_id, state in (held.get("leads") or {}).items():
        if _give_back_one(int(lead_id), state, message, back):
            restarted += 1
    return restarted


def _give_back_one(
    lead_id: int, state: dict, message: Message, back: datetime | None, *, nurture: bool = False
) -> bool:
    journey = Journey.objects.select_for_update().filter(lead_id=lead_id).first()
    if journey is None or journey.taken_over_by_id:
        return False
    if not automation.runs_in(journey.stage, nurture=nurture):
        return False
    newer = Message.objects.filter(
        lead_id=lead_id, direction=Message.Direction.INBOUND, pk__gt=message.pk
    )
    # A chat's history stored since was written before: not a newer message.
    wrote_since = newer.filter(NOT_HISTORY).exists()
    # Another enrollment running (not the one this reply paused) was started since.
    running = Enrollment.objects.filter(lead_id=lead_id, status__in=RUNNING).exclude(
        status=Enrollment.Status.PAUSED, stop_reason=state["reason"]
    )
    if wrote_since or running.exists():
        return False  # its newer message, or a new enrollment, decides now
    planned = [parse_datetime(state["next_action_at"])] if state.get("next_action_at") else []
    if state.get("queued"):
        planned.append(timezone.now())  # the step it had queued is dispatched again
    candidates = [when for when in [*planned, back] if when is not None]
    due = max(candidates) if candidates else None
    resumed = 0
    for row in state.get("enrollments") or []:
        own = parse_datetime(row["next_run_at"]) if row.get("next_run_at") else None
        run_at = max(when for when in (own, due) if when) if (own or due) else None
        resumed += Enrollment.objects.filter(
            pk=row["pk"], status__in=RUNNING_OR_STOPPED, stop_reason=state["reason"]
        ).update(status=row["status"], stop_reason="", stopped_at=None, next_run_at=run_at)
    if not resumed:
        return False
    journey.next_action_at = due
    journey.save(update_fields=["next_action_at", "updated_at"])
    return True
