"""The stage machine: the only code that changes a journey's stage.

Every move is checked against ALLOWED and leaves a StageTransition row; the one move
outside ALLOWED, back to COLD when the only contact was withdrawn before it went out,
is `not_contacted`'s and leaves its row too.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext as _

from cerniq import integrations
from cerniq.outbound.events import emit_many
from outreach import sequences
from outreach.models import Journey, Stage, StageTransition

# The stage groups every other module uses (never a tuple of its own).
# Automation (dispatch, enrollment, sequence sends, resuming after a takeover) runs only here.
AUTOMATED: frozenset[str] = frozenset({Stage.COLD, Stage.CONTACTED_WA, Stage.CONTACTED_EMAIL})
# A person is talking with the lead: no automation, but the lead is alive.
CONVERSING: frozenset[str] = frozenset({Stage.WARM_REPLY, Stage.NEGOTIATION})
ACTIVE = AUTOMATED | CONVERSING
# Nothing automated, not even a conversational reply, reaches a lead here.
CLOSED: frozenset[str] = frozenset({Stage.DEAD, Stage.CONVERTED, Stage.PAUSED})

ALLOWED: dict[str, frozenset[str]] = {
    Stage.COLD: frozenset(
        {Stage.CONTACTED_WA, Stage.CONTACTED_EMAIL, Stage.WARM_REPLY, Stage.PAUSED, Stage.DEAD}
    ),
    Stage.CONTACTED_WA: frozenset(
        {Stage.CONTACTED_EMAIL, Stage.WARM_REPLY, Stage.PAUSED, Stage.DEAD}
    ),
    Stage.CONTACTED_EMAIL: frozenset(
        {Stage.CONTACTED_WA, Stage.WARM_REPLY, Stage.PAUSED, Stage.DEAD}
    ),
    Stage.WARM_REPLY: frozenset({Stage.NEGOTIATION, Stage.CONVERTED, Stage.PAUSED, Stage.DEAD}),
    Stage.NEGOTIATION: frozenset({Stage.WARM_REPLY, Stage.CONVERTED, Stage.PAUSED, Stage.DEAD}),
    # PAUSED goes back to where it came from (checked in transition()) or to DEAD.
    Stage.PAUSED: frozenset(ACTIVE | {Stage.DEAD}),
    Stage.CONVERTED: frozenset(),
    Stage.DEAD: frozenset({Stage.COLD}),  # an operator may revive a lost lead
}


def after_reply(stage: str, *, declines: bool) -> str | None:
    """The stage a lead's reply moves it to, or None to stay. Only automation's stages move:
    a plain decline closes the lead (DEAD: lost, not interested), any other real reply makes
    it a WARM_REPLY. Where a person already converses with the lead, or it is closed, the
    reply changes no stage (the review item tells the person). Out-of-office answers and
    opt-outs are not replies here (hitl.replies)."""
    if stage not in AUTOMATED:
        return None
    return Stage.DEAD if declines else Stage.WARM_REPLY


WITHDRAWAL = "withdrawal"  # by_system of the move back to COLD (not_contacted)


class IllegalTransition(ValueError):
    pass


def allowed_targets(journey: Journey) -> list[str]:
    """Stages this journey may move to now (what the UI offers)."""
    if journey.stage == Stage.PAUSED:
        return [s for s in (journey.previous_stage or Stage.COLD, Stage.DEAD) if s]
    return sorted(ALLOWED[journey.stage])


@transaction.atomic
def transition(
    journey: Journey,
    to: str,
    *,
    reason: str,
    by_user: User | None = None,
    by_system: str = "",
) -> StageTransition:
    """Move `journey` to stage `to`, or raise IllegalTransition saying why not."""
    locked = Journey.objects.select_for_update().get(pk=journey.pk)
    _check(locked, to, reason)
    return _move(journey, locked, to, reason=reason, by_user=by_user, by_system=by_system)


@transaction.atomic
def transition_many(
    journeys: list[Journey], to: str, *, reason: str, by_system: str = "", locked: bool = False
) -> list[StageTransition]:
    """`transition` for many journeys at once (a batch of sends moving its leads to a
    contacted stage): each checked as `transition` checks it (IllegalTransition for the
    first that may not move), then moved together: one UPDATE, one INSERT of their history
    rows, one outbox write of their events. `locked`: the caller read these journeys with
    their rows locked in this transaction (they are current), else they are read again."""
    if not journeys:
        return []
    if locked:
        pairs = [(journey, journey) for journey in journeys]
    else:
        ids = sorted(j.pk for j in journeys)  # locked in id order
        rows = {
            row.pk: row
            for row in Journey.objects.select_for_update().filter(pk__in=ids).order_by("pk")
        }
        pairs = [(journey, rows[journey.pk]) for journey in journeys]
    for _journey, row in pairs:
        _check(row, to, reason)
    return _move_many(pairs, to, reason=reason, by_user=None, by_system=by_system)


def _check(locked: Journey, to: str, reason: str) -> None:
    current = locked.stage
    if to not in Stage.values:
        raise IllegalTransition(_("Unknown stage %(stage)s.") % {"stage": repr(to)})
    if to == current:
        raise IllegalTransition(
            _("The lead is already %(stage)s.") % {"stage": Stage(current).label}
        )
    if to not in allowed_targets(locked):
        raise IllegalTransition(
            _("Cannot move a lead from %(from)s to %(to)s.")
            % {"from": Stage(current).label, "to": Stage(to).label}
        )
    if not reason:
        raise IllegalTransition(_("A stage change needs a reason."))


def _move(
    journey: Journey,
    locked: Journey,
    to: str,
    *,
    reason: str,
    by_user: User | None,
    by_system: str,
) -> StageTransition:
    """Move the locked journey (and `journey`, the caller's copy) to `to`."""
    moved = _move_many([(journey, locked)], to, reason=reason, by_user=by_user, by_system=by_system)
    return moved[0]


def _move_many(
    pairs: list[tuple[Journey, Journey]],
    to: str,
    *,
    reason: str,
    by_user: User | None,
    by_system: str,
) -> list[StageTransition]:
    """Move each locked journey (and the caller's copy beside it) to `to`: the change, its
    consequences (sequences, integrations, outgoing webhooks) and its history row. One
    UPDATE and one INSERT however many journeys; the events of each tenant in one write."""
    now = timezone.now()
    moves: list[tuple[Journey, str]] = []
    for journey, locked in pairs:
        current = locked.stage
        for copy in (locked, journey):
            copy.previous_stage, copy.stage, copy.stage_changed_at = current, to, now
        moves.append((locked, current))
    Journey.objects.filter(pk__in=[locked.pk for locked, _ in moves]).update(
        previous_stage=F("stage"), stage=to, stage_changed_at=now, updated_at=now
    )
    events: dict[int, list[dict]] = {}
    for locked, current in moves:
        sequences.on_stage_changed(locked, current, to)
        events.setdefault(locked.tenant_id, []).append(
            _stage_event(locked, current, to, reason, by_system)
        )
    integrations.notify_many(
        "stage_changed",
        [
            {"journey_id": locked.pk, "from_stage": current, "to_stage": to, "by_system": by_system}
            for locked, current in moves
        ],
    )
    for tenant_id, data in events.items():
        emit_many(tenant_id, "lead.stage_changed", data)
    return StageTransition.objects.bulk_create(
        StageTransition(
            tenant_id=locked.tenant_id,
            journey=locked,
            from_stage=current,
            to_stage=to,
            reason=reason,
            by_user=by_user,
            by_system=by_system,
        )
        for locked, current in moves
    )


def _stage_event(journey: Journey, current: str, to: str, reason: str, by_system: str) -> dict:
    assert journey.stage_changed_at is not None, "transition() sets it before the event"
    return {
        "lead_id": journey.lead_id,
        "from_stage": current,
        "to_stage": to,
        "reason": reason,
        "by_system": by_system,
        "changed_at": journey.stage_changed_at.isoformat(),
    }


@transaction.atomic
def not_contacted(journey: Journey, *, reason: str) -> None:
    """The lead's only contact was taken back before it went out (a cold email withdrawn
    from its campaign, outreach.withdrawal): a lead that contact made CONTACTED_EMAIL is
    COLD again, and a paused one resumes to COLD, so its next step is a first contact
    again (a cold email, not a warm one). Any other stage says more and stays."""
    locked = Journey.objects.select_for_update().get(pk=journey.pk)
    if locked.stage == Stage.PAUSED and locked.previous_stage == Stage.CONTACTED_EMAIL:
        Journey.objects.filter(pk=locked.pk).update(previous_stage=Stage.COLD)
        journey.previous_stage = Stage.COLD
    elif locked.stage == Stage.CONTACTED_EMAIL:
        _move(journey, locked, Stage.COLD, reason=reason, by_user=None, by_system=WITHDRAWAL)


def pause(journey: Journey, *, reason: str, by_user: User | None = None) -> None:
    transition(journey, Stage.PAUSED, reason=reason, by_user=by_user)


def resume(journey: Journey, *, reason: str, by_user: User | None = None) -> None:
    if journey.stage != Stage.PAUSED:
        raise IllegalTransition(_("Only a paused lead can be resumed."))
    transition(journey, journey.previous_stage or Stage.COLD, reason=reason, by_user=by_user)
