"""Dispatch's planning step: which due journey gets which step, on which channel and
phone, or why it is skipped. Pure over what a batch loaded (outreach.dispatch_batch): it
reads no row and writes none; it changes objects in memory only (a skipped journey's
`next_action_at`, the batch's remaining quota), the way dispatch then saves them.

Two callers, one rule: `outreach.dispatch.dispatch_due` writes the plans as messages, and
`outreach.plan_preview` runs the same planning for the next working day without writing
(docs/plan-preview.md).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime

from cerniq import reasons
from outreach import reasons as codes
from outreach import spintax, step_conditions, template_compliance
from outreach.channels import choose_channel, email_subject
from outreach.dispatch_batch import Batch
from outreach.hours import SendingWindow
from outreach.models import (
    Channel,
    Enrollment,
    Journey,
    Message,
    Sequence,
    SequenceStep,
    TemplateVersion,
)
from outreach.readiness import readiness
from whatsapp import quota
from whatsapp.allocation import choose_phone

log = logging.getLogger(__name__)


@dataclass
class Plan:
    """One step planned for one lead (a message dispatch will write)."""

    journey: Journey
    step: SequenceStep
    channel: str
    reason: str
    version: TemplateVersion
    body: str
    subject: str
    variant_hash: str
    phone_id: int | None = None
    new_contact: bool = False
    chat_id: str = ""
    fallback_sequence: Sequence | None = None
    basis: str = ""  # Message.basis: the lawful basis of a first message, or "missing"
    asked: bool = False  # the person asked to be contacted (Journey.contact_requested_at)

    @property
    def solicited(self) -> bool:
        """A first WhatsApp message the person asked for (Message.solicited)."""
        return self.new_contact and self.asked

    @property
    def quota_cost(self) -> int:
        """Message.quota_cost, by the quota's one rule (whatsapp.quota.cost)."""
        return quota.cost(self.new_contact, asked=self.asked)

    @property
    def key(self) -> str:
        lead = self.journey.lead_id
        return f"{lead}:{self.step.sequence_id}:{self.step.pk}:{self.channel}"


@dataclass(frozen=True)
class Skip:
    """A due journey the planning left out: the stored reason and its code."""

    journey: Journey
    reason: str

    @property
    def code(self) -> str:
        parsed = reasons.parse(self.reason)
        return parsed[0] if parsed else self.reason


@dataclass
class Planned:
    plans: list[Plan] = field(default_factory=list)
    skips: list[Skip] = field(default_factory=list)


def plan_batch(
    journeys: list[Journey], batch: Batch, window: SendingWindow, now: datetime
) -> Planned:
    """Plan each journey in order (quota taken by one is gone for the next)."""
    planned = Planned()
    for journey in journeys:
        reason = _plan_one(journey, batch, window, now, planned.plans)
        if reason:
            planned.skips.append(Skip(journey, reason))
    return planned


def split_queued(plans: list[Plan]) -> tuple[list[Plan], list[Plan]]:
    """(fresh, already queued): a plan whose message exists already (its idempotency key)
    is not written twice. One query."""
    existing = set(
        Message.objects.filter(idempotency_key__in=[p.key for p in plans])
        .order_by()
        .values_list("idempotency_key", flat=True)
    )
    fresh = [p for p in plans if p.key not in existing]
    return fresh, [p for p in plans if p.key in existing]


def _plan_one(
    journey: Journey, batch: Batch, window: SendingWindow, now: datetime, plans: list[Plan]
) -> str:
    """Add a plan for this journey, or return why it was skipped (a stored reason code) and
    set when to retry."""
    lead = journey.lead
    enrollment = batch.enrollments.get(journey.lead_id)
    if enrollment is None:
        journey.next_action_at = None
        return reasons.code(codes.NOT_ENROLLED)
    step = batch.next_step(enrollment)
    if step is None:
        journey.next_action_at = None
        return reasons.code(codes.NO_FURTHER_STEP)
    held = _conditions_hold(journey, enrollment, step, batch, now)
    if held:
        return held
    ready = readiness(
        lead,
        journey,
        policy=batch.policy,
        listed=batch.listed.for_lead(lead),
    )
    choice = choose_channel(ready, journey, step.channel)
    if choice.channel is None:
        journey.next_action_at = None
        return choice.reason
    fallback = enrollment.sequence.fallback_sequence if choice.fallback else None
    if choice.fallback:
        step = batch.first_step_of(fallback.pk, fallback.version) if fallback else None
        wants_whatsapp = choice.channel == Channel.WHATSAPP
        if step is None or (step.channel == Channel.WHATSAPP) != wants_whatsapp:
            journey.next_action_at = None
            return reasons.code(codes.NO_FALLBACK, channel=choice.channel)
    basis = batch.basis_check(lead, choice.channel)
    if basis.held:
        journey.next_action_at = None
        return basis.reason
    versions = batch.versions.get(step.template_id, [])
    if not versions:
        journey.next_action_at = None
        return reasons.code(codes.TEMPLATE_INACTIVE)
    version = versions[spintax.choose_version([v.weight for v in versions], f"{lead.pk}:{step.pk}")]
    if basis.first and batch.tenant.first_templates_must_comply:
        lacks = template_compliance.missing(
            batch.tenant, body=version.body, subject=version.subject
        )
        if lacks:
            journey.next_action_at = None
            return reasons.code(codes.TEMPLATE_NOT_COMPLIANT, missing=lacks)
    variables = spintax.lead_variables(lead)
    seed = spintax.variant_seed(lead.pk, step.pk, version.pk)
    try:
        body = spintax.render(version.body, variables, seed=seed)
        subject = (
            spintax.render(version.subject, variables, seed=seed).text if version.subject else ""
        )
    except spintax.TemplateError as exc:
        log.warning("template %s v%s cannot render: %s", step.template_id, version.version, exc)
        journey.next_action_at = None
        return reasons.code(codes.TEMPLATE_ERROR)
    if len(body.text) > spintax.CHANNEL_LIMITS[choice.channel]:
        journey.next_action_at = None
        return reasons.code(codes.TOO_LONG, channel=choice.channel)
    if choice.channel != Channel.WHATSAPP:
        subject = email_subject(subject, body.text)
    plan = Plan(
        journey,
        step,
        choice.channel,
        choice.reason,
        version,
        body.text,
        subject,
        body.variant_hash,
        fallback_sequence=fallback,
        basis=basis.mark,
        asked=journey.contact_requested_at is not None,
    )
    if choice.channel == Channel.WHATSAPP:
        skipped = _allocate_phone(plan, batch, window, now)
        if skipped:
            return skipped
    plans.append(plan)
    return ""


def _conditions_hold(
    journey: Journey, enrollment: Enrollment, step: SequenceStep, batch: Batch, now: datetime
) -> str:
    """ "" when the step's conditions let it go (outreach.step_conditions); else why not:
    skipped (dispatch moves the enrollment past the step, outreach.step_skips), waiting
    until a timed condition can tell, or stalled on conditions that mean nothing."""
    try:
        conditions = batch.conditions_of(step)
    except step_conditions.ConditionInvalid as exc:
        journey.next_action_at = None
        return reasons.code(codes.CONDITIONS_INVALID, position=step.position, problem=str(exc))
    if not conditions:
        return ""
    verdict = step_conditions.judge(conditions, batch.facts(journey), now)
    if verdict.go:
        return ""
    if verdict.wait_until is not None:
        journey.next_action_at = verdict.wait_until
        return reasons.code(
            codes.CONDITION_WAIT,
            position=step.position,
            condition=verdict.kind,
            until=verdict.wait_until.isoformat(),
        )
    journey.next_action_at = None  # dispatch schedules the step after it (step_skips)
    said = reasons.code(codes.STEP_SKIPPED, position=step.position, condition=verdict.kind)
    batch.skipped_steps.append((enrollment, step, journey, said))
    return said


def _allocate_phone(plan: Plan, batch: Batch, window: SendingWindow, now: datetime) -> str:
    """The phone for this plan by whatsapp.allocation's rule, against the batch's quota."""
    if not batch.phones:
        return reasons.code(codes.NO_SENDING_PHONE)
    journey = plan.journey
    chat_phone, chat_id = batch.chats.get(journey.lead_id, (None, ""))
    # A number resting after restriction signs starts no new chat, asked for or not.
    usable = [
        p.pk
        for p in batch.phones
        if not (plan.asked and p.new_contacts_paused and p.pk != chat_phone)
    ]
    chosen = choose_phone(
        usable,
        batch.remaining,
        chat_phone=chat_phone,
        assigned_phone=journey.assigned_phone_id,
        asked=plan.asked,
    )
    if chosen is None:
        journey.next_action_at = window.next_day_opening(now)
        return reasons.code(codes.QUOTA_EXHAUSTED)
    plan.phone_id, plan.new_contact = chosen.phone_id, chosen.new_contact
    if plan.quota_cost:
        batch.remaining[chosen.phone_id] -= 1
    else:
        plan.chat_id = chat_id
    return ""
