"""What one dispatch batch needs, loaded with one query per kind (outreach.dispatch)."""

from __future__ import annotations

from collections import defaultdict
from datetime import date

from cerniq.models import Tenant
from outreach import lawful_basis
from outreach.models import (
    SENT_STATUSES,
    Channel,
    Enrollment,
    Journey,
    Lead,
    Message,
    SequenceStep,
    TemplateVersion,
)
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
        for lead_id, phone_id, chat_id in (
            Message.objects.filter(
                lead_id__in=lead_ids,
                channel=Channel.WHATSAPP,
                direction=Message.Direction.OUTBOUND,
                status__in=SENT_STATUSES,
            )
            .order_by("lead_id", "created_at")
            .values_list("lead_id", "phone_id", "provider_thread_id")
        ):
            if phone_id:
                self.chats[lead_id] = (phone_id, chat_id or self.chats.get(lead_id, (0, ""))[1])

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
