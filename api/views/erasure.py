"""Erasing a person over the API (outreach.erasure, as the lead page does it), and its
record: the audit row and the receipt of each provider told."""

from __future__ import annotations

from django.utils.translation import gettext_lazy
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.auth import acting_user, require_tenant_admin
from api.docs import WRITE, errors
from api.errors import Conflict
from api.views.person_data import lead_of
from outreach.erasure import ErasureRefused, check_reason, erase_person
from outreach.models import Erasure, Propagation

ADMIN_ONLY = gettext_lazy("Only a workspace admin can erase a person.")


class EraseRequestSerializer(serializers.Serializer):
    reason = serializers.CharField(
        max_length=2000, help_text="Who asked, when and how (at least 15 characters)."
    )


class ReceiptSerializer(serializers.ModelSerializer):
    class Meta:
        model = Propagation
        fields = [
            "cause",
            "provider",
            "action",
            "state",
            "attempts",
            "answer",
            "last_error",
            "requested_at",
            "applied_at",
            "next_attempt_at",
        ]


class ErasureSerializer(serializers.ModelSerializer):
    lead_id = serializers.IntegerField(source="lead_ref")
    requested_by = serializers.CharField(
        source="requested_by.username", default="", help_text="Who asked for it here."
    )
    receipts = ReceiptSerializer(many=True, read_only=True)

    class Meta:
        model = Erasure
        fields = ["id", "lead_id", "requested_by", "via", "reason", "created_at", "scrubbed"]
        fields += ["receipts"]


class EraseView(APIView):
    @extend_schema(
        summary="The erasure of a lead (its audit row and provider receipts)",
        responses={200: ErasureSerializer, **errors(404)},
    )
    def get(self, request: Request, pk: int) -> Response:
        erasure = lead_of(request, pk).erasures.prefetch_related("receipts").first()
        if erasure is None:
            raise NotFound(gettext_lazy("This lead has not been erased."))
        return Response(ErasureSerializer(erasure).data)

    @extend_schema(
        summary="Erase a person (a request to be forgotten)",
        description=(
            "Admins only. Blanks every personal field held about the lead (names, numbers, "
            "addresses, message texts, notes, provider payloads; counts and stages stay), "
            "asks every provider holding the person to delete them (a receipt each: "
            "`receipts`, applied within seconds, retried until the provider confirms), and "
            "keeps the phone and address on the do-not-contact list as one-way hashes, so "
            "the person is never imported or messaged again. Cannot be undone. A lead "
            "already erased is a 409."
        ),
        request=EraseRequestSerializer,
        responses={201: ErasureSerializer, **errors(*WRITE, 409)},
    )
    def post(self, request: Request, pk: int) -> Response:
        require_tenant_admin(request, str(ADMIN_ONLY))
        lead = lead_of(request, pk)
        body = EraseRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            reason = check_reason(body.validated_data["reason"])
        except ErasureRefused as refused:
            raise ValidationError({"reason": [str(refused)]}) from None
        try:
            erasure = erase_person(
                lead, by=acting_user(request), reason=reason, via=Erasure.Via.API
            )
        except ErasureRefused as refused:
            raise Conflict(str(refused), code="already_erased") from None
        return Response(ErasureSerializer(erasure).data, status=status.HTTP_201_CREATED)
