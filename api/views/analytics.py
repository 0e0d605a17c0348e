"""Analytics: the overview (today / last 7 days), daily series by channel, results per
template version and per phone. Read from the roll-up tables (DailyStats,
TemplateDailyStats) by the functions the analytics page uses (outreach.analytics), in a
fixed number of queries whatever the range or the number of rows."""

from __future__ import annotations

from datetime import date

from django.utils import timezone
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from api import serializers_analytics as s
from api.auth import tenant_of
from api.docs import errors
from api.serializers_response_times import ResponseTimesSerializer
from hitl import response_times as reply_times
from outreach import analytics

RANGE_NOTE = (
    "`start` and `end` (both included, the tenant's local days) default to the last 30 "
    "days; at most 366 days. Figures are as fresh as the last roll-up (every 15 minutes)."
)
TOO_LONG = OpenApiExample(
    "range too long",
    value={
        "error": {
            "code": "invalid",
            "message": "Invalid input: start.",
            "fields": {"start": ["Choose a range of at most 366 days."]},
        }
    },
    response_only=True,
    status_codes=["400"],
)

TODAY = dict(zip(analytics.DAILY_FIELDS, (140, 90, 48, 130, 85, 12, 4, 0, 1, 2), strict=True))
WEEK = dict(zip(analytics.DAILY_FIELDS, (910, 560, 330, 880, 600, 77, 21, 3, 5, 9), strict=True))


class AnalyticsViewSet(viewsets.GenericViewSet):
    pagination_class = None
    filter_backends: list = []

    def _range(self, request: Request) -> tuple[date, date]:
        params = s.RangeSerializer(data=request.query_params, tenant=tenant_of(request))
        params.is_valid(raise_exception=True)
        return params.validated_data["start"], params.validated_data["end"]

    @extend_schema(
        summary="Today's and the last 7 days' figures, per channel and in total",
        responses={200: s.OverviewSerializer, **errors()},
        examples=[
            OpenApiExample(
                "overview",
                value={
                    "day": "2026-11-24",
                    "since": "2026-11-18",
                    "today": TODAY,
                    "last_7_days": WEEK,
                    "channels": [
                        {
                            "channel": "WHATSAPP",
                            "label": "WhatsApp",
                            "today": TODAY,
                            "last_7_days": WEEK,
                        }
                    ],
                },
                response_only=True,
            )
        ],
    )
    @action(detail=False, methods=["get"])
    def overview(self, request: Request) -> Response:
        tenant = tenant_of(request)
        found = analytics.overview(tenant, analytics.local_today(tenant, timezone.now()))
        body = {
            "day": found.day,
            "since": found.since,
            "today": found.total("today"),
            "last_7_days": found.total("week"),
            "channels": found.channels,
        }
        return Response(s.OverviewSerializer(body).data)

    @extend_schema(
        summary="Sent, replies and positive replies per day and channel",
        description=RANGE_NOTE,
        parameters=[s.RangeSerializer],
        responses={200: s.DailySerializer, **errors(400)},
        examples=[TOO_LONG],
    )
    @action(detail=False, methods=["get"])
    def daily(self, request: Request) -> Response:
        start, end = self._range(request)
        days, channels = analytics.channel_series(tenant_of(request), start, end)
        body = {"start": start, "end": end, "days": days, "channels": channels}
        return Response(s.DailySerializer(body).data)

    @extend_schema(
        summary="Results per template version and channel over a range",
        description=(
            "A reply counts for the template version of the last automated message the "
            "lead received before it. " + RANGE_NOTE
        ),
        parameters=[s.RangeSerializer],
        responses={200: s.TemplateResultsSerializer, **errors(400)},
        examples=[TOO_LONG],
    )
    @action(detail=False, methods=["get"])
    def templates(self, request: Request) -> Response:
        start, end = self._range(request)
        rows = analytics.template_results(tenant_of(request), start, end)
        body = {"start": start, "end": end, "results": rows}
        return Response(s.TemplateResultsSerializer(body).data)

    @extend_schema(
        summary="Results per WhatsApp phone and channel over a range",
        description=RANGE_NOTE,
        parameters=[s.RangeSerializer],
        responses={200: s.PhoneResultsSerializer, **errors(400)},
        examples=[TOO_LONG],
    )
    @action(detail=False, methods=["get"])
    def phones(self, request: Request) -> Response:
        start, end = self._range(request)
        rows = analytics.phone_results(tenant_of(request), start, end)
        body = {"start": start, "end": end, "results": rows}
        return Response(s.PhoneResultsSerializer(body).data)

    @extend_schema(
        summary="First human response times per operator and per day over a range",
        description=(
            "Replies received on the range's days (the tenant's local days), and the working "
            "time (the tenant's hours, working days and public holidays) to the first message "
            "a person wrote or approved; docs/response-times.md has the definitions. Read "
            "live, not from the roll-up. " + RANGE_NOTE.split(" Figures")[0]
        ),
        parameters=[s.RangeSerializer],
        responses={200: ResponseTimesSerializer, **errors(400)},
        examples=[
            OpenApiExample(
                "response times",
                value={
                    "start": "2026-11-23",
                    "end": "2026-11-29",
                    "total": {
                        "answered": 5,
                        "closed_without_message": 1,
                        "waiting": 2,
                        "median_seconds": 1800,
                        "p90_seconds": 3600,
                        "within_deadline_percent": 100.0,
                    },
                    "operators": [
                        {
                            "user_id": 7,
                            "name": "Ana Popescu",
                            "answered": 3,
                            "closed_without_message": 1,
                            "waiting": 0,
                            "median_seconds": 600,
                            "p90_seconds": 3600,
                            "within_deadline_percent": 100.0,
                        }
                    ],
                    "days": [
                        {
                            "day": "2026-11-24",
                            "answered": 3,
                            "closed_without_message": 0,
                            "waiting": 0,
                            "median_seconds": 1800,
                            "p90_seconds": 3600,
                            "within_deadline_percent": 100.0,
                        }
                    ],
                },
                response_only=True,
            ),
            TOO_LONG,
        ],
    )
    @action(detail=False, methods=["get"], url_path="response-times")
    def response_times(self, request: Request) -> Response:
        start, end = self._range(request)
        figures = reply_times.response_times(tenant_of(request), start, end)
        return Response(ResponseTimesSerializer(figures).data)
