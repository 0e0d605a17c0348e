"""Sequences: enrolling leads, moving to the next step after a send, stopping.

An enrollment keeps the sequence version it started with, so editing a sequence never
changes the steps of leads already in it. Delays count sending-window time
(outreach.hours), not wall time.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime

from django.db import transaction
from django.db.models import (
    Case,
    CharField,
    Count,
    F,
    IntegerField,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Value,
    When,
)
from django.db.models.functions import Cast, Coalesce, Concat
from django.utils import timezone
from django.utils.translation import gettext as _

from cerniq import reasons
from cerniq.models import Tenant
from outreach import automation, stages
from outreach import reasons as codes
from outreach.hours import SendingWindow
from outreach.metrics import count_message
from outreach.models import (
    Enrollment,
    Journey,
    Lead,
    Message,
    Sequence,
    SequenceStep,
    Stage,
)
from outreach.readiness import ContactPolicy, Readiness, readiness_many
from outreach.template_versions import VersionSpec, save_versions  # noqa: F401 (their home)
from whatsapp.quota import quota_day, release

MAX_STEPS = 20  # steps of one sequence (the page's formset and the API's list say so too)
MAX_COMPANY_PAUSE_DAYS = 365  # Sequence.company_pause_days, on the page and in the API

# Stage changes that end automation for the lead, with the stop reason recorded.
STOPPING_STAGES = frozenset({Stage.WARM_REPLY, Stage.NEGOTIATION, Stage.CONVERTED, Stage.DEAD})


class EnrollmentError(ValueError):
    reason = ""  # enroll(): the stored reason code the lead was refused for


@dataclass
class EnrollResult:
    enrolled: int = 0
    # Stored reason codes (outreach.reasons; render with cerniq.reasons.render): how many.
    skipped: dict[str, int] = field(default_factory=dict)
    # Per lead id: "" when enrolled, else why not (the same codes as `skipped`).
    outcomes: dict[int, str] = field(default_factory=dict)

    def skip(self, lead_id: int, reason: str) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + 1
        self.outcomes[lead_id] = reason


def steps_of(sequence: Sequence, version: int | None = None) -> list[SequenceStep]:
    version = sequence.version if version is None else version
    return list(
        sequence.steps.filter(sequence_version=version)
        .select_related("template")
        .order_by("position")
    )


@dataclass(frozen=True)
class StepSpec:
    channel: str
    template_id: int
    delay_value: int = 0
    delay_unit: str = SequenceStep.DelayUnit.WORKING_DAYS
    # As stored (outreach.step_conditions.to_json): a change is a changed step too.
    conditions: dict = field(default_factory=dict, hash=False)


@transaction.atomic
def replace_steps(sequence: Sequence, specs: list[StepSpec]) -> int:
    """Give the sequence new steps as a new version; enrollments keep their old version."""
    if not specs:
        raise EnrollmentError(_("A sequence needs at least one step."))
    if len(specs) > MAX_STEPS:
        raise EnrollmentError(_("A sequence has at most %(limit)d steps.") % {"limit": MAX_STEPS})
    locked = Sequence.objects.select_for_update().get(pk=sequence.pk)
    has_enrollments = Enrollment.objects.filter(
        sequence=locked, sequence_version=locked.version
    ).exists()
    version = locked.version + 1 if has_enrollments else locked.version
    SequenceStep.objects.filter(sequence=locked, sequence_version=version).delete()
    SequenceStep.objects.bulk_create(
        SequenceStep(
            tenant_id=locked.tenant_id,
            sequence=locked,
            sequence_version=version,
            position=position,
            channel=spec.channel,
            template_id=spec.template_id,
            delay_value=spec.delay_value,
            delay_unit=spec.delay_unit,
            conditions=spec.conditions,
        )
        for position, spec in enumerate(specs, 1)
    )
    Sequence.objects.filter(pk=locked.pk).update(version=version)
    sequence.version = version
    return version


def same_steps(sequence: Sequence, specs: list[StepSpec]) -> bool:
    current = [
        StepSpec(step.channel, step.template_id, step.delay_value, step.delay_unit, step.conditions)
        for step in steps_of(sequence)
    ]
    return current == specs


def refuse_unreachable_steps(sequence: Sequence, specs: list[StepSpec] | None = None) -> None:
    """A step that goes only once the lead replied never runs in a sequence a reply stops:
    refused, saying what to change (the steps given, else the current version's)."""
    if not sequence.stop_on_reply:
        return
    conditions = (
        [spec.conditions for spec in specs]
        if specs is not None
        else [step.conditions for step in steps_of(sequence)]
    )
    for position, stored in enumerate(conditions, 1):
        kinds = {c.get("kind") for c in (stored or {}).get("all", []) if isinstance(c, dict)}
        if "replied" in kinds:
            raise EnrollmentError(
                _(
                    "Step %(position)s goes only once the lead replied, but this sequence "
                    "stops when the lead replies: make it a nurture sequence (go on after a "
                    "reply) or remove that condition."
                )
                % {"position": position}
            )


def save_steps(sequence: Sequence, specs: list[StepSpec], *, created: bool = False) -> int:
    """The editor's save: unchanged steps keep the version, changed ones go through
    replace_steps (a new version when leads run on the current one). Returns the version."""
    refuse_unreachable_steps(sequence, specs)
    if not created and same_steps(sequence, specs):
        return sequence.version
    return replace_steps(sequence, specs)


def with_counts(sequences: QuerySet[Sequence]) -> QuerySet[Sequence]:
    """Sequences with `steps_count` (current version) and `active_enrollments`, in the
    one query the lists need."""
    return sequences.annotate(
        steps_count=_count(
            SequenceStep.objects.filter(
                sequence=OuterRef("pk"), sequence_version=OuterRef("version")
            )
        ),
        active_enrollments=_count(
            Enrollment.objects.filter(sequence=OuterRef("pk"), status=Enrollment.Status.ACTIVE)
        ),
    )


def _count(rows: QuerySet) -> Coalesce:
    counted = rows.order_by().values("sequence").annotate(n=Count("pk")).values("n")
    return Coalesce(Subquery(counted, output_field=IntegerField()), Value(0))


def first_run_at(window: SendingWindow, step: SequenceStep, at: datetime) -> datetime:
    return window.add_delay(at, step.delay_value, step.delay_unit)


def asked_run_at(window: SendingWindow, at: datetime) -> datetime:
    """A person who asked to be contacted and has not been yet: the first step is due now
    when the sending window is open, else at its opening (the step's delay is not waited)."""
    return at if window.is_open(at) else window.next_opening(at)


def _asked(journey: Journey) -> bool:
    return journey.contact_requested_at is not None and journey.first_contact_at is None


@transaction.atomic
def enroll_many(
    leads: QuerySet[Lead] | Iterable[Lead | int],
    sequence: Sequence,
    *,
    at: datetime | None = None,
) -> EnrollResult:
    """Enroll leads (or lead ids) in bulk. Refused, each with its reason code in `outcomes`:
    leads of another tenant, already in a sequence, opted out, in a stage automation does
    not run in, taken over, or that no channel can reach (outreach.readiness, under the
    tenant's contact policy: never accepted to sit in a sequence that cannot send)."""
    at = at or timezone.now()
    result = EnrollResult()
    steps = steps_of(sequence)
    if not sequence.is_active:
        raise EnrollmentError(_("Sequence %(name)s is not active.") % {"name": repr(sequence.name)})
    if not steps:
        raise EnrollmentError(_("Sequence %(name)s has no steps.") % {"name": repr(sequence.name)})
    lead_ids = list(dict.fromkeys(lead if isinstance(lead, int) else lead.pk for lead in leads))
    journeys = {
        j.lead_id: j
        for j in Journey.objects.filter(
            lead_id__in=lead_ids, tenant_id=sequence.tenant_id
        ).select_related("lead")
    }
    ready = readiness_many(
        [j.lead for j in journeys.values()], policy=ContactPolicy.of(sequence.tenant)
    )
    busy = set(
        Enrollment.objects.filter(
            lead_id__in=lead_ids, status__in=[Enrollment.Status.ACTIVE, Enrollment.Status.PAUSED]
        ).values_list("lead_id", flat=True)
    )
    window = SendingWindow.for_tenant(sequence.tenant)
    run_at = first_run_at(window, steps[0], at)
    new, touched = [], []
    for lead_id in lead_ids:
        journey = journeys.get(lead_id)
        if journey is None:
            result.skip(lead_id, reasons.code(codes.ENROLL_OTHER_TENANT))
            continue
        refused = _refusal(journey, ready[lead_id], lead_id in busy)
        if refused:
            result.skip(lead_id, refused)
        else:
            result.outcomes[lead_id] = ""
            due = asked_run_at(window, at) if _asked(journey) else run_at
            new.append(
                Enrollment(
                    tenant_id=sequence.tenant_id,
                    lead_id=lead_id,
                    sequence=sequence,
                    sequence_version=sequence.version,
                    next_run_at=due,
                )
            )
            journey.current_sequence, journey.sequence_step = sequence, 0
            journey.next_action_at = due
            touched.append(journey)
    Enrollment.objects.bulk_create(new, batch_size=1000)
    Journey.objects.bulk_update(
        touched, ["current_sequence", "sequence_step", "next_action_at"], batch_size=1000
    )
    result.enrolled = len(new)
    return result


def _refusal(journey: Journey, ready: Readiness, busy: bool) -> str:
    """Why this lead may not be enrolled (a stored reason code), "" when it may."""
    if busy:
        return reasons.code(codes.ENROLL_BUSY)
    # An opt-out on one channel stops every channel (outreach.optout).
    if journey.whatsapp_opted_out or journey.email_opted_out:
        return reasons.code(codes.ENROLL_OPTED_OUT)
    if journey.stage not in stages.AUTOMATED:
        return reasons.code(codes.ENROLL_STAGE, stage=journey.stage)
    if journey.taken_over_by_id:
        return reasons.code(codes.ENROLL_TAKEN_OVER)
    if ready.contactable:
        return ""
    if any(reasons.is_code(c.reason, codes.SUPPRESSED) for c in ready.channels):
        return reasons.code(codes.ENROLL_SUPPRESSED)
    return reasons.code(
        codes.ENROLL_UNREACHABLE, whatsapp=ready.whatsapp.reason, email=ready.email.reason
    )


def enroll(lead: Lead, sequence: Sequence, *, at: datetime | None = None) -> Enrollment:
    """Enroll one lead or raise EnrollmentError saying why not (in the active language;
    `EnrollmentError.reason` keeps the code)."""
    result = enroll_many([lead], sequence, at=at)
    if not result.enrolled:
        reason = next(iter(result.skipped))
        error = EnrollmentError(
            _("Cannot enroll %(lead)s: %(reasons)s.")
            % {"lead": lead.name, "reasons": reasons.render(reason)}
        )
        error.reason = reason
        raise error
    return Enrollment.objects.get(lead=lead, status=Enrollment.Status.ACTIVE)


def step_after(enrollment: Enrollment, position: int) -> SequenceStep | None:
    return (
        SequenceStep.objects.filter(
            sequence_id=enrollment.sequence_id,
            sequence_version=enrollment.sequence_version,
            position__gt=position,
        )
        .order_by("position")
        .first()
    )


def advance_after_send(
    enrollment: Enrollment, step: SequenceStep, sent_at: datetime, journey: Journey | None = None
) -> None:
    """Record that `step` went out; schedule the next step or complete the enrollment.
    `journey`: the lead's journey when the caller holds it already (locked)."""
    journey = journey or Journey.objects.get(lead_id=enrollment.lead_id)
    advance_many([(enrollment, step, journey)], sent_at)


def advance_many(sent: list[tuple[Enrollment, SequenceStep, Journey]], sent_at: datetime) -> None:
    """`advance_after_send` for many enrollments (a batch of sends): the steps that follow
    read in one query, each tenant's window once, the rows written in one UPDATE per
    outcome (completed, or the same step due at the same moment), not one per enrollment.
    The objects given are updated in memory too, as the callers hold them."""
    if not sent:
        return
    steps = _later_steps({(e.sequence_id, e.sequence_version) for e, _, _ in sent})
    windows = _windows([journey for _, _, journey in sent])
    enrollments: dict[tuple, list[int]] = {}
    journeys: dict[tuple, list[int]] = {}
    for enrollment, step, journey in sent:
        later = steps.get((enrollment.sequence_id, enrollment.sequence_version), [])
        following = next((s for s in later if s.position > step.position), None)
        enrollment.current_step = step.position
        journey.sequence_step = step.position
        if following is None:
            enrollment.status, enrollment.completed_at, enrollment.next_run_at = (
                Enrollment.Status.COMPLETED,
                sent_at,
                None,
            )
            journey.next_action_at = None
        else:
            window = windows[journey.tenant_id]
            run_at = window.add_delay(sent_at, following.delay_value, following.delay_unit)
            enrollment.next_run_at = journey.next_action_at = run_at
        written = (step.position, enrollment.status, enrollment.completed_at)
        enrollments.setdefault((*written, enrollment.next_run_at), []).append(enrollment.pk)
        journeys.setdefault((step.position, journey.next_action_at), []).append(journey.pk)
    for (position, status, completed_at, run_at), ids in enrollments.items():
        Enrollment.objects.filter(pk__in=ids).update(
            current_step=position, status=status, completed_at=completed_at, next_run_at=run_at
        )
    now = timezone.now()
    for (position, action_at), ids in journeys.items():
        Journey.objects.filter(pk__in=ids).update(
            sequence_step=position, next_action_at=action_at, updated_at=now
        )


def _later_steps(versions: set[tuple[int, int]]) -> dict[tuple[int, int], list[SequenceStep]]:
    """The steps of these (sequence, version) pairs, in order (one query)."""
    matching = Q(pk__in=[])
    for sequence_id, version in versions:
        matching |= Q(sequence_id=sequence_id, sequence_version=version)
    found: dict[tuple[int, int], list[SequenceStep]] = {}
    for step in SequenceStep.objects.filter(matching).order_by("position"):
        found.setdefault((step.sequence_id, step.sequence_version), []).append(step)
    return found


def _windows(journeys: list[Journey]) -> dict[int, SendingWindow]:
    """Each tenant's sending window (its row read once, unless the journeys carry it)."""
    tenants = {j.tenant_id: j.tenant for j in journeys if Journey.tenant.is_cached(j)}
    missing = {j.tenant_id for j in journeys} - tenants.keys()
    if missing:
        tenants |= Tenant.objects.in_bulk(missing)
    return {pk: SendingWindow.for_tenant(tenant) for pk, tenant in tenants.items()}


OPT_OUT_CONFIRMATION_PREFIX = "optout-confirm:"


def is_opt_out_confirmation(message: Message) -> bool:
    """The one message that still goes to someone who opted out: our confirmation."""
    return (message.idempotency_key or "").startswith(OPT_OUT_CONFIRMATION_PREFIX)


def cancel_queued(lead_ids: Iterable[int], reason: str) -> int:
    """Cancel automated messages not sent yet (a person's message and an opt-out
    confirmation are kept); their quota goes back and their key is freed."""
    queued = (
        Message.objects.filter(
            lead_id__in=list(lead_ids),
            direction=Message.Direction.OUTBOUND,
            status=Message.Status.QUEUED,
            is_manual=False,
        )
        .exclude(idempotency_key__startswith=OPT_OUT_CONFIRMATION_PREFIX)
        .select_related("tenant")
    )
    count = 0
    for message in queued:
        count += cancel_message(message, reason)
    return count


def cancel_message(message: Message, reason: str, *, status: str = Message.Status.QUEUED) -> int:
    """Cancel a not-yet-sent message: its quota slot goes back and its idempotency key is
    freed, so a later dispatch may queue the step again. A dead letter's slot was settled
    when it died (outreach.send_failures._give_up: given back, or kept when it may have gone
    out), so cancelling one (outreach.deadletters) leaves the quota alone."""
    cancelled = Message.objects.filter(pk=message.pk, status=status).update(
        status=Message.Status.CANCELLED, error=reason, idempotency_key=_freed_key()
    )
    if cancelled:
        count_message(message.channel, "cancelled")
    settled = status == Message.Status.DEAD_LETTER  # its quota slot was settled when it died
    if cancelled and message.quota_cost and message.phone_id and not settled:
        release(message.phone_id, reservation_day(message))
    return cancelled


def cancel_messages(messages: list[Message], reason: str) -> int:
    """`cancel_message` for many QUEUED messages with one reason (a batch no longer wanted):
    those holding no quota slot (email) in one UPDATE, the others one by one (their slot
    goes back only if this run cancelled them)."""
    slots = [m for m in messages if m.quota_cost and m.phone_id]
    count = sum(cancel_message(m, reason) for m in slots)
    rest: dict[str, list[int]] = {}
    for message in messages:
        if not (message.quota_cost and message.phone_id):
            rest.setdefault(message.channel, []).append(message.pk)
    for channel, ids in rest.items():
        cancelled = Message.objects.filter(pk__in=ids, status=Message.Status.QUEUED).update(
            status=Message.Status.CANCELLED, error=reason, idempotency_key=_freed_key()
        )
        count_message(channel, "cancelled", cancelled)
        count += cancelled
    return count


def _freed_key() -> Case:
    """The idempotency key a cancelled message keeps, as SQL: `<key>#cancelled-<id>`, so
    the key itself is free for the step queued again (no key stays none)."""
    return Case(
        When(idempotency_key__isnull=True, then=Value(None)),
        default=Concat(
            F("idempotency_key"), Value("#cancelled-"), Cast("pk", output_field=CharField())
        ),
        output_field=CharField(),
    )


def reservation_day(message: Message) -> date:
    """The local day whose quota a new-contact message took."""
    return message.quota_day or quota_day(message.tenant, message.created_at)


@transaction.atomic
def stop(lead_id: int, reason: str) -> bool:
    """Stop the lead's active enrollment and anything it queued. True if one was active.
    Providers hear of it whether one was active or not: an enrollment completed by handing
    its last step to a campaign still has that email waiting there (automation.stopped)."""
    stopped = _stop(lead_id, reason)
    automation.stopped([lead_id])
    return stopped


def _stop(lead_id: int, reason: str) -> bool:
    now = timezone.now()
    stopped = Enrollment.objects.filter(
        lead_id=lead_id, status__in=[Enrollment.Status.ACTIVE, Enrollment.Status.PAUSED]
    ).update(
        status=Enrollment.Status.STOPPED,
        stop_reason=reason,
        stopped_at=now,
        next_run_at=None,
        stalled_reason="",
        stalled_since=None,
    )
    if not stopped:
        _stop_handed_over(lead_id, reason, now)
    Journey.objects.filter(lead_id=lead_id).update(next_action_at=None)
    cancel_queued([lead_id], reason)
    return bool(stopped)


def _stop_handed_over(lead_id: int, reason: str, now: datetime) -> None:
    """An enrollment completed by handing its last step to a campaign has not finished
    while the provider still holds that email: it stops too, so the email is withdrawn
    (outreach.withdrawal asks the rule, which reads this row)."""
    latest = Enrollment.objects.filter(lead_id=lead_id).order_by("-pk").first()
    if latest is None or latest.status != Enrollment.Status.COMPLETED:
        return
    held = Message.objects.filter(
        pk__in=automation.held_pushes([lead_id]), sequence_id=latest.sequence_id
    )
    if held.exists():
        Enrollment.objects.filter(pk=latest.pk).update(
            status=Enrollment.Status.STOPPED,
            stop_reason=reason,
            stopped_at=now,
            completed_at=None,
        )


def stop_sequence(
    sequence: Sequence, reason: str, lead_ids: Iterable[int] | None = None
) -> list[int]:
    """Stop the sequence's running enrollments (only those of `lead_ids` when given), each as
    stop() does for one lead. Returns the ids of the leads stopped."""
    running = Enrollment.objects.filter(
        sequence=sequence, status__in=[Enrollment.Status.ACTIVE, Enrollment.Status.PAUSED]
    )
    if lead_ids is not None:
        running = running.filter(lead_id__in=list(lead_ids))
    stopped = list(running.values_list("lead_id", flat=True))
    with transaction.atomic():
        for lead_id in stopped:
            _stop(lead_id, reason)
        automation.stopped(stopped)
    return stopped


def on_stage_changed(journey: Journey, old: str, new: str) -> None:
    """Keep automation in step with the stage machine (called by outreach.stages)."""
    if new in STOPPING_STAGES:
        stop(journey.lead_id, automation.stage_reason(new))
    elif new == Stage.PAUSED:
        Enrollment.objects.filter(lead_id=journey.lead_id, status=Enrollment.Status.ACTIVE).update(
            status=Enrollment.Status.PAUSED
        )
        cancel_queued([journey.lead_id], automation.stage_reason(new))
        automation.stopped([journey.lead_id])
    elif old == Stage.PAUSED:
        resumed = Enrollment.objects.filter(
            lead_id=journey.lead_id, status=Enrollment.Status.PAUSED
        ).update(status=Enrollment.Status.ACTIVE)
        if resumed:
            Journey.objects.filter(pk=journey.pk).update(next_action_at=timezone.now())
