"""Messages: send a manual message to a lead (outreach.manual.send_manual, the lead page's
send path, with its refusals as 409 and their reason), and a message's status."""

from __future__ import annotations

from django.db import IntegrityError
from django.db.models import QuerySet
from django.utils.translation import gettext as _
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    extend_schema,
    extend_schema_view,
)
from rest_framework import mixins, status, viewsets
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from api import serializers_messages as s
from api.auth import acting_user, tenant_of
from api.docs import READ, errors
from api.errors import Conflict
from cerniq.models import Tenant
from outreach.manual import SendRefused, send_manual
from outreach.models import Journey, Lead, Message

IDEMPOTENCY_HEADER = "Idempotency-Key"
MAX_IDEMPOTENCY_KEY = 100


def idempotency_key(request: Request, tenant: Tenant) -> str | None:
    """The message's key from the client's `Idempotency-Key` header, within the tenant."""
    raw = request.headers.get(IDEMPOTENCY_HEADER)
    if raw is None:
        return None
    raw = raw.strip()
    if not raw or len(raw) > MAX_IDEMPOTENCY_KEY or not raw.isprintable():
        raise ValidationError(
            {IDEMPOTENCY_HEADER: _("1 to %(n)d printable characters.") % {"n": MAX_IDEMPOTENCY_KEY}}
        )
    return f"api:{tenant.pk}:{raw}"


def already_sent(tenant: Tenant, key: str | None, lead: Lead) -> Message | None:
    """The message an earlier request with the same key queued, if any."""
    if key is None:
        return None
    found = Message.objects.filter(tenant=tenant, idempotency_key=key).first()
    if found is not None and found.lead_id != lead.pk:
        raise Conflict(
            _("This Idempotency-Key was used for a message to another lead."),
            code="idempotency_key_reused",
        )
    return found


@extend_schema_view(
    retrieve=extend_schema(
        summary="A message and its status",
        description=(
            "Any message of your tenant, inbound or outbound: its status (QUEUED, SENDING, "
            "SENT, DELIVERED, READ, FAILED, ...) and when it reached each step."
        ),
        responses={200: s.MessageStatusSerializer, **errors(*READ)},
    ),
)
class MessageViewSet(mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    queryset = Message.objects.none()  # the schema's model; requests use get_queryset
    serializer_class = s.MessageStatusSerializer
    http_method_names = ["get", "post", "head", "options"]

    def get_queryset(self) -> QuerySet[Message]:
        if getattr(self, "swagger_fake_view", False):
            return Message.objects.none()
        return Message.objects.filter(tenant=tenant_of(self.request))

    @extend_schema(
        summary="Send a manual message to a lead",
        description=(
            "Queued through the one send path, as if written on the lead page by the "
            "signed-in operator or the admin who created the key. Refused with 409 "
            "`send_refused` and the reason when the lead opted out of the channel, the "
            "address is suppressed or unsendable, someone else took the conversation over, "
            "or no phone has quota left; nothing is queued then. Poll the message's status "
            "with GET /messages/{id}/. Send an `Idempotency-Key` header to retry safely: a "
            "request repeating a key answers 200 with the message the first one queued."
        ),
        parameters=[
            OpenApiParameter(
                IDEMPOTENCY_HEADER,
                str,
                OpenApiParameter.HEADER,
                required=False,
                description="Up to 100 printable characters, unique per message you mean.",
            )
        ],
        request=s.ManualMessageSerializer,
        responses={
            201: s.MessageStatusSerializer,
            200: s.MessageStatusSerializer,
            **errors(400, 403, 409),
        },
        examples=[
            OpenApiExample(
                "WhatsApp",
                value={"lead": 42, "channel": "WHATSAPP", "text": "Bună ziua, vă sun la 10?"},
                request_only=True,
            ),
            OpenApiExample(
                "email",
                value={
                    "lead": 42,
                    "channel": "EMAIL_WARM",
                    "subject": "Oferta noastră",
                    "text": "Bună ziua, atașez oferta discutată.",
                },
                request_only=True,
            ),
            OpenApiExample(
                "opted out",
                value={
                    "error": {
                        "code": "send_refused",
                        "message": (
                            "This lead opted out of WhatsApp; nothing can be sent to it there."
                        ),
                        "fields": {},
                    }
                },
                response_only=True,
                status_codes=["409"],
            ),
        ],
    )
    def create(self, request: Request) -> Response:
        tenant = tenant_of(request)
        body = s.ManualMessageSerializer(data=request.data, tenant=tenant)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        lead = data["lead"]
        key = idempotency_key(request, tenant)
        earlier = already_sent(tenant, key, lead)
        if earlier is not None:
            return Response(s.MessageStatusSerializer(earlier).data)
        if not Journey.objects.filter(lead=lead).exists():
            raise Conflict(_("This lead has no journey yet."), code="no_journey")
        try:
            message = send_manual(
                lead,
                data["text"],
                user=acting_user(request),
                reason="manual message (API)",
                channel=data["channel"],
                subject=data.get("subject", ""),
                idempotency_key=key,
            )
        except SendRefused as refused:
            raise Conflict(str(refused), code="send_refused") from None
        except IntegrityError:  # the same key sent concurrently: the first one won
            earlier = already_sent(tenant, key, lead)
            if earlier is None:
                raise
            return Response(s.MessageStatusSerializer(earlier).data)
        return Response(s.MessageStatusSerializer(message).data, status=status.HTTP_201_CREATED)
