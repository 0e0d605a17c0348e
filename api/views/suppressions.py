"""The do-not-contact list: list, add, look up and remove entries (phone, email, email
domain, company CUI), and the whole list as CSV both ways. The rules are
outreach.suppression_list's, as on the list's page: a 400 names the field (a value that is
not a phone, an address, a domain or a CUI; no reason), a 409 says why an entry the
recipient caused cannot be removed here."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from django.db.models import QuerySet
from django.http import HttpResponse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from api import serializers_suppressions as s
from api.auth import acting_user, require_tenant_admin, tenant_of
from api.docs import READ, WRITE, errors
from api.errors import Conflict
from api.pagination import NewestFirst
from api.parsers import BoundedBodyParser
from outreach import suppression_list as dnc
from outreach.models import Suppression

BODY = "body"
# As on the list's page: the list is a workspace setting. Keys pass (only admins make them,
# and writes need the write scope).
ADMIN_ONLY = gettext_lazy("Only a workspace admin can change the do-not-contact list.")


class SuppressionCSVParser(BoundedBodyParser):
    media_type = "text/csv"
    limit = dnc.MAX_CSV_BYTES


KIND_PARAM = OpenApiParameter(
    "kind", str, enum=[k.value for k in Suppression.Kind], required=False, description="One kind."
)
Q_PARAM = OpenApiParameter(
    "q", str, required=False, description="Part of the value or of the reason."
)


@extend_schema_view(
    list=extend_schema(
        summary="List the do-not-contact entries (newest first)",
        parameters=[KIND_PARAM, Q_PARAM],
        responses={200: s.SuppressionSerializer(many=True), **errors(400)},
    ),
    retrieve=extend_schema(
        summary="A do-not-contact entry", responses={200: s.SuppressionSerializer, **errors(*READ)}
    ),
)
class SuppressionViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Anyone of the workspace reads; adding, importing and removing are for its admins (a
    signed-in operator must be one; a key needs the write scope)."""

    queryset = Suppression.objects.none()
    serializer_class = s.SuppressionSerializer
    pagination_class = NewestFirst
    filter_backends: list = []

    def get_queryset(self) -> QuerySet[Suppression]:
        if getattr(self, "swagger_fake_view", False):
            return Suppression.objects.none()
        kind = self.request.query_params.get("kind", "")
        if kind and kind not in Suppression.Kind.values:
            raise ValidationError({"kind": [_("Choose phone, email, domain or cui.")]})
        return dnc.entries(
            tenant_of(self.request), kind=kind, q=self.request.query_params.get("q", "")
        )

    def _shown(self, entries: list[Suppression], *, many: bool) -> dict | list:
        """The entries with how many leads each names now (one query per kind shown)."""
        context = {
            **self.get_serializer_context(),
            "blocked": dnc.blocked_counts(tenant_of(self.request), entries),
        }
        shown = entries if many else entries[0]
        return s.SuppressionSerializer(shown, many=many, context=context).data

    def list(self, request: Request, *args: object, **kwargs: object) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(self._shown(list(page or []), many=True))

    def retrieve(self, request: Request, *args: object, **kwargs: object) -> Response:
        return Response(self._shown([self.get_object()], many=False))

    @extend_schema(
        summary="Add a do-not-contact entry",
        description=(
            "The value is normalised (a phone to E.164, an address or a domain lowercased, a "
            "CUI to its digits). Answers 201 with the new entry, or 200 with the entry already "
            "listed for that value (its first reason kept)."
        ),
        request=s.SuppressionWriteSerializer,
        responses={
            201: s.SuppressionSerializer,
            200: s.SuppressionSerializer,
            **errors(400, 403),
        },
        examples=[
            OpenApiExample(
                "a whole domain",
                value={"kind": "domain", "value": "@concurent.ro", "reason": "A competitor."},
                request_only=True,
            )
        ],
    )
    def create(self, request: Request) -> Response:
        require_tenant_admin(request, str(ADMIN_ONLY))
        body = s.SuppressionWriteSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            entry, created = dnc.add_entry(
                tenant_of(request),
                **body.validated_data,
                source=Suppression.Source.API,
                user=acting_user(request),
            )
        except dnc.EntryInvalid as invalid:
            raise ValidationError({invalid.field: [str(invalid)]}) from None
        return Response(
            self._shown([entry], many=False),
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
        )

    @extend_schema(
        summary="Remove a do-not-contact entry a person added",
        description=(
            "Only entries added by a person (manual, CSV import, API). One the recipient "
            "caused (an opt-out, an unsubscribe, a bounce, a complaint) is a 409: lift it on "
            "the lead, with the reason. The removal is kept in the audit with its reason."
        ),
        request=s.SuppressionRemoveSerializer,
        responses={204: None, **errors(*WRITE, 409)},
    )
    @action(detail=True, methods=["post"])
    def remove(self, request: Request, pk: str | None = None) -> Response:
        require_tenant_admin(request, str(ADMIN_ONLY))
        entry = self.get_object()
        body = s.SuppressionRemoveSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            dnc.remove_entry(entry, user=acting_user(request), reason=body.validated_data["reason"])
        except dnc.RemovalRefused as refused:
            if refused.field:
                raise ValidationError({refused.field: [str(refused)]}) from None
            raise Conflict(str(refused), code="not_removable") from None
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        summary="Add do-not-contact entries from a CSV file",
        description=(
            "Two layouts: `kind,value[,reason]` (what the export writes), or one column per "
            "kind (`phone`, `email`, `domain`, `cui`, and an optional `reason`), every filled "
            "cell an entry. All or nothing: a line that is not valid makes a 400 listing the "
            "lines at fault (`fields` keyed `line <n>`), and nothing is added."
        ),
        request={"text/csv": {"type": "string"}},
        responses={200: s.SuppressionImportSerializer, **errors(400, 403, 413)},
    )
    @action(
        detail=False, methods=["post"], url_path="import", parser_classes=[SuppressionCSVParser]
    )
    def import_csv(self, request: Request) -> Response:
        require_tenant_admin(request, str(ADMIN_ONLY))
        data = request.data
        if not isinstance(data, bytes):
            raise ValidationError({BODY: [_("Send the file as text/csv.")]})
        try:
            result = dnc.import_csv(
                tenant_of(request),
                data,
                user=acting_user(request),
                source=Suppression.Source.API,
                default_reason=_("Imported over the API"),
            )
        except dnc.CsvInvalid as invalid:
            raise ValidationError(
                {f"line {line}" if line else BODY: [message] for line, message in invalid.errors}
            ) from None
        return Response(s.SuppressionImportSerializer(result).data)

    @extend_schema(
        summary="The whole do-not-contact list as CSV",
        description="`kind,value,reason,source,created_at,created_by`; the import reads it back.",
        responses={
            (200, "text/csv"): OpenApiResponse(OpenApiTypes.STR, description="The CSV file."),
            **errors(),
        },
    )
    @action(detail=False, methods=["get"], url_path="export", pagination_class=None)
    def export(self, request: Request) -> HttpResponse:
        tenant = tenant_of(request)
        response = HttpResponse(dnc.export_csv(tenant), content_type="text/csv; charset=utf-8")
        day = timezone.localdate(timezone.now(), ZoneInfo(tenant.time_zone)).isoformat()
        response["Content-Disposition"] = (
            f'attachment; filename="do-not-contact-{tenant.slug}-{day}.csv"'
        )
        return response
