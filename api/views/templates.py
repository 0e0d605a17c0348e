"""Templates: list, retrieve (versions with their results), create, add a version, and the
editor's validate + preview. Versions are saved by outreach.sequences.save_versions and
checked by TemplateVersion.clean, as on the templates page. The A/B winner's actions are
in api.views.template_ab."""

from __future__ import annotations

import django_filters
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import transaction
from django.db.models import Prefetch, QuerySet
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiExample, extend_schema, extend_schema_view
from rest_framework import mixins, status
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from api import serializers_templates as s
from api.auth import TenantAccess, api_key, tenant_of
from api.docs import READ, WRITE, errors
from api.errors import Conflict
from api.views.template_ab import TemplateABActions, waiting_prefetch
from outreach import spintax
from outreach.models import Channel, Lead, Template, TemplateVersion, known_custom_fields
from outreach.sequences import VersionSpec, save_versions
from outreach.template_preview import preview_template
from outreach.template_versions import MAX_VERSIONS, TooManyVersions

TEMPLATE_EXAMPLE = OpenApiExample(
    "WhatsApp opener",
    value={
        "name": "Prima atingere",
        "channel": "WHATSAPP",
        "versions": [{"body": "{Bună ziua|Salut}, {{contact_name|stimate client}}!"}],
    },
    request_only=True,
)
TEMPLATE_SHOWN = OpenApiExample(
    "with results",
    value={
        "id": 7,
        "name": "Prima atingere",
        "channel": "WHATSAPP",
        "language": "ro",
        "is_active": True,
        "ab_mode": "suggest",
        "ab_suggestion": None,
        "versions": [
            {
                "id": 21,
                "version": 1,
                "subject": "",
                "body": "{Bună ziua|Salut}, {{contact_name|stimate client}}!",
                "weight": 100,
                "is_active": True,
                "draft": False,
                "sent_count": 240,
                "reply_count": 31,
                "positive_reply_count": 12,
                "reply_rate": 12.9,
                "created_at": "2026-11-02T08:00:00Z",
            }
        ],
        "created_at": "2026-11-02T08:00:00Z",
        "updated_at": "2026-11-02T08:00:00Z",
    },
    response_only=True,
)
PREVIEW_EXAMPLE = OpenApiExample(
    "a problem",
    value={
        "valid": False,
        "problems": {"body": ["unclosed '{' opened at line 1, column 1"]},
        "variants": [],
        "total": 0,
        "more": False,
    },
    response_only=True,
)


class TemplateFilter(django_filters.FilterSet):
    channel = django_filters.ChoiceFilter(choices=Channel.choices)
    is_active = django_filters.BooleanFilter()
    name = django_filters.CharFilter(lookup_expr="icontains", help_text="Name contains.")

    class Meta:
        model = Template
        fields: list[str] = []


class PreviewAccess(TenantAccess):
    """A preview changes nothing: a read-only key may ask for one."""

    def has_permission(self, request: Request, view: object) -> bool:
        return api_key(request) is not None or super().has_permission(request, view)


def _check_versions(template: Template, versions: list[dict], prefix: str) -> list[VersionSpec]:
    """The versions as specs, or a 400 naming `<prefix>field` (TemplateVersion.clean's rules)."""
    problems: dict[str, list[str]] = {}
    for index, data in enumerate(versions):
        version = TemplateVersion(template=template, subject=data["subject"], body=data["body"])
        try:
            version.clean()
        except DjangoValidationError as refused:
            for name, messages in refused.message_dict.items():
                problems[f"{prefix.format(index)}{name}"] = messages
    if problems:
        raise ValidationError(problems)
    return [
        VersionSpec(
            body=data["body"],
            subject=data["subject"],
            weight=data["weight"],
            is_active=data["is_active"],
        )
        for data in versions
    ]


@extend_schema_view(
    list=extend_schema(
        summary="List templates with their versions and results",
        description="Newest first, cursor-paged.",
        responses={200: s.TemplateSerializer(many=True), **errors(400)},
    ),
    retrieve=extend_schema(
        summary="A template with every version and its results (sent, replies, reply rate)",
        responses={200: s.TemplateSerializer, **errors(*READ)},
        examples=[TEMPLATE_SHOWN],
    ),
)
class TemplateViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, TemplateABActions):
    queryset = Template.objects.none()
    serializer_class = s.TemplateSerializer
    filterset_class = TemplateFilter
    http_method_names = ["get", "post", "head", "options"]

    def get_queryset(self) -> QuerySet[Template]:
        if getattr(self, "swagger_fake_view", False):
            return Template.objects.none()
        return Template.objects.filter(tenant=tenant_of(self.request)).prefetch_related(
            Prefetch(
                "versions",
                queryset=TemplateVersion.objects.select_related("media").order_by("version"),
            ),
            waiting_prefetch(),
        )

    def filter_queryset(self, queryset: QuerySet[Template]) -> QuerySet[Template]:
        return super().filter_queryset(queryset) if self.action == "list" else queryset

    def _shown(self, pk: int) -> dict:
        return s.TemplateSerializer(self.get_queryset().get(pk=pk)).data

    @extend_schema(
        summary="Create a template with its first versions",
        description="Each version's body and subject must render on the channel (spintax, "
        "known variables, length); the problems are listed per field with their position.",
        request=s.TemplateCreateSerializer,
        responses={201: s.TemplateSerializer, **errors(400, 403)},
        examples=[TEMPLATE_EXAMPLE, TEMPLATE_SHOWN],
    )
    def create(self, request: Request) -> Response:
        body = s.TemplateCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        template = Template(
            tenant=tenant_of(request),
            name=data["name"],
            channel=data["channel"],
            language=data["language"],
            is_active=data["is_active"],
            ab_mode=data["ab_mode"],
        )
        try:
            template.validate_constraints()  # the unique name per tenant
        except DjangoValidationError as refused:
            raise ValidationError({"name": refused.messages}) from None
        with transaction.atomic():
            template.save()
            save_versions(template, _check_versions(template, data["versions"], "versions.{}."))
        return Response(self._shown(template.pk), status=status.HTTP_201_CREATED)

    @extend_schema(
        summary="Add a version (A/B variant) to a template",
        description="Numbered after the last one; the others are left as they are. A "
        f"template keeps at most {MAX_VERSIONS} versions (retired ones included): a 409 past that.",
        request=s.VersionWriteSerializer,
        responses={201: s.TemplateSerializer, **errors(*WRITE, 409)},
        examples=[
            OpenApiExample(
                "variant",
                value={
                    "body": "Salut {{contact_name|}}! {Avem|Vă propunem} o ofertă.",
                    "weight": 50,
                },
                request_only=True,
            ),
            TEMPLATE_SHOWN,
        ],
    )
    @action(detail=True, methods=["post"])
    def versions(self, request: Request, pk: str | None = None) -> Response:
        template = self.get_object()
        body = s.VersionWriteSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        specs = _check_versions(template, [body.validated_data], "")
        try:
            save_versions(template, specs)
        except TooManyVersions as refused:
            raise Conflict(str(refused), code="too_many_versions") from None
        return Response(self._shown(template.pk), status=status.HTTP_201_CREATED)

    @extend_schema(
        summary="Validate a body (and subject) and preview rendered variants",
        description=(
            "The templates page's live preview: every problem with its line and column, "
            "and up to `count` distinct variants rendered with a lead's values (`lead`) or "
            "sample values. Changes nothing; a read-only key may call it."
        ),
        request=s.PreviewRequestSerializer,
        responses={200: s.PreviewSerializer, **errors(400)},
        examples=[
            OpenApiExample(
                "body", value={"body": "{Bună ziua|Salut", "count": 3}, request_only=True
            ),
            PREVIEW_EXAMPLE,
        ],
    )
    @action(detail=False, methods=["post"], permission_classes=[PreviewAccess])
    def preview(self, request: Request) -> Response:
        body = s.PreviewRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        tenant = tenant_of(request)
        variables = None
        if data.get("lead") is not None:
            lead = Lead.objects.filter(tenant=tenant, pk=data["lead"]).first()
            if lead is None:
                raise ValidationError({"lead": [_("No such lead in your workspace.")]})
            variables = spintax.lead_variables(lead)
        custom = known_custom_fields(tenant.pk)
        shown = preview_template(
            data["body"],
            data["channel"],
            custom,
            variables=variables,
            n=data["count"],
            first_message=data["first_message"],
        )
        problems = {"body": shown.problems} if shown.problems else {}
        if data["subject"].strip():
            subject = spintax.validate(
                data["subject"], channel=data["channel"], custom_fields=custom
            )
            if subject:
                problems["subject"] = subject
        if not data["body"].strip():
            problems.setdefault("body", [_("The body is empty.")])
        preview = {
            "valid": not problems,
            "problems": problems,
            "variants": shown.variants,
            "total": shown.total,
            "more": shown.more,
        }
        return Response(s.PreviewSerializer(preview).data)
