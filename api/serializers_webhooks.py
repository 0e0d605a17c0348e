"""Outgoing webhook endpoints and their deliveries, as the API shows and takes them. The
secret appears only in the answer that makes it (create, rotate); everywhere else it is
masked. URLs and events are checked by cerniq.outbound.endpoints, as on the page."""

from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import serializers

from api.fields import BoundedListField, ReasonField
from cerniq.model_fields import max_length
from cerniq.models import WebhookDelivery, WebhookEndpoint
from cerniq.outbound import endpoints, events


def _django_to_drf(check, value):  # noqa: ANN001, ANN202 - a tiny adapter
    try:
        check(value)
    except DjangoValidationError as problem:
        raise serializers.ValidationError(problem.messages) from None
    return value


class WebhookEndpointSerializer(serializers.ModelSerializer):
    url = serializers.CharField(
        max_length=max_length(WebhookEndpoint, "url"),
        help_text="https://… on a public address; every delivery is signed.",
    )
    events = BoundedListField(
        child=serializers.ChoiceField(choices=sorted(events.EVENTS)),
        allow_empty=False,
        max_length=len(events.EVENTS),
        help_text="The event types this endpoint receives (GET webhooks/events/ lists them).",
    )
    enabled = serializers.BooleanField(required=False, default=True)
    secret = serializers.SerializerMethodField(
        help_text="Masked: the whole secret is shown only when it is made (create, rotate)."
    )
    disabled_reason = serializers.SerializerMethodField()

    class Meta:
        model = WebhookEndpoint
        fields = [
            "id",
            "url",
            "description",
            "events",
            "enabled",
            "disabled_reason",
            "secret",
            "created_at",
            "last_success_at",
            "last_failure_at",
        ]
        read_only_fields = ["id", "created_at", "last_success_at", "last_failure_at"]

    def get_secret(self, endpoint: WebhookEndpoint) -> str:
        return endpoints.masked_secret(endpoint.secret)

    def get_disabled_reason(self, endpoint: WebhookEndpoint) -> str:
        return endpoint.disabled_reason_text

    def validate_url(self, url: str) -> str:
        return _django_to_drf(endpoints.validate_url, url.strip())

    def validate_events(self, names: list[str]) -> list[str]:
        return _django_to_drf(endpoints.validate_events, list(dict.fromkeys(names)))


class NewSecretSerializer(WebhookEndpointSerializer):
    """The endpoint with its whole signing secret: this answer is the only time it is shown."""

    secret = serializers.CharField(
        read_only=True, help_text="`whsec_…`: store it now, it is not shown again."
    )


class WebhookDeliverySerializer(serializers.ModelSerializer):
    endpoint = serializers.IntegerField(source="endpoint_id", read_only=True)
    last_error = ReasonField(
        help_text="Why the last attempt got no answer (refused, timeout), in the request's "
        "language."
    )

    class Meta:
        model = WebhookDelivery
        fields = [
            "id",
            "endpoint",
            "event_id",
            "event_type",
            "status",
            "attempts",
            "next_attempt_at",
            "last_attempt_at",
            "last_status_code",
            "last_response_excerpt",
            "last_error",
            "created_at",
            "delivered_at",
            "payload",
        ]
        read_only_fields = fields


class EventTypeSerializer(serializers.Serializer):
    type = serializers.CharField()
    description = serializers.CharField()
