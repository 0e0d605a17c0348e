"""What one dispatch batch needs, loaded with one query per kind (outreach.dispatch)."""

from __future__ import annotations

from collections import defaultdict
from datetime import date, datetime

from django.db.models.functions import Coalesce

from cerniq.models import Tenant
from outreach import lawful_basis, step_conditions
from outreach.models import (
    SENT_STATUSES,
    Channel,
    Enrollment,
    Journey,
    Lead,
    Message,
    SequenceStep,
    Stage,
    TemplateVersion,
)
from outreach.phone_health import tracks_delivery
from outreach.readiness import ContactPolicy
from outreach.suppression import listed_for_leads
from whatsapp import quota
from whatsapp.models import Phone


class Batch:
    """Everything one batch needs, loaded with one query per kind."""

    def __init__(self, tenant: Tenant, journeys: list[Journey], day: date) -> None:
        lead_ids = [j.lead_id for j in journeys]
        self.enrollments = {
            e.lead_id: e
            for e in Enrollment.objects.filter(
                lead_id__in=lead_ids, status=Enrollment.Status.ACTIVE
            ).select_related("sequence__fallback_sequence")
        }
        sequence_ids = {e.sequence_id for e in self.enrollments.values()}
        sequence_ids |= {
            e.sequence.fallback_sequence_id
            for e in self.enrollments.values()
            if e.sequence.fallback_sequence_id
        }
        self.steps: dict[tuple[int, int], list[SequenceStep]] = defaultdict(list)
        for step in (
            SequenceStep.objects.filter(sequence_id__in=sequence_ids)
            .select_related("sequence")
            .order_by("position")
        ):
            self.steps[(step.sequence_id, step.sequence_version)].append(step)
        template_ids = {s.template_id for steps in self.steps.values() for s in steps}
        self.versions: dict[int, list[TemplateVersion]] = defaultdict(list)
        for version in TemplateVersion.objects.filter(
            template_id__in=template_ids, is_active=True, draft=False, weight__gt=0
        ).order_by("version"):
            self.versions[version.template_id].append(version)
        self.tenant = tenant
        self.policy = ContactPolicy.of(tenant)
        # Lawful basis of first messages (outreach.lawful_basis): each lead's recorded
        # basis, and who was written to by email already (WhatsApp: `chats` below).
        self.bases = lawful_basis.current(lead_ids)
        self.emailed = lawful_basis.contacted(lead_ids, lawful_basis.EMAIL)
        leads = [j.lead for j in journeys]
        self.listed = listed_for_leads(tenant, leads)  # the suppression list's entries
        # Enrollments dispatch could not move on, with the reason (Enrollment.stalled_*).
        self.stalls: list[tuple[Enrollment, str]] = []
        self.phones = list(Phone.objects.usable().filter(tenant=tenant).order_by("pk"))
        status = quota.status_many(self.phones, day)
        self.quota = status  # the day's usage and what set its limit (the plan preview)
        self.remaining = {pk: s.remaining for pk, s in status.items()}
        self.chats: dict[int, tuple[int, str]] = {}
        # Each lead's last WhatsApp message that went: when, its ticks, its provider (the
        # step conditions on delivery and reading).
        self.last_whatsapp: dict[int, tuple[datetime, datetime | None, datetime | None, str]] = {}
        for lead_id, phone_id, chat_id, sent_at, delivered_at, read_at, provider in (
            Message.objects.filter(
                lead_id__in=lead_ids,
                channel=Channel.WHATSAPP,
                direction=Message.Direction.OUTBOUND,
                status__in=SENT_STATUSES,
            )
            .order_by("lead_id", "created_at")
            .values_list(
                "lead_id",
                "phone_id",
                "provider_thread_id",
                Coalesce("sent_at", "created_at"),
                "delivered_at",
                "read_at",
                "phone__provider",
            )
        ):
            if phone_id:
                self.chats[lead_id] = (phone_id, chat_id or self.chats.get(lead_id, (0, ""))[1])
            self.last_whatsapp[lead_id] = (sent_at, delivered_at, read_at, provider or "")
        self._conditions: dict[int, list[step_conditions.Condition]] = {}
        self._tracks: dict[str, bool] = {}
        # Steps their condition skipped (outreach.dispatch_plan): dispatch moves each
        # enrollment past its step and keeps why (outreach.step_skips).
        self.skipped_steps: list[tuple[Enrollment, SequenceStep, Journey, str]] = []

    def basis_check(self, lead: Lead, channel: str) -> lawful_basis.Check:
        kind = lawful_basis.kind_of(channel)
        first = lead.pk not in (self.chats if kind == lawful_basis.WHATSAPP else self.emailed)
        basis = self.bases.get((lead.pk, kind))
        return lawful_basis.check(lead, channel, basis=basis, first=first, tenant=self.tenant)

    def next_step(self, enrollment: Enrollment) -> SequenceStep | None:
        steps = self.steps[(enrollment.sequence_id, enrollment.sequence_version)]
        return next((s for s in steps if s.position > enrollment.current_step), None)

    def first_step_of(self, sequence_id: int, version: int) -> SequenceStep | None:
        steps = self.steps.get((sequence_id, version), [])
        return steps[0] if steps else None

    def conditions_of(self, step: SequenceStep) -> list[step_conditions.Condition]:
        """The step's conditions, read once per batch; ConditionInvalid when stored ones
        mean nothing (written before they were checked, or by hand)."""
        if step.pk not in self._conditions:
            self._conditions[step.pk] = step_conditions.parse(
                step.conditions, known_stages=frozenset(Stage.values)
            )
        return self._conditions[step.pk]

    def facts(self, journey: Journey) -> step_conditions.Facts:
        """What the step conditions read of this lead (no query: loaded with the batch)."""
        lead = journey.lead
        sent_at, delivered_at, read_at, provider = self.last_whatsapp.get(
            lead.pk, (None, None, None, "")
        )
        if provider and provider not in self._tracks:
            self._tracks[provider] = tracks_delivery(provider)
        return step_conditions.Facts(
            replied=journey.last_reply_at is not None,
            stage=journey.stage,
            has_phone=bool(lead.phone) and lead.phone_reachable is not False,
            email_bounced=lead.email_status == Lead.EmailStatus.BOUNCED,
            last_whatsapp_at=sent_at,
            delivered_at=delivered_at,
            read_at=read_at,
            reports_delivery=self._tracks.get(provider, True),
        )
