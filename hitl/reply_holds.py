"""A reply stops automation the moment it is stored, before anyone knows what it says.

`hold` runs in the reply's own transaction (hitl.replies.process_reply): the lead's
sequence and those of its company stop (`outreach.sequences.stop`: a follow-up already
queued never goes out), whatever the triage later finds. It returns what it stopped, kept
on the reply's `ReplyTriage` row.

Only an out-of-office answer is not a reply: once the triage says so, `give_back` restarts
what that reply stopped, at the time it was planned for (or after the person's return),
unless something else happened to the lead since (another message from it, a new
enrollment, a stage where automation no longer runs, a different stop).
"""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone
from django.utils.dateparse import parse_datetime

from cerniq import reasons
from outreach import sequences, stages
from outreach.models import Enrollment, Journey, Lead, Message
from outreach.past_messages import NOT_HISTORY
from outreach.reasons import STOP_COMPANY_REPLIED, STOP_REPLY

RUNNING = (Enrollment.Status.ACTIVE, Enrollment.Status.PAUSED)


def _snapshot(lead_id: int) -> dict | None:
    """What `sequences.stop` is about to end for one lead, or None when nothing runs."""
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


def hold(lead: Lead) -> dict:
    """Stop the lead's sequence and those of the other leads of its company (same CUI).
    Returns {"leads": {lead id: what ran}, "company_stopped": n} for `give_back`."""
    stopped: dict[str, dict] = {}
    others: list[int] = []
    if lead.cui:
        others = list(
            Lead.objects.filter(tenant_id=lead.tenant_id, cui=lead.cui)
            .exclude(pk=lead.pk)
            .values_list("pk", flat=True)
        )
    for lead_id, why in [(lead.pk, STOP_REPLY), *((o, STOP_COMPANY_REPLIED) for o in others)]:
        snapshot = _snapshot(lead_id)
        if sequences.stop(lead_id, reasons.code(why)) and snapshot is not None:
            stopped[str(lead_id)] = {**snapshot, "reason": reasons.code(why)}
    company = sum(1 for lead_id in stopped if int(lead_id) != lead.pk)
    return {"leads": stopped, "company_stopped": company}


def give_back(message: Message, held: dict, *, back: datetime | None = None) -> int:
    """Restart what the reply `message` stopped (it was an out-of-office answer): each
    enrollment as it was, due when it was planned, or at `back` when that is later; a step
    that was queued is due again at once (or at `back`). Returns how many leads restarted."""
    restarted = 0
    for lead_id, state in (held.get("leads") or {}).items():
        if _give_back_one(int(lead_id), state, message, back):
            restarted += 1
    return restarted


def _give_back_one(lead_id: int, state: dict, message: Message, back: datetime | None) -> bool:
    journey = Journey.objects.select_for_update().filter(lead_id=lead_id).first()
    if journey is None or journey.stage not in stages.AUTOMATED or journey.taken_over_by_id:
        return False
    newer = Message.objects.filter(
        lead_id=lead_id, direction=Message.Direction.INBOUND, pk__gt=message.pk
    )
    # A chat's history stored since was written before: not a newer message.
    wrote_since = newer.filter(NOT_HISTORY).exists()
    if wrote_since or Enrollment.objects.filter(lead_id=lead_id, status__in=RUNNING).exists():
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
            pk=row["pk"], status=Enrollment.Status.STOPPED, stop_reason=state["reason"]
        ).update(status=row["status"], stop_reason="", stopped_at=None, next_run_at=run_at)
    if not resumed:
        return False
    journey.next_action_at = due
    journey.save(update_fields=["next_action_at", "updated_at"])
    return True
