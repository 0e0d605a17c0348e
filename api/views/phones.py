"""Phones: list, retrieve, update (enabled, daily limit), pause/resume/reactivate, and the
tenant's warm-up ramp. Each action calls the service the phones page calls
(whatsapp.phones, whatsapp.quota, whatsapp.warmup); today's quota and the next slot are
read as the page and the queue view read them (quota.status_many, next_send.phone_answers)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiExample, extend_schema, extend_schema_view
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from api import serializers_phones as s
from api.auth import require_tenant_admin, tenant_of
from api.docs import READ, WRITE, errors
from api.errors import Conflict
from api.pagination import Cursor
from cerniq import reasons
from cerniq.models import Tenant
from outreach.next_send import phone_answers
from whatsapp import numbers, phones, quota, warmup
from whatsapp.models import Phone
from whatsapp.reasons import PAUSED_THROUGH_API

PHONE_EXAMPLE = OpenApiExample(
    "a phone warming up",
    value={
        "id": 3,
        "number": "+40740000003",
        "label": "Vânzări 1",
        "provider": "timelines",
        "status": "ACTIVE",
        "status_reason": "",
        "status_changed_at": None,
        "is_enabled": True,
        "usable": True,
        "daily_limit": 200,
        "warmup_started_at": "2026-11-20T08:00:00Z",
        "quota_today": {
            "day": "2026-11-24",
            "used": 12,
            "limit": 60,
            "remaining": 48,
            "warmup_day": 5,
            "warmup_days": 14,
            "warmup_limit": 60,
            "throttled": False,
        },
        "health": {
            "state": "OK",
            "score": 92,
            "reason": "",
            "changed_at": None,
            "scored_at": "2026-11-24T08:00:00Z",
            "hold_until": None,
        },
        "next_slot": "2026-11-24T09:02:30Z",
        "next_send": {
            "at": "2026-11-24T09:02:30Z",
            "reason": "pacing",
            "window_closed_because": None,
            "holidays": [],
            "message": "The pause between two sends of the number.",
        },
        "last_sent_at": "2026-11-24T09:01:10Z",
        "total_sent": 410,
        "total_new_contacts": 220,
        "created_at": "2026-11-20T08:00:00Z",
    },
    response_only=True,
)


class PhoneOrdering(Cursor):
    ordering = "number"  # unique in a tenant


def present(tenant: Tenant, page: Iterable[Phone]) -> list[Phone]:
    """Give each phone today's quota and its next slot: one query for the quota rows (two
    when a phone is warming up), whatever the page size."""
    page = list(page)
    now = timezone.now()
    today = quota.quota_day(tenant, now)
    statuses = quota.status_many(page, today)
    answers = phone_answers(tenant, page, now)
    for phone in page:
        status, why = statuses[phone.pk], statuses[phone.pk].why
        phone.quota_today = {
            "day": today,
            "used": status.used,
            "limit": status.limit,
            "remaining": status.remaining,
            "warmup_day": why.warmup_day if why else None,
            "warmup_days": why.warmup_days if why else None,
            "warmup_limit": why.warmup_limit if why else None,
            "throttled": bool(why and why.throttled),
        }
        phone.next_send = s.next_send_body(answers[phone.pk])
        phone.next_slot = answers[phone.pk].at
    return page


def _refused(act: Callable[[], None]) -> None:
    try:
        act()
    except phones.PhoneActionRefused as refused:
        raise Conflict(str(refused), code="phone_action_refused") from None


def _ramp_body(ramp: warmup.Ramp) -> dict:
    return {"steps": [list(step) for step in ramp.steps], "text": ramp.as_text(), "days": ramp.days}


@extend_schema_view(
    list=extend_schema(
        summary="List WhatsApp phones",
        description=(
            "Ordered by number, cursor-paged (`page_size` up to 200). Each phone with its "
            "status, today's new-contact quota (the tenant's local day), health and the "
            "time it may send next."
        ),
        responses={200: s.PhoneSerializer(many=True), **errors(400)},
    ),
    retrieve=extend_schema(
        summary="A phone",
        responses={200: s.PhoneSerializer, **errors(*READ)},
        examples=[PHONE_EXAMPLE],
    ),
)
class PhoneViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    queryset = Phone.objects.none()  # the schema's model; requests use get_queryset
    serializer_class = s.PhoneSerializer
    pagination_class = PhoneOrdering
    http_method_names = ["get", "post", "patch", "put", "head", "options"]

    def get_queryset(self) -> QuerySet[Phone]:
        if getattr(self, "swagger_fake_view", False):
            return Phone.objects.none()
        return Phone.objects.filter(tenant=tenant_of(self.request))

    def list(self, request: Request) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        assert page is not None, "the pagination_class above pages every list"
        rows = present(tenant_of(request), page)
        return self.get_paginated_response(s.PhoneSerializer(rows, many=True).data)

    def retrieve(self, request: Request, pk: str | None = None) -> Response:
        return self._phone(self.get_object())

    def _phone(self, phone: Phone) -> Response:
        [phone] = present(tenant_of(self.request), [phone])
        return Response(s.PhoneSerializer(phone).data)

    @extend_schema(
        summary="Add a WhatsApp number (admins)",
        description=(
            "The number is stored in E.164 (`0740 000 101` becomes `+40740000101`); the "
            "provider is one this deployment offers (the sandbox only on a demo server). "
            "The new phone is active, enabled, and starts its warm-up ramp today. A number "
            "the workspace already has is refused with 409 `phone_exists` carrying its "
            "`phone_id`; bad fields with 400 naming each."
        ),
        request=s.PhoneCreateSerializer,
        responses={201: s.PhoneSerializer, **errors(400, 403, 409)},
        examples=[
            OpenApiExample(
                "a TimelinesAI number",
                value={"number": "0740 000 101", "provider": "timelinesai", "label": "Sales 1"},
                request_only=True,
            ),
            PHONE_EXAMPLE,
        ],
    )
    def create(self, request: Request) -> Response:
        require_tenant_admin(request, _("Only an admin of this workspace can add a number."))
        body = s.PhoneCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            phone = numbers.add_phone(tenant_of(request), **body.validated_data)
        except DjangoValidationError as problem:
            raise ValidationError(problem.message_dict) from None
        except numbers.PhoneExists as exists:
            raise Conflict(str(exists), code="phone_exists", phone_id=exists.phone.pk) from None
        [phone] = present(tenant_of(request), [phone])
        return Response(s.PhoneSerializer(phone).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        summary="Enable or disable a phone, or change its daily limit",
        description=(
            "Only the fields sent change. A disabled phone sends nothing until enabled. "
            "The daily limit applies from the next quota day; the warm-up ramp and the "
            "health guard may lower a day's limit below it."
        ),
        request=s.PhoneUpdateSerializer,
        responses={200: s.PhoneSerializer, **errors(*WRITE)},
        examples=[
            OpenApiExample("less volume", value={"daily_limit": 120}, request_only=True),
            PHONE_EXAMPLE,
        ],
    )
    def partial_update(self, request: Request, pk: str | None = None) -> Response:
        phone = self.get_object()
        body = s.PhoneUpdateSerializer(data=request.data, partial=True)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        if "is_enabled" in data:
            phones.set_enabled(phone, data["is_enabled"])
        if "daily_limit" in data:
            _refused(lambda: phones.set_daily_limit(phone, data["daily_limit"]))
        return self._phone(phone)

    @extend_schema(
        summary="Pause an active phone (out of rotation until resumed)",
        request=s.PauseSerializer,
        responses={200: s.PhoneSerializer, **errors(*WRITE, 409)},
    )
    @action(detail=True, methods=["post"])
    def pause(self, request: Request, pk: str | None = None) -> Response:
        phone = self.get_object()
        body = s.PauseSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        reason = body.validated_data.get("reason") or reasons.code(PAUSED_THROUGH_API)
        _refused(lambda: phones.pause(phone, reason))
        return self._phone(phone)

    @extend_schema(
        summary="Resume a paused phone",
        description="A phone the health guard paused comes back throttled.",
        request=None,
        responses={200: s.PhoneSerializer, **errors(*WRITE, 409)},
    )
    @action(detail=True, methods=["post"])
    def resume(self, request: Request, pk: str | None = None) -> Response:
        phone = self.get_object()
        _refused(lambda: phones.resume(phone))
        return self._phone(phone)

    @extend_schema(
        summary="Reactivate a banned phone (it warms up again from day 1)",
        request=None,
        responses={200: s.PhoneSerializer, **errors(*WRITE, 409)},
    )
    @action(detail=True, methods=["post"])
    def reactivate(self, request: Request, pk: str | None = None) -> Response:
        phone = self.get_object()
        _refused(lambda: phones.reactivate(phone))
        return self._phone(phone)

    @extend_schema(
        methods=["GET"],
        summary="The tenant's warm-up ramp",
        request=None,
        responses={200: s.WarmupSerializer, **errors()},
        filters=False,
    )
    @extend_schema(
        methods=["PUT"],
        summary="Replace the tenant's warm-up ramp (admins)",
        description=(
            "A new number, or one back from a ban or a long disconnection, follows it; "
            "today's limits of the warming phones follow at once."
        ),
        request=s.WarmupSerializer,
        responses={200: s.WarmupSerializer, **errors(400, 403)},
        examples=[
            OpenApiExample(
                "two weeks",
                value={"steps": [[1, 20], [3, 40], [7, 90], [14, 200]]},
                request_only=True,
            ),
            OpenApiExample(
                "a ramp that does not end at the full limit",
                value={
                    "error": {
                        "code": "invalid",
                        "message": "Invalid input: steps.",
                        "fields": {
                            "steps": [
                                "The last step must reach the full 200 new contacts a day: "
                                "that is where the ramp ends."
                            ]
                        },
                    }
                },
                response_only=True,
                status_codes=["400"],
            ),
        ],
    )
    @action(detail=False, methods=["get", "put"], pagination_class=None)
    def warmup(self, request: Request) -> Response:
        tenant = tenant_of(request)
        if request.method == "GET":
            return Response(_ramp_body(warmup.ramp_for(tenant.pk)))
        require_tenant_admin(
            request, _("Only an admin of this workspace can change the warm-up ramp.")
        )
        body = s.WarmupSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            ramp = warmup.validate([tuple(step) for step in body.validated_data["steps"]])
        except DjangoValidationError as problem:
            raise ValidationError({"steps": problem.messages}) from None
        quota.change_ramp(tenant, ramp)
        return Response(_ramp_body(ramp))
