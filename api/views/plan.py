"""GET /api/v1/plan/: what goes out on the next working day (outreach.plan_preview), the
same answer as the operators' plan page."""

from __future__ import annotations

from typing import Any

from django.utils import timezone
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import exceptions, serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.auth import tenant_of
from api.docs import errors
from outreach.models import Channel, Sequence
from outreach.plan_preview import PlanPreview, preview
from whatsapp.models import Phone

MAX_SENDS = 5000


class PlanQuerySerializer(serializers.Serializer):
    sequence = serializers.IntegerField(
        required=False, min_value=1, help_text="Only this sequence's leads (its id)."
    )
    phone = serializers.IntegerField(
        required=False, min_value=1, help_text="Only this phone's messages (its id)."
    )
    limit = serializers.IntegerField(
        required=False,
        min_value=0,
        max_value=MAX_SENDS,
        default=500,
        help_text="Planned messages listed at most (the totals count them all).",
    )


class LeadRefSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()


class PlannedSendSerializer(serializers.Serializer):
    lead = LeadRefSerializer()
    sequence = serializers.IntegerField(source="sequence_id")
    sequence_name = serializers.CharField()
    step = serializers.IntegerField(source="step_position")
    channel = serializers.ChoiceField(Channel.choices)
    phone = serializers.IntegerField(source="phone_id", allow_null=True)
    first = serializers.BooleanField(help_text="The first step of its sequence; else a follow-up.")
    queued_at = serializers.DateTimeField(help_text="The dispatch run that queues it.")
    send_at = serializers.DateTimeField(
        allow_null=True,
        help_text="Approximate send time; null: its phone's turn comes after the window closes.",
    )


class PhoneDaySerializer(serializers.Serializer):
    phone = serializers.IntegerField(source="phone_id")
    name = serializers.CharField(source="label", help_text="The phone's label, else its number.")
    usable = serializers.BooleanField()
    first = serializers.IntegerField()
    follow_ups = serializers.IntegerField()
    limit = serializers.IntegerField(help_text="New contacts allowed that day (warm-up included).")
    used_before = serializers.IntegerField()
    left = serializers.IntegerField(help_text="New-contact slots left after the plan.")
    warmup_day = serializers.IntegerField(allow_null=True)
    after_close = serializers.IntegerField()


class ChannelTotalSerializer(serializers.Serializer):
    channel = serializers.ChoiceField(Channel.choices)
    name = serializers.CharField(source="label", help_text="The channel in words.")
    first = serializers.IntegerField()
    follow_ups = serializers.IntegerField()


class HourSerializer(serializers.Serializer):
    start = serializers.DateTimeField()
    whatsapp = serializers.IntegerField()
    email = serializers.IntegerField()
    first = serializers.IntegerField()
    follow_ups = serializers.IntegerField()


class WaitingSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="The reason's code (stable).")
    reason = serializers.CharField(source="text", help_text="In the Accept-Language language.")
    count = serializers.IntegerField()
    examples = LeadRefSerializer(many=True)


class PlanSerializer(serializers.Serializer):
    opening = serializers.DateTimeField(help_text="When the window opens that day.")
    closing = serializers.DateTimeField()
    first = serializers.IntegerField()
    follow_ups = serializers.IntegerField()
    total = serializers.IntegerField()
    channels = ChannelTotalSerializer(many=True)
    phones = PhoneDaySerializer(many=True)
    hours = HourSerializer(many=True)
    waiting = WaitingSerializer(many=True)
    sends = PlannedSendSerializer(many=True)


class PlanPreviewView(APIView):
    @extend_schema(
        summary="What goes out on the next working day, and why other leads wait",
        description=(
            "Computed with the dispatch rules themselves for the next day the sending window "
            "opens, on that day's quota and warm-up limits; nothing is written. Send times "
            "are approximate (pacing). Filter by `sequence` or `phone` (ids of this "
            "workspace; another workspace's id is a 404). Reasons follow `Accept-Language`."
        ),
        parameters=[PlanQuerySerializer],
        responses={200: PlanSerializer, **errors(400, 404)},
        examples=[
            OpenApiExample(
                "Wednesday after the holidays",
                value={
                    "opening": "2026-12-02T09:00:00+02:00",
                    "closing": "2026-12-02T18:00:00+02:00",
                    "first": 8,
                    "follow_ups": 2,
                    "total": 10,
                    "channels": [
                        {"channel": "WHATSAPP", "name": "WhatsApp", "first": 6, "follow_ups": 2}
                    ],
                    "phones": [],
                    "hours": [],
                    "waiting": [
                        {
                            "code": "stop.review",
                            "reason": "the lead is held for human review",
                            "count": 1,
                            "examples": [{"id": 42, "name": "Agro Test SRL"}],
                        }
                    ],
                    "sends": [],
                },
                response_only=True,
            )
        ],
    )
    def get(self, request: Request) -> Response:
        tenant = tenant_of(request)
        query = PlanQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        found: dict[str, Any] = {}
        for name, model in (("sequence", Sequence), ("phone", Phone)):
            if name in query.validated_data:
                row = model.objects.filter(tenant=tenant, pk=query.validated_data[name]).first()
                if row is None:
                    raise exceptions.NotFound()
                found[name] = row
        result: PlanPreview = preview(tenant, now=timezone.now(), **found)
        body = PlanSerializer(result).data
        body["sends"] = body["sends"][: query.validated_data["limit"]]
        return Response(body)
