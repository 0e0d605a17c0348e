"""Leads: list, retrieve, create, update contact data, move stage, timeline, pause/resume,
take over / hand back. Each action calls the service the lead page calls."""

from __future__ import annotations

from django.db.models import QuerySet
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiExample, extend_schema, extend_schema_view
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from api import serializers as s
from api.auth import acting_user, api_key, tenant_of
from api.docs import READ, WRITE, errors
from api.errors import Conflict
from api.filters import LeadFilter
from api.pagination import NewestFirst
from api.serializers_readiness import attach_readiness
from cerniq import reasons
from hitl import takeover
from outreach import optout_manual, sequences, stages
from outreach.lead_entry import DuplicateLead, LeadInvalid, create_lead, update_lead
from outreach.models import (
    Journey,
    Lead,
    Message,
    OptOutLift,
    OptOutRecord,
    Sequence,
    StageTransition,
)
from outreach.reasons import STAGE_CHANGED_BY_API, STAGE_PAUSED_BY_API, STAGE_RESUMED_BY_API

HISTORY_LIMIT = 100  # stage changes shown on a lead; the full history is in the audit table

LEAD_EXAMPLE = OpenApiExample(
    "new lead",
    value={
        "name": "Agro Ferma SRL",
        "cui": "RO18547290",
        "county": "Cluj",
        "phone": "0722 123 456",
        "email": "office@agroferma.ro",
        "custom_fields": {"crm_id": "A-1042"},
    },
    request_only=True,
)


def _key_name(request: Request) -> str:
    """The API key a request came with, named in the lead's history."""
    key = api_key(request)
    return key.name if key else _("signed in")


def _journey(lead: Lead) -> Journey:
    journey = getattr(lead, "journey", None)
    if journey is None:
        raise Conflict(_("This lead has no journey yet."), code="no_journey")
    return journey


def _invalid(problem: LeadInvalid) -> ValidationError:
    return ValidationError(problem.fields)


def _duplicate(problem: DuplicateLead) -> Conflict:
    return Conflict(
        str(problem), code="duplicate", lead_id=problem.lead_id, matched_by=problem.matched_by
    )


@extend_schema_view(
    list=extend_schema(
        summary="List leads",
        description="Newest first, cursor-paged (`page_size` up to 200).",
        responses={200: s.LeadSerializer(many=True), **errors(400)},
    ),
    retrieve=extend_schema(
        summary="A lead with its journey, stage history and opt-outs",
        responses={200: s.LeadDetailSerializer, **errors(*READ)},
    ),
)
class LeadViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    viewsets.GenericViewSet,
):
    queryset = Lead.objects.none()  # the schema's model; requests use get_queryset
    filterset_class = LeadFilter
    http_method_names = ["get", "post", "patch", "head", "options"]

    def get_queryset(self) -> QuerySet[Lead]:
        if getattr(self, "swagger_fake_view", False):
            return Lead.objects.none()
        return Lead.objects.filter(tenant=tenant_of(self.request)).select_related("journey")

    def filter_queryset(self, queryset: QuerySet[Lead]) -> QuerySet[Lead]:
        """Filters narrow the list only: a lead's own URL finds it whatever the query string."""
        return super().filter_queryset(queryset) if self.action == "list" else queryset

    def paginate_queryset(self, queryset):
        page = super().paginate_queryset(queryset)
        if page is not None and self.action == "list":
            attach_readiness(page, tenant_of(self.request))
        return page

    def get_serializer_class(self):
        return s.LeadDetailSerializer if self.action == "retrieve" else s.LeadSerializer

    def retrieve(self, request: Request, pk: str | None = None) -> Response:
        lead = self.get_object()
        journey = getattr(lead, "journey", None)
        lead.stage_history = (
            list(
                StageTransition.objects.filter(journey=journey).order_by("-created_at", "-pk")[
                    :HISTORY_LIMIT
                ]
            )
            if journey
            else []
        )
        lead.opt_outs = {
            "whatsapp": bool(journey and journey.whatsapp_opted_out),
            "whatsapp_at": journey.whatsapp_opted_out_at if journey else None,
            "email": bool(journey and journey.email_opted_out),
            "email_at": journey.email_opted_out_at if journey else None,
            "records": list(OptOutRecord.objects.filter(lead=lead).order_by("-created_at")[:20]),
            "lifts": list(OptOutLift.objects.filter(lead=lead).order_by("-created_at")[:20]),
        }
        lead.allowed_stages = stages.allowed_targets(journey) if journey else []
        return Response(s.LeadDetailSerializer(lead).data)

    @extend_schema(
        summary="Create a lead",
        description=(
            "Validated and deduplicated as the CSV import does (CUI checksum, E.164 phone, "
            "email; a match by CUI, then phone, then email). A duplicate is refused with "
            "409 `duplicate` carrying the existing lead's `lead_id`: nothing is changed, "
            "PATCH that lead to update it. The lead's company is the one with the CUI sent "
            "(a company without contacts yet), else a new one of the fields sent; to add "
            "another contact to a company, send its `company` id instead of its fields "
            "(then a phone or email one of its contacts has is the duplicate)."
        ),
        request=s.LeadCreateSerializer,
        responses={201: s.LeadSerializer, **errors(400, 403, 409)},
        examples=[LEAD_EXAMPLE],
    )
    def create(self, request: Request) -> Response:
        body = s.LeadCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            lead = create_lead(tenant_of(request), body.validated_data, source="api")
        except LeadInvalid as problem:
            raise _invalid(problem) from None
        except DuplicateLead as problem:
            raise _duplicate(problem) from None
        lead = self.get_queryset().get(pk=lead.pk)
        return Response(s.LeadSerializer(lead).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        summary="Update a lead's contact data",
        description=(
            "Only the fields sent change; an empty value clears one (a lead keeps its name "
            "and a phone or an email); custom fields are merged. The stage is never changed "
            "here: use the transition endpoint. Name, cui, county and locality are the "
            "company's: a change to one changes it for every contact of the company; "
            "`company` moves the lead to another company of yours."
        ),
        request=s.LeadWriteSerializer,
        responses={200: s.LeadSerializer, **errors(*WRITE, 409)},
    )
    def partial_update(self, request: Request, pk: str | None = None) -> Response:
        lead = self.get_object()
        body = s.LeadWriteSerializer(data=request.data, partial=True)
        body.is_valid(raise_exception=True)
        try:
            update_lead(lead, body.validated_data)
        except LeadInvalid as problem:
            raise _invalid(problem) from None
        except DuplicateLead as problem:
            raise _duplicate(problem) from None
        return Response(s.LeadSerializer(self.get_queryset().get(pk=lead.pk)).data)

    @extend_schema(
        summary="Move a lead to another stage",
        description="Only legal moves (outreach.stages); otherwise 409 with the reason.",
        request=s.TransitionSerializer,
        responses={200: s.LeadDetailSerializer, **errors(*WRITE, 409)},
        examples=[
            OpenApiExample(
                "to negotiation",
                value={"stage": "NEGOTIATION", "reason": "asked for an offer"},
                request_only=True,
            )
        ],
    )
    @action(detail=True, methods=["post"])
    def transition(self, request: Request, pk: str | None = None) -> Response:
        lead = self.get_object()
        body = s.TransitionSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        reason = body.validated_data.get("reason") or reasons.code(
            STAGE_CHANGED_BY_API, key=_key_name(request)
        )
        user = request.user if request.user.is_authenticated else None
        try:
            stages.transition(
                _journey(lead),
                body.validated_data["stage"],
                reason=reason[:255],
                by_user=user,
                by_system="" if user else "api",
            )
        except stages.IllegalTransition as refused:
            raise Conflict(str(refused), code="illegal_transition") from None
        return self.retrieve(request, pk)

    @extend_schema(
        summary="Pause a lead (no automation until resumed)",
        request=None,
        responses={200: s.LeadDetailSerializer, **errors(*WRITE, 409)},
    )
    @action(detail=True, methods=["post"])
    def pause(self, request: Request, pk: str | None = None) -> Response:
        return self._move(request, pk, stages.pause, STAGE_PAUSED_BY_API)

    @extend_schema(
        summary="Resume a paused lead (back to the stage it was paused in)",
        request=None,
        responses={200: s.LeadDetailSerializer, **errors(*WRITE, 409)},
    )
    @action(detail=True, methods=["post"])
    def resume(self, request: Request, pk: str | None = None) -> Response:
        return self._move(request, pk, stages.resume, STAGE_RESUMED_BY_API)

    def _move(self, request: Request, pk: str | None, move, done: str) -> Response:
        journey = _journey(self.get_object())
        user = request.user if request.user.is_authenticated else None
        try:
            move(journey, reason=reasons.code(done, key=_key_name(request)), by_user=user)
        except stages.IllegalTransition as refused:
            raise Conflict(str(refused), code="illegal_transition") from None
        return self.retrieve(request, pk)

    @extend_schema(
        summary="Take over the conversation (stops all automation for the lead)",
        description="Acts as the signed-in operator, or as the admin who created the key.",
        request=None,
        responses={200: s.LeadDetailSerializer, **errors(*WRITE, 409)},
    )
    @action(detail=True, methods=["post"], url_path="take-over")
    def take_over(self, request: Request, pk: str | None = None) -> Response:
        lead = self.get_object()
        _journey(lead)
        try:
            takeover.take_over(lead, acting_user(request))
        except takeover.ReviewError as refused:
            raise Conflict(str(refused), code="takeover_refused") from None
        return self.retrieve(request, pk)

    @extend_schema(
        summary="Hand a taken-over conversation back to automation",
        request=s.HandBackSerializer,
        responses={200: s.LeadDetailSerializer, **errors(*WRITE, 409)},
    )
    @action(detail=True, methods=["post"], url_path="hand-back")
    def hand_back(self, request: Request, pk: str | None = None) -> Response:
        lead = self.get_object()
        _journey(lead)
        body = s.HandBackSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            takeover.hand_back(
                lead,
                acting_user(request),
                stage=body.validated_data.get("stage"),
                resume=body.validated_data["resume"],
            )
        except takeover.ReviewError as refused:
            raise Conflict(str(refused), code="takeover_refused") from None
        return self.retrieve(request, pk)

    @extend_schema(
        summary="Record an opt-out the lead asked for (every channel stops)",
        description=(
            "For a stop asked where the app could not see it (a phone call, an email to a "
            "colleague). Whatever `channel` says, the lead is opted out of every channel: "
            "its open enrollments stop, its queued messages are cancelled, the providers "
            "are told, its phone and email go on the suppression list. Acts as the "
            "signed-in operator, or as the admin who created the key; `channel` and "
            "`reason` are kept in `opt_outs.records`. A lead already out of every channel "
            "is refused with 409 `already_opted_out` (nothing changes)."
        ),
        request=s.RecordOptOutSerializer,
        responses={200: s.LeadDetailSerializer, **errors(*WRITE, 409)},
        examples=[
            OpenApiExample(
                "asked on a call",
                value={"channel": "all", "reason": "Called on 24.11, asked not to be contacted"},
                request_only=True,
            )
        ],
    )
    @action(detail=True, methods=["post"], url_path="opt-out")
    def opt_out(self, request: Request, pk: str | None = None) -> Response:
        lead = self.get_object()
        _journey(lead)
        body = s.RecordOptOutSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            recorded = optout_manual.record_opt_out(
                lead, user=acting_user(request), **body.validated_data
            )
        except optout_manual.OptOutRefused as refused:
            if refused.field:
                raise ValidationError({refused.field: [str(refused)]}) from None
            raise Conflict(str(refused), code="opt_out_refused") from None
        if recorded is None:
            raise Conflict(
                _("This lead has already opted out of every channel."), code="already_opted_out"
            )
        return self.retrieve(request, pk)

    @extend_schema(
        summary="Enroll a lead in a sequence",
        description="Refused (409 with the reasons) as the lead page refuses it: a closed "
        "stage, opted out, taken over, already in a sequence, an inactive sequence.",
        request=s.EnrollSerializer,
        responses={200: s.LeadDetailSerializer, **errors(*WRITE, 409)},
    )
    @action(detail=True, methods=["post"])
    def enroll(self, request: Request, pk: str | None = None) -> Response:
        lead = self.get_object()
        body = s.EnrollSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        sequence = Sequence.objects.filter(
            tenant=lead.tenant_id, pk=body.validated_data["sequence"]
        ).first()
        if sequence is None:
            raise ValidationError({"sequence": [_("No such sequence in your workspace.")]})
        try:
            sequences.enroll(lead, sequence)
        except sequences.EnrollmentError as refused:
            raise Conflict(str(refused), code="enrollment_refused") from None
        return self.retrieve(request, pk)

    @extend_schema(
        summary="A lead's messages on every channel, newest first (cursor-paged)",
        responses={200: s.MessageSerializer(many=True), **errors(400, *READ)},
        filters=False,
    )
    @action(detail=True, methods=["get"], pagination_class=NewestFirst, filterset_class=None)
    def timeline(self, request: Request, pk: str | None = None) -> Response:
        lead = self.get_object()
        messages = Message.objects.filter(tenant_id=lead.tenant_id, lead=lead)
        page = self.paginate_queryset(messages)
        return self.get_paginated_response(s.MessageSerializer(page, many=True).data)
