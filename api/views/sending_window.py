"""The tenant's sending window now: open or closed, why, and when it opens next; the same
answer as the operators' banner (outreach.next_send)."""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.auth import tenant_of
from api.docs import errors
from api.serializers_phones import NextSendSerializer, next_send_body
from outreach.next_send import next_send_at


class SendingWindowSerializer(serializers.Serializer):
    open = serializers.BooleanField(help_text="Automated work may go out now.")
    opens_at = serializers.DateTimeField(help_text="Now when open; else the next opening.")
    next_send = NextSendSerializer()
    time_zone = serializers.CharField(help_text="The tenant's time zone (IANA name).")
    # Wall times of the tenant's zone, not instants: OpenAPI's `time` format wants an offset.
    start = serializers.CharField(help_text="Local opening time on a working day, HH:MM.")
    end = serializers.CharField(help_text="Local closing time (excluded), HH:MM.")
    working_days = serializers.ListField(
        child=serializers.IntegerField(min_value=0, max_value=6),
        help_text="Weekdays sending is allowed on: 0 Monday … 6 Sunday.",
    )
    holiday_country = serializers.CharField(
        allow_blank=True, help_text="Whose public holidays close the window; blank: none."
    )


class SendingWindowView(APIView):
    @extend_schema(
        summary="The sending window now: open or closed, why, when it opens",
        description=(
            "Automated messages go out only inside the tenant's sending window (local hours "
            "on working days that are not public holidays); a person's message does not "
            "wait for it. Words follow `Accept-Language` (en, ro)."
        ),
        responses={200: SendingWindowSerializer, **errors()},
        examples=[
            OpenApiExample(
                "closed for the weekend and two holidays",
                value={
                    "open": False,
                    "opens_at": "2026-12-02T07:00:00Z",
                    "next_send": {
                        "at": "2026-12-02T07:00:00Z",
                        "reason": "window_closed",
                        "window_closed_because": "weekend",
                        "holidays": ["Saint Andrew's Day", "National Day"],
                        "message": "The sending window is closed (weekend, then public "
                        "holidays: Saint Andrew's Day; National Day).",
                    },
                    "time_zone": "Europe/Bucharest",
                    "start": "09:00",
                    "end": "18:00",
                    "working_days": [0, 1, 2, 3, 4],
                    "holiday_country": "RO",
                },
                response_only=True,
            )
        ],
    )
    def get(self, request: Request) -> Response:
        tenant = tenant_of(request)
        answer = next_send_at(tenant, now=timezone.now())
        body = {
            "open": answer.is_now,
            "opens_at": answer.at,
            "next_send": next_send_body(answer),
            "time_zone": tenant.time_zone,
            "start": tenant.window_start.strftime("%H:%M"),
            "end": tenant.window_end.strftime("%H:%M"),
            "working_days": sorted(int(day) for day in tenant.working_days),
            "holiday_country": tenant.holiday_country,
        }
        return Response(SendingWindowSerializer(body).data)
