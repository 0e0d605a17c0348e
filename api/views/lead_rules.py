"""Lead rules, read-only: the workspace's rules in the order they are tried (the first that
matches a new lead takes it), with how many leads each took in the last 7 days. They are
kept on Settings → Lead rules."""

from __future__ import annotations

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import mixins, viewsets
from rest_framework.request import Request
from rest_framework.response import Response

from api import serializers_lead_rules as s
from api.auth import tenant_of
from api.docs import errors
from outreach.lead_rules import editing
from outreach.models import LeadRule


@extend_schema_view(
    list=extend_schema(
        summary="List the workspace's lead rules (in the order they are tried)",
        description=(
            "Each new lead (import, API, the leads page, Meta Lead Ads) is taken by the first "
            "enabled rule whose conditions all hold; the rules after it are not tried."
        ),
        responses={200: s.LeadRuleSerializer(many=True), **errors()},
    ),
)
class LeadRuleViewSet(mixins.ListModelMixin, viewsets.GenericViewSet):
    queryset = LeadRule.objects.none()
    serializer_class = s.LeadRuleSerializer
    pagination_class = None

    def get_queryset(self) -> QuerySet[LeadRule]:
        if getattr(self, "swagger_fake_view", False):
            return LeadRule.objects.none()
        return (
            LeadRule.objects.filter(tenant=tenant_of(self.request))
            .select_related("operator")
            .order_by("position", "pk")
        )

    def list(self, request: Request, *args: object, **kwargs: object) -> Response:
        taken = editing.taken_counts(tenant_of(request))
        rules = self.get_queryset()
        return Response(s.LeadRuleSerializer(rules, many=True, context={"taken": taken}).data)
