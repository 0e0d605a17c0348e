"""Companies: list, retrieve, create and change a workspace's companies, written by
outreach.company_entry as the company page writes them (the firm's fields are copied to
every contact). Contacts are added through the lead endpoints, naming the company."""

from __future__ import annotations

from django.db.models import Count, QuerySet
from drf_spectacular.utils import OpenApiExample, extend_schema, extend_schema_view
from rest_framework import mixins, status, viewsets
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from api import serializers_companies as s
from api.auth import tenant_of
from api.docs import READ, WRITE, errors
from outreach import company_entry
from outreach.companies import CompanyRefused
from outreach.company_models import Company

EXAMPLE = OpenApiExample(
    "a new company",
    value={"name": "Agro Ferma SRL", "cui": "RO18547290", "county": "Cluj", "locality": "Dej"},
    request_only=True,
)


def _body(request: Request, *, partial: bool) -> dict:
    body = s.CompanyWriteSerializer(data=request.data, partial=partial)
    body.is_valid(raise_exception=True)
    return dict(body.validated_data)


@extend_schema_view(
    list=extend_schema(
        summary="List the workspace's companies",
        description="Newest first, cursor-paged (`page_size` up to 200).",
        responses={200: s.CompanySerializer(many=True), **errors(400)},
    ),
    retrieve=extend_schema(
        summary="A company", responses={200: s.CompanySerializer, **errors(*READ)}
    ),
)
class CompanyViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    queryset = Company.objects.none()  # the schema's model; requests use get_queryset
    serializer_class = s.CompanySerializer
    http_method_names = ["get", "post", "patch", "head", "options"]

    def get_queryset(self) -> QuerySet[Company]:
        if getattr(self, "swagger_fake_view", False):
            return Company.objects.none()
        mine = Company.objects.filter(tenant=tenant_of(self.request))
        return mine.annotate(contact_count=Count("contacts"))

    def _shown(self, company: Company) -> Response:
        return Response(s.CompanySerializer(self.get_queryset().get(pk=company.pk)).data)

    @extend_schema(
        summary="Create a company",
        description="A company without contacts yet: create leads with its `company` id. "
        "A CUI another company of the workspace has is refused (400 on `cui`, naming it).",
        request=s.CompanyWriteSerializer,
        responses={201: s.CompanySerializer, **errors(400, 403)},
        examples=[EXAMPLE],
    )
    def create(self, request: Request) -> Response:
        try:
            company = company_entry.create_company(
                tenant_of(request), _body(request, partial=False)
            )
        except CompanyRefused as refused:
            raise ValidationError(refused.fields) from None
        response = self._shown(company)
        response.status_code = status.HTTP_201_CREATED
        return response

    @extend_schema(
        summary="Change a company",
        description="Only the fields sent change (custom fields are merged); name, CUI, "
        "county and locality are copied to every contact of the company, so each lead "
        "of it shows them at once.",
        request=s.CompanyWriteSerializer,
        responses={200: s.CompanySerializer, **errors(*WRITE)},
    )
    def partial_update(self, request: Request, pk: str | None = None) -> Response:
        company = self.get_object()
        try:
            company_entry.change_company(company, _body(request, partial=True))
        except CompanyRefused as refused:
            raise ValidationError(refused.fields) from None
        return self._shown(company)
