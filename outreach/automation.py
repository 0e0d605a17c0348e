"""Is automation still wanted for a lead: the one rule, and the one hook when it stops.

Automation is a sequence's steps, whatever channel carries them. `why_stopped` answers
with a reason code (the `stop.*` block of outreach.reasons), "" while it is wanted; the
first row that holds gives the reason:

| the lead                                       | reason                                 |
| --- | --- |
| opted out of the step's channel                | STOP_OPT_OUT                           |
| is in a stage automation does not run in (a    | STOP_PAUSED, STOP_REPLY, STOP_STAGE    |
| nurture sequence runs in WARM_REPLY too)       |                                        |
| is taken over by a person                      | STOP_TAKEOVER                          |
| is held for human review (an open review item) | STOP_REVIEW                            |
| has its enrollment paused or stopped           | STOP_PAUSED, the enrollment's own code |
| has no enrollment of that sequence running     | STOP_NOT_RUNNING                       |

An opt-out asked for on any channel stops the enrollment (outreach.optout), so it is the
enrollment's row that stops the other channels; a channel flagged alone (its address is
on the suppression list) only closes that channel, and dispatch may use the other one.

Who asks: dispatch picks its due journeys by the SQL form of the lead-level rows
(`wanted_q`); the send path (outreach.sending.why_not_send) asks before every queued step
goes out, so a WhatsApp message waiting for its phone's turn, a warm email and a cold
email waiting for its push are all refused once automation stops; the withdrawal of what
a provider still holds (outreach.withdrawal) asks again when it runs, so a lead handed
back in the meantime keeps its email.

Every event that stops automation calls `stopped(lead_ids)`: `sequences.stop` (takeover,
a reply on any channel, the company's stop, an opt-out, a closing stage, stopping a
sequence), a pause (`sequences.on_stage_changed`) and a review hold
(`hitl.review.open_item`). After the transaction commits, the integrations hear it through
the "automation_stopped" hook and withdraw what they hold (docs/design.md, "Stopping
automation").
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction
from django.db.models import Exists, OuterRef, Q

from cerniq import integrations, reasons
from outreach import reasons as codes
from outreach import stages
from outreach.models import Channel, Enrollment, Journey, Message, Stage


def stage_reason(stage: str) -> str:
    """Why automation stops in `stage`, one it does not run in."""
    if stage == Stage.PAUSED:
        return reasons.code(codes.STOP_PAUSED)
    if stage == Stage.WARM_REPLY:
        return reasons.code(codes.STOP_REPLY)
    return reasons.code(codes.STOP_STAGE, stage=stage)


def held(journey: Journey, *, review: bool = True) -> str:
    """A person holds the lead (a takeover; with `review`, an open review item): no
    automated message of any kind goes out, a sequence's step or an AI answer."""
    if journey.taken_over_by_id:
        return reasons.code(codes.STOP_TAKEOVER)
    if review and journey.requires_human_review:
        return reasons.code(codes.STOP_REVIEW)
    return ""


# A nurture sequence (`Sequence.stop_on_reply` false) goes on after a reply that is not a
# refusal (hitl.reply_holds.go_on): the lead is then a WARM_REPLY, and automation runs there
# too, for that sequence only.
NURTURE_STAGES = frozenset({Stage.WARM_REPLY})


def runs_in(stage: str, *, nurture: bool = False) -> bool:
    """Whether automation runs in `stage` (for a nurture sequence's enrollment or not)."""
    return stage in stages.AUTOMATED or (nurture and stage in NURTURE_STAGES)


def nurturing(enrollment: Enrollment | None) -> bool:
    """A running enrollment of a nurture sequence (reads its sequence)."""
    return (
        enrollment is not None
        and enrollment.status == Enrollment.Status.ACTIVE
        and not enrollment.sequence.stop_on_reply
    )


def lead_stopped(journey: Journey, *, nurture: bool = False) -> str:
    """The lead-level rows of the rule (what `wanted_q` says in SQL). The stage speaks
    first: a reply or a pause says more than the review item or takeover that follow it."""
    if not runs_in(journey.stage, nurture=nurture):
        return stage_reason(journey.stage)
    return held(journey)


def why_stopped(
    journey: Journey,
    enrollment: Enrollment | None,
    *,
    channel: str = "",
    handed_over: bool = False,
) -> str:
    """The rule: "" while the sequence of `enrollment` may still reach the lead on
    `channel`, else why not. `handed_over`: the step is already with a provider that sends
    it on its own schedule, so an enrollment completed by handing it over still wants it."""
    opted_out = (
        journey.whatsapp_opted_out if channel == Channel.WHATSAPP else journey.email_opted_out
    )
    if channel and opted_out:
        return reasons.code(codes.STOP_OPT_OUT)
    nurture = journey.stage in NURTURE_STAGES and nurturing(enrollment)
    if stopped := lead_stopped(journey, nurture=nurture):
        return stopped
    if enrollment is None:
        return reasons.code(codes.STOP_NOT_RUNNING)
    status = enrollment.status
    if status == Enrollment.Status.ACTIVE:
        return ""
    if status == Enrollment.Status.COMPLETED:
        return "" if handed_over else reasons.code(codes.STOP_NOT_RUNNING)
    if status == Enrollment.Status.PAUSED:
        return reasons.code(codes.STOP_PAUSED)
    return enrollment.stop_reason or reasons.code(codes.STOP_NOT_RUNNING)


# Key of Message.raw_response: when the provider emailed a pushed lead (its timestamp).
EMAILED = "emailed_at"
HOLDING = (Message.Status.SENT, Message.Status.SENDING)


def held_pushes(lead_ids: Iterable[int]) -> list[int]:
    """Ids of these leads' cold emails a provider may hold and not have sent yet: pushed
    into a campaign (or being pushed), not known to be emailed."""
    return list(
        Message.objects.filter(
            lead_id__in=list(lead_ids),
            channel=Channel.EMAIL_COLD,
            direction=Message.Direction.OUTBOUND,
            status__in=HOLDING,
            is_manual=False,
            provider_thread_id="",  # a push into a campaign, not an answer in a thread
        )
        .exclude(raw_response__has_key=EMAILED)
        .order_by("pk")
        .values_list("pk", flat=True)
    )


def wanted_q() -> Q:
    """Journeys whose lead-level rows let automation run (dispatch's due journeys); the
    enrollment's row is read per batch by dispatch itself."""
    nurture = Exists(
        Enrollment.objects.filter(
            lead_id=OuterRef("lead_id"),
            status=Enrollment.Status.ACTIVE,
            sequence__stop_on_reply=False,
        )
    )
    stage = Q(stage__in=sorted(stages.AUTOMATED)) | (
        Q(stage__in=sorted(NURTURE_STAGES)) & Q(nurture)
    )
    return stage & Q(taken_over_by__isnull=True, requires_human_review=False)


class _Stopped:
    """The leads a transaction stopped, announced once when it commits."""

    def __init__(self) -> None:
        self.lead_ids: set[int] = set()
        self.announced = False

    def __call__(self) -> None:
        self.announced = True
        integrations.notify("automation_stopped", lead_ids=sorted(self.lead_ids))


def stopped(lead_ids: Iterable[int]) -> None:
    """Automation stopped for these leads: once the transaction commits, the integrations
    withdraw what they still hold for them (the "automation_stopped" hook). A reply stops
    a lead three ways at once (its stage, its enrollment, a review item): one transaction
    makes one announcement. A lead announced by a savepoint rolled back later costs only a
    look: each withdrawal asks the rule again before it acts."""
    ids = set(lead_ids)
    if not ids:
        return
    connection = transaction.get_connection()
    if not connection.in_atomic_block:
        integrations.notify("automation_stopped", lead_ids=sorted(ids))
        return
    pending = next(
        (
            f
            for _sids, f, _robust in connection.run_on_commit
            if isinstance(f, _Stopped) and not f.announced
        ),
        None,
    )
    if pending is None:
        pending = _Stopped()
        transaction.on_commit(pending)
    pending.lead_ids |= ids
