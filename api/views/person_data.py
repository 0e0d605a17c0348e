"""Everything held about one person as JSON (the data-subject access export of
outreach.person_data, as the lead page and `manage.py export_person` give it)."""

from __future__ import annotations

import json

from django.core.serializers.json import DjangoJSONEncoder
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.auth import tenant_of
from api.docs import errors
from api.serializers_sequences import MAX_ID
from outreach.models import Lead
from outreach.person_data import export_person


def lead_of(request: Request, pk: int) -> Lead:
    """The lead `pk` of the request's workspace, or a 404 (another workspace's too)."""
    tenant = tenant_of(request)
    lead = Lead.objects.filter(tenant=tenant, pk=pk).first() if pk <= MAX_ID else None
    if lead is None:
        raise NotFound()
    return lead


class PersonExportView(APIView):
    @extend_schema(
        summary="Everything held about a lead (data-subject access export)",
        description=(
            "One JSON document: `format`, `exported_at`, `tenant`, `lead_id` and `sections`, "
            "each a list of the stored rows naming the person (`pk` and every stored field): "
            "the lead, its journey and stage history, enrolments, messages (with the "
            "provider's raw requests and responses) and attachments (listed, not embedded), "
            "opt-out records and lifts, do-not-contact entries naming its addresses, the "
            "provider webhooks and import files holding its number or address, the outbound "
            "webhooks about it, review items, triages, responses, notes and read state."
        ),
        responses={
            200: OpenApiResponse(OpenApiTypes.OBJECT, description="The export document."),
            **errors(404),
        },
    )
    def get(self, request: Request, pk: int) -> Response:
        lead = lead_of(request, pk)
        # Through the JSON encoder once: dates and decimals as text, as in the file.
        document = json.loads(json.dumps(export_person(lead), cls=DjangoJSONEncoder))
        return Response(document)
