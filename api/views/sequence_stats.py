"""A sequence's results per step and template version over a date range (the figures of
the sequence page, outreach.analytics.sequences): read-only, in a fixed number of queries
whatever the number of steps, versions and messages."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api import serializers_sequence_stats as s
from api.auth import tenant_of
from api.docs import errors
from api.serializers_sequences import MAX_ID
from outreach.analytics.sequences import sequence_stats
from outreach.models import Sequence

FIGURES = {
    "sent": 40,
    "delivered": 38,
    "read": 30,
    "replied": 6,
    "positive_replies": 2,
    "opt_outs": 1,
    "bounces": 0,
    "delivered_of": 40,
    "read_of": 40,
    "delivered_rate": 95.0,
    "read_rate": 75.0,
    "reply_rate": 15.0,
    "positive_rate": 5.0,
    "opt_out_rate": 2.5,
    "bounce_rate": 0.0,
}
STATS_SHOWN = OpenApiExample(
    "one WhatsApp step, two versions",
    value={
        "sequence": 3,
        "name": "Fermieri Cluj",
        "version": 1,
        "start": "2026-11-01",
        "end": None,
        "total": FIGURES,
        "steps": [
            {
                "step": 7,
                "position": 1,
                "sequence_version": 1,
                "current": True,
                "channel": "WHATSAPP",
                "template": 12,
                "template_name": "Prima atingere",
                "figures": FIGURES,
                "versions": [
                    {"template_version": 21, "version": 1, "is_active": True, "figures": FIGURES}
                ],
            }
        ],
    },
    response_only=True,
)
REVERSED = OpenApiExample(
    "end before start",
    value={
        "error": {
            "code": "invalid",
            "message": "Invalid input: end.",
            "fields": {"end": ["The end date is before the start date."]},
        }
    },
    response_only=True,
    status_codes=["400"],
)


class SequenceStatsView(APIView):
    @extend_schema(
        summary="A sequence's results per step and template version",
        description=(
            "The step messages that went out between `start` and `end` (both included, the "
            "tenant's local days; either may be left out, both: all time), and what became "
            "of them since: delivered, read, replied, positive replies, opt-outs, bounces. "
            "A reply counts for the lead's last automated message before it. `delivered` "
            "and `read` are null where the provider does not report them. Live figures, "
            "not the daily roll-up."
        ),
        parameters=[s.StatsRangeSerializer],
        responses={200: s.SequenceStatsSerializer, **errors(400, 404)},
        examples=[STATS_SHOWN, REVERSED],
    )
    def get(self, request: Request, pk: int) -> Response:
        tenant = tenant_of(request)
        sequence = Sequence.objects.filter(tenant=tenant, pk=pk).first() if pk <= MAX_ID else None
        if sequence is None:
            raise NotFound()
        params = s.StatsRangeSerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        found = params.validated_data
        stats = sequence_stats(tenant, sequence, found.get("start"), found.get("end"))
        return Response(s.SequenceStatsSerializer(stats).data)
