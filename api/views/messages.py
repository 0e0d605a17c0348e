"""Messages: send a manual message to a lead (outreach.manual.send_manual, the lead page's
send path, with its refusals as 409 and their reason), and a message's status."""

from __future__ import annotations

from django.db.models import QuerySet
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiExample, extend_schema, extend_schema_view
from rest_framework import mixins, status, viewsets
from rest_framework.request import Request
from rest_framework.response import Response

from api import serializers_messages as s
from api.auth import acting_user, tenant_of
from api.docs import READ, errors
from api.errors import Conflict
from outreach.manual import SendRefused, send_manual
from outreach.models import Journey, Message


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
            "with GET /messages/{id}/."
        ),
        request=s.ManualMessageSerializer,
        responses={201: s.MessageStatusSerializer, **errors(400, 403, 409)},
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
        body = s.ManualMessageSerializer(data=request.data, tenant=tenant_of(request))
        body.is_valid(raise_exception=True)
        data = body.validated_data
        lead = data["lead"]
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
            )
        except SendRefused as refused:
            raise Conflict(str(refused), code="send_refused") from None
        return Response(s.MessageStatusSerializer(message).data, status=status.HTTP_201_CREATED)
