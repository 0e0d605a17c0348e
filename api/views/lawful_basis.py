"""A lead's lawful basis over the API (outreach.lawful_basis): its records, newest first,
and recording one, as the lead page and the import do."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.auth import api_key
from api.docs import WRITE, errors
from api.views.person_data import lead_of
from outreach import lawful_basis
from outreach.lawful_basis import BasisRefused
from outreach.models import ContactBasis


class BasisSerializer(serializers.ModelSerializer):
    recorded_by = serializers.CharField(source="recorded_by.username", default="")

    class Meta:
        model = ContactBasis
        fields = [
            "id",
            "channel",
            "basis",
            "source",
            "source_detail",
            "evidence",
            "given_at",
            "recorded_by",
            "created_at",
        ]


class BasisWriteSerializer(serializers.Serializer):
    channels = serializers.ListField(
        child=serializers.ChoiceField(lawful_basis.KINDS),
        min_length=1,
        max_length=2,
        help_text="whatsapp, email or both.",
    )
    basis = serializers.ChoiceField(ContactBasis.Basis.choices)
    evidence = serializers.CharField(
        max_length=lawful_basis.EVIDENCE_MAX,
        required=False,
        allow_blank=True,
        help_text="The consent's wording, the page's address, the contract (consent needs it).",
    )
    given_at = serializers.DateTimeField(required=False, allow_null=True)
    # The request's key is "source"; the name shadows Field.source for the type checker only.
    source = serializers.ChoiceField(  # type: ignore[assignment]
        [ContactBasis.Source.API, ContactBasis.Source.FORM, ContactBasis.Source.LEAD_ADS],
        default=ContactBasis.Source.API,
        help_text="Where it was given: recorded by a system (api), a web form, a Lead Ads form.",
    )
    source_detail = serializers.CharField(max_length=255, required=False, allow_blank=True)


class LeadBasisView(APIView):
    @extend_schema(
        summary="A lead's lawful basis records, newest first (the first per channel counts)",
        responses={200: BasisSerializer(many=True), **errors(404)},
    )
    def get(self, request: Request, pk: int) -> Response:
        rows = lead_of(request, pk).bases.select_related("recorded_by").order_by("-created_at")
        return Response(BasisSerializer(rows, many=True).data)

    @extend_schema(
        summary="Record the lawful basis for contacting a lead on channels",
        description=(
            "A new record per channel; it becomes the current basis there. Under a "
            "workspace policy of `require`, a first message waits until one is recorded: "
            "this moves it on at the next dispatch."
        ),
        request=BasisWriteSerializer,
        responses={201: BasisSerializer(many=True), **errors(*WRITE)},
    )
    def post(self, request: Request, pk: int) -> Response:
        lead = lead_of(request, pk)
        body = BasisWriteSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        key = api_key(request)
        detail = data.get("source_detail") or (f"API key {key.name}" if key else "API")
        user = request.user if request.user.is_authenticated else None
        try:
            rows = lawful_basis.record(
                lead,
                channels=data["channels"],
                basis=data["basis"],
                source=data["source"],
                detail=detail,
                evidence=data.get("evidence", ""),
                given_at=data.get("given_at"),
                by=user,
            )
        except BasisRefused as refused:
            raise ValidationError({refused.field: [str(refused)]}) from None
        return Response(BasisSerializer(rows, many=True).data, status=status.HTTP_201_CREATED)
