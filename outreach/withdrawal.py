"""Cold email a provider still holds, taken back when automation stops for the lead.

A cold email handed to a campaign (outreach.pushing) is sent by the provider on the
campaign's schedule, hours or days later, so the send path's last check never sees it
again. When automation stops for a lead (outreach.automation.stopped: a takeover, a review
hold, a pause, a reply, the company's stop, a closing stage, an opt-out), each integration
that holds such emails withdraws them (integrations/instantly/withdrawal.py), using this
module for everything that is ours:

- `held_pushes` (outreach.automation's): our rows of the emails a provider may still
  hold (pushed, or being pushed, and not known to be emailed yet);
- `still_stopped`: the one rule (outreach.automation.why_stopped) asked again when the
  withdrawal runs; "" means automation is wanted again (a review closed, a hand-back in
  the meantime) and the provider keeps the email;
- `take_back`: the provider no longer has it: the row is cancelled with the reason, shown
  on the lead's conversation ("Withdrawn from Instantly campaign … before it was sent: a
  colleague took the conversation over"), and the enrollment stands before that step
  again, so whatever resumes the sequence (a hand-back, the end of a pause, a closed
  review) queues the step again and it is pushed anew. When it was the lead's only
  contact, the lead is not "contacted" any more (stages.not_contacted: COLD again), so the
  step goes again as a first contact, a cold email;
- `mark_emailed`: the provider had sent it already: nothing to withdraw (its thread stays
  there), and it is never looked up again;
- `withdrawal_failed`: the provider could not be told after the retry table's tries: said
  on the row, in red on the lead's page, and in an alert, never silently.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from cerniq import reasons
from cerniq.alerts import raise_alert
from cerniq.models import Alert
from outreach import automation, stages
from outreach import reasons as codes
from outreach.automation import EMAILED, HOLDING
from outreach.models import (
    SENT_STATUSES,
    Enrollment,
    Journey,
    Message,
    SequenceStep,
    TemplateVersion,
)
from outreach.sequences import cancel_message
from outreach.transports import recipient_id

RUNNING = (Enrollment.Status.ACTIVE, Enrollment.Status.PAUSED)


def still_stopped(message: Message) -> str:
    """Why automation is stopped for the message's lead now, "" when it is wanted again.
    The lead's latest enrollment speaks for it: a sequence that moved on to its fallback
    still wants the email it handed over."""
    lead_id = recipient_id(message)
    journey = Journey.objects.filter(lead_id=lead_id).first()
    if journey is None:
        return reasons.code(codes.STOP_NOT_RUNNING)
    latest = Enrollment.objects.filter(lead_id=lead_id).order_by("-pk").first()
    return automation.why_stopped(journey, latest, channel=message.channel, handed_over=True)


@transaction.atomic
def take_back(message: Message, *, provider: str, campaign: str, why: str) -> bool:
    """The provider no longer holds the email: record it and step the sequence back.
    False when the row was settled already (a second withdrawal of the same email)."""
    journey = Journey.objects.select_for_update().get(lead_id=recipient_id(message))
    said = reasons.code(codes.WITHDRAWN, provider=provider, campaign=campaign, why=why)
    if not cancel_message(message, said, status=message.status):
        return False
    if message.template_version_id:  # it was counted sent when pushed
        TemplateVersion.objects.filter(
            pk=message.template_version_id, sent_count__gt=F("reply_count")
        ).update(sent_count=F("sent_count") - 1)
    _step_back(message, journey, still_stopped(message))  # asked again, under the lock
    contacted = Message.objects.filter(
        lead_id=journey.lead_id, direction=Message.Direction.OUTBOUND, status__in=SENT_STATUSES
    )
    if not contacted.exists():  # it was the lead's only contact: nobody wrote to it yet
        Journey.objects.filter(pk=journey.pk).update(first_contact_at=None, last_contact_at=None)
        stages.not_contacted(journey, reason=said)
    return True


def _step_back(message: Message, journey: Journey, why: str) -> None:
    """The message's enrollment stands before its step again, if that step is the last
    one it handed out (a later step sent since: the sequence goes on from there). An
    enrollment the push completed is reopened as the stop would have left a running one:
    still running under a review hold (or when automation is wanted again by now: a
    hand-back while Instantly was being called), paused by a pause, else stopped with
    `why`."""
    step = message.step
    if step is None or message.sequence_id is None:
        return
    enrollment = (
        Enrollment.objects.select_for_update()
        .filter(lead_id=journey.lead_id, sequence_id=message.sequence_id)
        .order_by("-pk")
        .first()
    )
    if (
        enrollment is None
        or enrollment.sequence_version != step.sequence_version
        or enrollment.current_step != step.position
    ):
        return
    status = enrollment.status
    if status == Enrollment.Status.COMPLETED:
        other = Enrollment.objects.filter(lead_id=journey.lead_id, status__in=RUNNING)
        if other.exists():
            return  # enrolled elsewhere since: that sequence speaks for the lead
        status = _reopened(why)
    before = (
        SequenceStep.objects.filter(
            sequence_id=step.sequence_id,
            sequence_version=step.sequence_version,
            position__lt=step.position,
        )
        .order_by("-position")
        .values_list("position", flat=True)
        .first()
    ) or 0
    now = timezone.now()
    stopped = status == Enrollment.Status.STOPPED
    Enrollment.objects.filter(pk=enrollment.pk).update(
        current_step=before,
        status=status,
        completed_at=None,
        stop_reason=enrollment.stop_reason or (why[:64] if stopped else ""),
        stopped_at=enrollment.stopped_at or (now if stopped else None),
        next_run_at=now if status == Enrollment.Status.ACTIVE else None,
    )
    due = {"next_action_at": now} if status == Enrollment.Status.ACTIVE else {}
    Journey.objects.filter(pk=journey.pk).update(sequence_step=before, updated_at=now, **due)


def _reopened(why: str) -> str:
    if not why or reasons.is_code(why, codes.STOP_REVIEW):
        return Enrollment.Status.ACTIVE  # dispatch waits for the review to close, if any
    if reasons.is_code(why, codes.STOP_PAUSED):
        return Enrollment.Status.PAUSED  # the end of the pause reactivates it
    return Enrollment.Status.STOPPED


def mark_emailed(message: Message, at: str) -> None:
    """The provider has emailed this push already (`at`, its timestamp)."""
    raw = {**(message.raw_response or {}), EMAILED: at or "unknown"}
    Message.objects.filter(pk=message.pk).update(raw_response=raw)


def withdrawal_failed(
    message: Message, *, provider: str, campaign: str, why: str, error: str
) -> None:
    """The provider could not be told: the row says so and an alert is raised."""
    said = reasons.code(
        codes.WITHDRAW_FAILED, provider=provider, campaign=campaign, why=why, error=error
    )
    Message.objects.filter(pk=message.pk, status__in=HOLDING).update(error=said)
    raise_alert(
        message.tenant,
        Alert.Kind.OTHER,
        f"withdrawal:{provider.lower()}",  # one alert, counted; each row says which lead
        said,
        severity=Alert.Severity.WARNING,
    )
