"""Operator takeover: a person owns the conversation and automation keeps out of it.

take_over(lead, user)
    Sets journey.taken_over_by/at and stops the lead's sequence (sequences.stop with the
    reason code STOP_TAKEOVER), which also cancels what is still queued for the lead and
    withdraws a cold email a campaign still holds (outreach.automation.stopped). From
    then on no automated message reaches the lead by any path: dispatch skips taken-over
    journeys and the send path cancels any automated message queued later (e.g. an AI auto
    reply).
    Taking over a lead someone else holds is refused, naming them.

send_as_operator(lead, user, text)
    Only the user holding the takeover may write to the lead through it. Writing to a lead
    that is not taken over is refused: its sequence would still be running, so an automated
    follow-up could land right after the person's message. Take it over first (review
    items have their own path: hitl.review.approve_draft).

hand_back(lead, user, *, stage=None, resume=True)
    Only the holder hands back. `stage` is applied through outreach.stages.transition.
    With `resume`, a lead still in COLD/CONTACTED_* whose last enrollment is the one the
    takeover stopped is put back in that sequence, continuing at the step after the last
    one sent (the same enrollment row becomes ACTIVE again, keeping its sequence version;
    a step withdrawn from a campaign does not count as sent, so it is pushed again),
    and the journey is due now so the next dispatch queues that step (inside the sending
    window; dispatch defers it otherwise). Nothing is resumed when the lead moved on (another
    stage, another enrollment since, sequence inactive or already at its last step); the
    caller may enroll it again. Handing back with stage=PAUSED does not keep the sequence.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from cerniq import reasons
from cerniq.tenancy import display_name
from hitl.review import ReviewError, check_member
from outreach import sequences, stages, stalls
from outreach.manual import SendRefused, held_by_message, send_manual
from outreach.models import Enrollment, Journey, Lead, Message
from outreach.reasons import STAGE_HANDED_BACK, STOP_TAKEOVER

LEGACY_STOP_REASON = "takeover"  # what rows written before stop reasons were codes hold


class TakeoverError(ReviewError):
    """A takeover action is not allowed; the text says why, for the operator."""


def _journey(lead: Lead) -> Journey:
    try:
        return Journey.objects.select_for_update().get(lead_id=lead.pk)
    except Journey.DoesNotExist:
        raise TakeoverError(_("%(lead)s has no journey yet.") % {"lead": lead.name}) from None


def _held_by_someone_else(journey: Journey) -> TakeoverError:
    return TakeoverError(held_by_message(journey))


@transaction.atomic
def take_over(lead: Lead, user: User) -> Journey:
    """Give the conversation to `user` and stop all automation for the lead."""
    journey = _journey(lead)
    check_member(journey.tenant_id, user)
    if journey.taken_over_by_id == user.pk:
        return journey
    if journey.taken_over_by_id:
        raise _held_by_someone_else(journey)
    journey.taken_over_by, journey.taken_over_at = user, timezone.now()
    journey.save(update_fields=["taken_over_by", "taken_over_at", "updated_at"])
    sequences.stop(lead.pk, reasons.code(STOP_TAKEOVER))
    journey.refresh_from_db()
    return journey


@transaction.atomic
def send_as_operator(lead: Lead, user: User, text: str) -> Message:
    """Queue `text` to the lead as `user`, who must hold the takeover."""
    journey = _journey(lead)
    check_member(journey.tenant_id, user)
    if not journey.taken_over_by_id:
        raise TakeoverError(
            _(
                "Take over the conversation before writing to the lead; "
                "its automation is still running."
            )
        )
    if journey.taken_over_by_id != user.pk:
        raise _held_by_someone_else(journey)
    try:
        return send_manual(lead, text, user=user, reason="operator message (takeover)")
    except SendRefused as refused:
        raise TakeoverError(str(refused)) from refused


@transaction.atomic
def hand_back(lead: Lead, user: User, *, stage: str | None = None, resume: bool = True) -> Journey:
    """End the takeover; optionally move the stage and resume the stopped sequence."""
    journey = _journey(lead)
    check_member(journey.tenant_id, user)
    if not journey.taken_over_by_id:
        raise TakeoverError(
            _("This conversation is not taken over; there is nothing to hand back.")
        )
    if journey.taken_over_by_id != user.pk:
        holder = display_name(journey.taken_over_by)
        raise TakeoverError(
            _("Only %(user)s, who took over this conversation, can hand it back.")
            % {"user": holder}
        )
    if stage is not None:
        try:
            handed_back = reasons.code(STAGE_HANDED_BACK)
            stages.transition(journey, stage, reason=handed_back, by_user=user)
        except stages.IllegalTransition as illegal:
            raise TakeoverError(str(illegal)) from illegal
    journey.refresh_from_db()
    journey.taken_over_by, journey.taken_over_at = None, None
    journey.save(update_fields=["taken_over_by", "taken_over_at", "updated_at"])
    if resume:
        _resume(journey)
    stalls.wake([lead.pk])  # an enrollment stalled by the takeover is due again
    return journey


def _resume(journey: Journey) -> bool:
    """Reactivate the enrollment the takeover stopped; the journey is due now. True if so."""
    if journey.stage not in stages.AUTOMATED:
        return False
    last = (
        Enrollment.objects.filter(lead_id=journey.lead_id)
        .select_related("sequence")
        .order_by("-pk")
        .first()
    )
    if (
        last is None
        or last.status != Enrollment.Status.STOPPED
        or not (
            reasons.is_code(last.stop_reason, STOP_TAKEOVER)
            or last.stop_reason == LEGACY_STOP_REASON
        )
        or not last.sequence.is_active
        or sequences.step_after(last, last.current_step) is None
    ):
        return False
    now = timezone.now()
    Enrollment.objects.filter(pk=last.pk).update(
        status=Enrollment.Status.ACTIVE, stop_reason="", stopped_at=None, next_run_at=now
    )
    journey.current_sequence_id, journey.next_action_at = last.sequence_id, now
    journey.save(update_fields=["current_sequence", "next_action_at", "updated_at"])
    return True
