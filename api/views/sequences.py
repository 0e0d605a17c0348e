"""Sequences: list, retrieve (steps, versions), create, update, enroll leads, stop.

Saving goes through outreach.sequences as the sequences page does: steps are checked by
SequenceStep.clean, unchanged steps keep the version, changed ones become a new version
when leads run on the current one (enrollments keep theirs).
"""

from __future__ import annotations

import re

import django_filters
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import transaction
from django.db.models import Count, Q, QuerySet
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiExample, extend_schema, extend_schema_view
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from api import serializers_sequences as s
from api.auth import tenant_of
from api.docs import READ, WRITE, errors
from api.errors import Conflict
from cerniq.models import Tenant
from outreach.models import Enrollment, Sequence, SequenceStep, Template
from outreach.sequences import (
    EnrollmentError,
    StepSpec,
    enroll_many,
    refuse_unreachable_steps,
    save_steps,
    stop_sequence,
    with_counts,
)
from outreach.step_condition_words import KNOWN_STAGES, problem_in_words
from outreach.step_conditions import ConditionInvalid, parse, to_json

SEQUENCE_EXAMPLE = OpenApiExample(
    "two steps",
    value={
        "name": "Fermieri Cluj",
        "description": "WhatsApp first, an email two working days later",
        "steps": [
            {"channel": "WHATSAPP", "template": 12, "delay_value": 0},
            {
                "channel": "EMAIL_COLD",
                "template": 14,
                "delay_value": 2,
                "conditions": {"all": [{"kind": "whatsapp_not_read", "hours": 48}]},
            },
        ],
    },
    request_only=True,
)
STEP_SHOWN = {
    "position": 1,
    "channel": "WHATSAPP",
    "template": 12,
    "template_name": "Prima atingere",
    "delay_value": 0,
    "delay_unit": "WORKING_DAYS",
    "conditions": {"all": []},
}
SEQUENCE_SHOWN = OpenApiExample(
    "version 2, leads still on 1",
    value={
        "id": 3,
        "name": "Fermieri Cluj",
        "description": "",
        "is_active": True,
        "stop_on_reply": True,
        "company_reply": "pause",
        "company_pause_days": 14,
        "fallback_sequence": None,
        "version": 2,
        "created_at": "2026-11-02T08:00:00Z",
        "updated_at": "2026-11-20T09:30:00Z",
        "steps_count": 1,
        "active_enrollments": 40,
        "steps": [STEP_SHOWN],
        "versions": [
            {"version": 2, "enrollments": 0, "active_enrollments": 0, "steps": [STEP_SHOWN]},
            {"version": 1, "enrollments": 55, "active_enrollments": 40, "steps": [STEP_SHOWN]},
        ],
    },
    response_only=True,
)
ENROLL_EXAMPLE = OpenApiExample(
    "enrolled and refused",
    value={
        "enrolled": 1,
        "skipped": 2,
        "results": [
            {"lead_id": 101, "enrolled": True, "reason": "", "reason_code": ""},
            {
                "lead_id": 102,
                "enrolled": False,
                "reason": "opted out",
                "reason_code": "enroll.opted_out",
            },
            {
                "lead_id": 103,
                "enrolled": False,
                "reason": "no channel can reach the lead (WhatsApp: no phone number; email: "
                "bounced)",
                "reason_code": "enroll.unreachable",
            },
        ],
    },
    response_only=True,
)


class SequenceFilter(django_filters.FilterSet):
    is_active = django_filters.BooleanFilter()
    name = django_filters.CharFilter(lookup_expr="icontains", help_text="Name contains.")

    class Meta:
        model = Sequence
        fields: list[str] = []


def _conditions(data: dict, index: int, problems: dict) -> dict:
    """A step's conditions as stored, or {} with the problem under `steps.N.conditions...`
    (outreach.step_conditions says what is wrong)."""
    given = data.get("conditions")
    if not given:
        return {}
    raw = {"all": [dict(condition) for condition in given["all"]]}
    try:
        return to_json(parse(raw, known_stages=KNOWN_STAGES))
    except ConditionInvalid as wrong:
        field = re.sub(r"\[(\d+)\]", r".\1", wrong.field)
        problems[f"steps.{index}.{field}"] = [problem_in_words(wrong)]
        return {}


def _step_specs(tenant: Tenant, steps: list[dict]) -> tuple[list[StepSpec], dict]:
    """The steps as specs, and each step's problems by `steps.N.field` (the model's rules
    and the conditions' own)."""
    templates = Template.objects.filter(tenant=tenant, pk__in=[step["template"] for step in steps])
    found = {template.pk: template for template in templates}
    specs, problems = [], {}
    for index, data in enumerate(steps):
        template = found.get(data["template"])
        if template is None:
            problems[f"steps.{index}.template"] = [_("No such template in your workspace.")]
            continue
        step = SequenceStep(
            tenant_id=tenant.pk,
            position=index + 1,
            channel=data["channel"],
            delay_value=data["delay_value"],
            delay_unit=data["delay_unit"],
            template=template,
        )
        try:
            step.clean()
        except DjangoValidationError as refused:
            for name, messages in refused.message_dict.items():
                problems[f"steps.{index}.{name}"] = messages
        conditions = _conditions(data, index, problems)
        specs.append(
            StepSpec(step.channel, template.pk, step.delay_value, step.delay_unit, conditions)
        )
    return specs, problems


def save_sequence(tenant: Tenant, sequence: Sequence, data: dict, *, created: bool) -> None:
    """Apply a create or update body, all or nothing; problems are a 400 naming fields."""
    problems: dict[str, list[str]] = {}
    for name in (
        "name",
        "description",
        "is_active",
        "stop_on_reply",
        "company_reply",
        "company_pause_days",
    ):
        if name in data:
            setattr(sequence, name, data[name])
    if "fallback_sequence" in data:
        wanted = data["fallback_sequence"]
        fallback = (
            Sequence.objects.filter(tenant=tenant, pk=wanted).exclude(pk=sequence.pk).first()
            if wanted is not None
            else None
        )
        if wanted is not None and fallback is None:
            problems["fallback_sequence"] = [_("No other sequence with this id in your workspace.")]
        sequence.fallback_sequence = fallback
    if "name" in data:
        try:
            sequence.validate_constraints()  # the unique name per tenant
        except DjangoValidationError as refused:
            problems["name"] = refused.messages
    specs = None
    if "steps" in data:
        specs, step_problems = _step_specs(tenant, data["steps"])
        problems.update(step_problems)
    if problems:
        raise ValidationError(problems)
    with transaction.atomic():
        sequence.save()
        try:
            if specs is not None:
                save_steps(sequence, specs, created=created)
            else:
                refuse_unreachable_steps(sequence)  # stop_on_reply changed alone
        except EnrollmentError as refused:
            raise ValidationError({"steps": [str(refused)]}) from None


@extend_schema_view(
    list=extend_schema(
        summary="List sequences",
        description="Newest first, cursor-paged, with step and active enrollment counts.",
        responses={200: s.SequenceSerializer(many=True), **errors(400)},
    ),
)
class SequenceViewSet(mixins.ListModelMixin, viewsets.GenericViewSet):
    queryset = Sequence.objects.none()
    serializer_class = s.SequenceSerializer
    filterset_class = SequenceFilter
    http_method_names = ["get", "post", "patch", "head", "options"]

    def get_queryset(self) -> QuerySet[Sequence]:
        if getattr(self, "swagger_fake_view", False):
            return Sequence.objects.none()
        return with_counts(Sequence.objects.filter(tenant=tenant_of(self.request)))

    def filter_queryset(self, queryset: QuerySet[Sequence]) -> QuerySet[Sequence]:
        return super().filter_queryset(queryset) if self.action == "list" else queryset

    def _detail(self, sequence: Sequence) -> dict:
        """The sequence (as get_queryset annotates it) with its steps and versions."""
        steps = list(
            SequenceStep.objects.filter(sequence=sequence)
            .select_related("template")
            .order_by("-sequence_version", "position")
        )
        counts = {
            row["sequence_version"]: row
            for row in Enrollment.objects.filter(sequence=sequence)
            .values("sequence_version")
            .annotate(n=Count("pk"), active=Count("pk", filter=Q(status=Enrollment.Status.ACTIVE)))
        }
        versions: dict[int, list[SequenceStep]] = {}
        for step in steps:
            versions.setdefault(step.sequence_version, []).append(step)
        sequence.steps_list = versions.get(sequence.version, [])
        sequence.versions_list = [
            {
                "version": version,
                "enrollments": counts.get(version, {}).get("n", 0),
                "active_enrollments": counts.get(version, {}).get("active", 0),
                "steps": version_steps,
            }
            for version, version_steps in versions.items()
        ]
        return s.SequenceDetailSerializer(sequence).data

    @extend_schema(
        summary="A sequence with its steps and every version",
        responses={200: s.SequenceDetailSerializer, **errors(*READ)},
        examples=[SEQUENCE_SHOWN],
    )
    def retrieve(self, request: Request, pk: str | None = None) -> Response:
        return Response(self._detail(self.get_object()))

    @extend_schema(
        summary="Create a sequence with its steps",
        description=(
            "Each step is checked as on the sequences page: its template is one of yours for "
            "the same channel, and a first WhatsApp step carries no link. A step's "
            "`conditions` (every one must hold for it to go, else it is skipped; a timed one "
            "waits until it can tell) are checked too: a problem names the part, e.g. "
            "`steps.1.conditions.all.0.hours`."
        ),
        request=s.SequenceCreateSerializer,
        responses={201: s.SequenceDetailSerializer, **errors(400, 403)},
        examples=[SEQUENCE_EXAMPLE, SEQUENCE_SHOWN],
    )
    def create(self, request: Request) -> Response:
        body = s.SequenceCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        tenant = tenant_of(request)
        sequence = Sequence(tenant=tenant)
        save_sequence(tenant, sequence, body.validated_data, created=True)
        return Response(
            self._detail(self.get_queryset().get(pk=sequence.pk)), status=status.HTTP_201_CREATED
        )

    @extend_schema(
        summary="Update a sequence (steps: a new version when leads run on the current one)",
        description=(
            "Only the fields sent change. `steps` replaces all steps: leads already enrolled "
            "keep the version they started on."
        ),
        request=s.SequenceWriteSerializer,
        responses={200: s.SequenceDetailSerializer, **errors(*WRITE)},
        examples=[OpenApiExample("deactivate", value={"is_active": False}, request_only=True)],
    )
    def partial_update(self, request: Request, pk: str | None = None) -> Response:
        sequence = self.get_object()
        body = s.SequenceWriteSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        save_sequence(tenant_of(request), sequence, body.validated_data, created=False)
        return Response(self._detail(self.get_queryset().get(pk=sequence.pk)))

    @extend_schema(
        summary="Enroll leads in the sequence (bulk)",
        description=(
            "Each id gets its own result: leads of another tenant, already in a sequence, "
            "opted out, in a stage automation does not run in, taken over, or that no channel "
            "can reach (see a lead's `readiness`) are refused with the reason (in the "
            "request's language) and its `reason_code`. An inactive sequence or one without "
            "steps refuses all (409)."
        ),
        request=s.LeadIdsSerializer,
        responses={200: s.EnrollResultSerializer, **errors(*WRITE, 409)},
        examples=[
            OpenApiExample("ids", value={"lead_ids": [101, 102, 999]}, request_only=True),
            ENROLL_EXAMPLE,
        ],
    )
    @action(detail=True, methods=["post"])
    def enroll(self, request: Request, pk: str | None = None) -> Response:
        sequence = self.get_object()
        body = s.LeadIdsSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            result = enroll_many(body.validated_data["lead_ids"], sequence)
        except EnrollmentError as refused:
            raise Conflict(str(refused), code="enrollment_refused") from None
        outcomes = [
            {"lead_id": lead_id, "enrolled": not reason, "reason": reason, "reason_code": reason}
            for lead_id, reason in result.outcomes.items()
        ]
        data = {
            "enrolled": result.enrolled,
            "skipped": len(outcomes) - result.enrolled,
            "results": outcomes,
        }
        return Response(s.EnrollResultSerializer(data).data)

    @extend_schema(
        summary="Stop the sequence for its running leads (or only the ids given)",
        description=(
            "Stops the enrollments and cancels what they queued, as an opt-out or a reply "
            "does. The sequence stays as it is; PATCH `is_active` to stop new enrollments."
        ),
        request=s.StopSerializer,
        responses={200: s.StopResultSerializer, **errors(*WRITE)},
        examples=[
            OpenApiExample("some leads", value={"lead_ids": [101]}, request_only=True),
            OpenApiExample("stopped", value={"stopped": [101]}, response_only=True),
        ],
    )
    @action(detail=True, methods=["post"])
    def stop(self, request: Request, pk: str | None = None) -> Response:
        sequence = self.get_object()
        body = s.StopSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        stopped = stop_sequence(
            sequence, body.validated_data["reason"], body.validated_data.get("lead_ids")
        )
        return Response(s.StopResultSerializer({"stopped": stopped}).data)
