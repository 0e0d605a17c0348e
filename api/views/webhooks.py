"""Outgoing webhooks over the API: the tenant's endpoints (list, create, retrieve, update,
delete, rotate the secret, send a test event), the event catalogue, and the deliveries
with their last response (list, retrieve, redeliver). Every change goes through
cerniq.outbound, as on the webhooks page; as there, only tenant admins (or their keys)
manage endpoints."""

from __future__ import annotations

import django_filters
from django.db.models import QuerySet
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiExample, extend_schema, extend_schema_view
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from api import serializers_webhooks as s
from api.auth import require_tenant_admin, tenant_of
from api.docs import READ, WRITE, errors
from api.errors import Conflict
from api.filters import IdFilter
from api.pagination import NewestFirst
from cerniq.models import WebhookDelivery, WebhookEndpoint
from cerniq.outbound import delivery, endpoints, events

ENDPOINT_EXAMPLE = OpenApiExample(
    "the CRM's receiver",
    value={
        "url": "https://crm.example.ro/hooks/cerniq",
        "description": "CRM: replies and stage changes",
        "events": ["lead.replied", "lead.stage_changed", "lead.opted_out"],
    },
    request_only=True,
)
CREATED_EXAMPLE = OpenApiExample(
    "created (the only answer with the whole secret)",
    value={
        "id": 4,
        "url": "https://crm.example.ro/hooks/cerniq",
        "description": "CRM: replies and stage changes",
        "events": ["lead.replied", "lead.stage_changed", "lead.opted_out"],
        "enabled": True,
        "disabled_reason": "",
        "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
        "created_at": "2026-11-24T09:00:00Z",
        "last_success_at": None,
        "last_failure_at": None,
    },
    response_only=True,
    status_codes=["201"],
)
DELIVERY_EXAMPLE = OpenApiExample(
    "retried after a 500",
    value={
        "id": 912,
        "endpoint": 4,
        "event_id": "msg_5f0c3e9b8f0e4d0e9c1f2a3b4c5d6e7f",
        "event_type": "lead.replied",
        "status": "PENDING",
        "attempts": 1,
        "next_attempt_at": "2026-11-24T09:00:35Z",
        "last_attempt_at": "2026-11-24T09:00:30Z",
        "last_status_code": 500,
        "last_response_excerpt": "Internal Server Error",
        "last_error": "",
        "created_at": "2026-11-24T09:00:30Z",
        "delivered_at": None,
        "payload": {
            "id": "msg_5f0c3e9b8f0e4d0e9c1f2a3b4c5d6e7f",
            "type": "lead.replied",
            "created_at": "2026-11-24T09:00:30Z",
            "tenant": "agro-nord",
            "data": {"lead_id": 1042, "channel": "WHATSAPP"},
        },
    },
    response_only=True,
)


class DeliveryFilter(django_filters.FilterSet):
    endpoint = IdFilter(field_name="endpoint_id")
    status = django_filters.ChoiceFilter(choices=WebhookDelivery.Status.choices)
    event_type = django_filters.CharFilter()

    class Meta:
        model = WebhookDelivery
        fields: list[str] = []


class AdminsOnly:
    """As on the webhooks page, a signed-in operator must be a tenant admin, even to look
    (receiver URLs often carry a token). A key of either scope may read, since only admins
    create keys; writes need a write key (TenantAccess)."""

    def initial(self, request: Request, *args: object, **kwargs: object) -> None:
        super().initial(request, *args, **kwargs)  # type: ignore[misc]
        require_tenant_admin(request, _("Only the workspace's admins manage webhooks."))


@extend_schema_view(
    list=extend_schema(
        summary="List the webhook endpoints",
        description="Oldest first, cursor-paged; secrets masked.",
        responses={200: s.WebhookEndpointSerializer(many=True), **errors(400)},
    ),
    retrieve=extend_schema(
        summary="A webhook endpoint",
        responses={200: s.WebhookEndpointSerializer, **errors(*READ)},
    ),
    create=extend_schema(
        summary="Register an endpoint for events",
        description=(
            "The URL must be https on a public address. Every delivery is signed with the "
            "endpoint's secret (Standard Webhooks: `webhook-id`, `webhook-timestamp`, "
            "`webhook-signature` = `v1,` + base64 HMAC-SHA256 of `id.timestamp.body`). "
            "**The answer holds the whole secret; it is not shown again.**"
        ),
        request=s.WebhookEndpointSerializer,
        responses={201: s.NewSecretSerializer, **errors(400, 403)},
        examples=[ENDPOINT_EXAMPLE, CREATED_EXAMPLE],
    ),
    partial_update=extend_schema(
        summary="Change an endpoint's URL, description, events, or enable/disable it",
        description=(
            "A disabled endpoint is owed no new event; deliveries it was owed already wait "
            "and go out once it is enabled again."
        ),
        request=s.WebhookEndpointSerializer,
        responses={200: s.WebhookEndpointSerializer, **errors(*WRITE)},
    ),
    destroy=extend_schema(
        summary="Delete an endpoint (and its deliveries)",
        responses={204: None, **errors(*WRITE)},
    ),
)
class WebhookEndpointViewSet(
    AdminsOnly,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    mixins.UpdateModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet,
):
    queryset = WebhookEndpoint.objects.none()
    serializer_class = s.WebhookEndpointSerializer
    http_method_names = ["get", "post", "patch", "delete", "head", "options"]

    class pagination_class(NewestFirst):  # noqa: N801 - DRF's attribute name
        ordering = ("created_at", "pk")

    def get_queryset(self) -> QuerySet[WebhookEndpoint]:
        if getattr(self, "swagger_fake_view", False):
            return WebhookEndpoint.objects.none()
        return WebhookEndpoint.objects.filter(tenant=tenant_of(self.request))

    def perform_create(self, serializer: s.WebhookEndpointSerializer) -> None:
        serializer.save(tenant=tenant_of(self.request), secret=endpoints.new_secret())

    def create(self, request: Request, *args: object, **kwargs: object) -> Response:
        body = s.WebhookEndpointSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        self.perform_create(body)
        return Response(s.NewSecretSerializer(body.instance).data, status=status.HTTP_201_CREATED)

    def perform_update(self, serializer: s.WebhookEndpointSerializer) -> None:
        data = serializer.validated_data
        enabled = data.pop("enabled", None)
        endpoint = serializer.save()
        if enabled is not None and enabled != endpoint.enabled:
            endpoints.set_enabled(endpoint, enabled)

    @extend_schema(
        summary="Replace the signing secret",
        description=(
            "The old secret stops signing at once; the next attempt of every delivery uses "
            "the new one. **The answer holds the whole new secret; it is not shown again.**"
        ),
        request=None,
        responses={200: s.NewSecretSerializer, **errors(*WRITE)},
    )
    @action(detail=True, methods=["post"], url_path="rotate-secret")
    def rotate_secret(self, request: Request, pk: str | None = None) -> Response:
        endpoint = self.get_object()
        endpoints.rotate_secret(endpoint)
        return Response(s.NewSecretSerializer(endpoint).data)

    @extend_schema(
        summary="Send a `webhook.test` event now",
        description=(
            "Posted at once (within about 13 s) through the outbox, so it shows among the "
            "deliveries and is retried like any event; the answer is that delivery after "
            "the first attempt. 409 when the endpoint is disabled."
        ),
        request=None,
        responses={200: s.WebhookDeliverySerializer, **errors(*WRITE, 409)},
        examples=[DELIVERY_EXAMPLE],
    )
    @action(detail=True, methods=["post"])
    def test(self, request: Request, pk: str | None = None) -> Response:
        endpoint = self.get_object()
        if not endpoint.enabled:
            raise Conflict(
                _("Enable the endpoint first: a disabled one receives nothing."),
                code="endpoint_disabled",
            )
        row = WebhookDelivery.objects.get(pk=endpoints.send_test(endpoint))
        return Response(s.WebhookDeliverySerializer(row).data)

    @extend_schema(
        summary="The event types an endpoint can subscribe to",
        request=None,
        responses={200: s.EventTypeSerializer(many=True), **errors()},
        filters=False,
    )
    @action(detail=False, methods=["get"], url_path="events", pagination_class=None)
    def event_types(self, request: Request) -> Response:
        catalogue = [
            {"type": name, "description": str(text)} for name, text in events.EVENTS.items()
        ]
        return Response(s.EventTypeSerializer(catalogue, many=True).data)


@extend_schema_view(
    list=extend_schema(
        summary="List webhook deliveries with their last response",
        description="Newest first, cursor-paged; filter by endpoint, status or event type.",
        responses={200: s.WebhookDeliverySerializer(many=True), **errors(400)},
    ),
    retrieve=extend_schema(
        summary="A delivery: its event, attempts and what the receiver last said",
        responses={200: s.WebhookDeliverySerializer, **errors(*READ)},
        examples=[DELIVERY_EXAMPLE],
    ),
)
class WebhookDeliveryViewSet(
    AdminsOnly, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet
):
    queryset = WebhookDelivery.objects.none()
    serializer_class = s.WebhookDeliverySerializer
    filterset_class = DeliveryFilter
    pagination_class = NewestFirst
    http_method_names = ["get", "post", "head", "options"]

    def get_queryset(self) -> QuerySet[WebhookDelivery]:
        if getattr(self, "swagger_fake_view", False):
            return WebhookDelivery.objects.none()
        return WebhookDelivery.objects.filter(tenant=tenant_of(self.request))

    def filter_queryset(self, queryset: QuerySet[WebhookDelivery]) -> QuerySet[WebhookDelivery]:
        return super().filter_queryset(queryset) if self.action == "list" else queryset

    @extend_schema(
        summary="Deliver an event again",
        description=(
            "Same `webhook-id` (a receiver that kept it may drop the repeat), a fresh run of "
            "attempts, due now. 409 while a worker is sending it."
        ),
        request=None,
        responses={202: s.WebhookDeliverySerializer, **errors(*WRITE, 409)},
    )
    @action(detail=True, methods=["post"])
    def redeliver(self, request: Request, pk: str | None = None) -> Response:
        row = self.get_object()
        if not delivery.redeliver(row):
            raise Conflict(
                _("Event %(id)s is being delivered right now.") % {"id": row.event_id},
                code="delivery_in_progress",
            )
        return Response(s.WebhookDeliverySerializer(row).data, status=status.HTTP_202_ACCEPTED)
