"""Quick replies: list, create, retrieve, change and delete a workspace's canned answers,
saved by outreach.quick_replies.save with the settings page's checks (a 400 names the
field: a taken name, an unknown {{variable}}, broken spintax, a text too long)."""

from __future__ import annotations

from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiExample, extend_schema, extend_schema_view
from rest_framework import mixins, status, viewsets
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from api import serializers_quick_replies as s
from api.auth import acting_user, tenant_of
from api.docs import READ, WRITE, errors
from outreach import quick_replies
from outreach.models import QuickReply
from outreach.quick_replies import QuickReplyData

EXAMPLE = OpenApiExample(
    "a price answer",
    value={
        "name": "pret",
        "channel": "",
        "language": "ro",
        "subject": "",
        "body": "Bună ziua, {{contact_name|stimate client}}! Vă trimit lista de prețuri.",
    },
    request_only=True,
)


def _data(request: Request, partial: bool, current: QuickReply | None) -> QuickReplyData:
    body = s.QuickReplyWriteSerializer(data=request.data, partial=partial)
    body.is_valid(raise_exception=True)
    given = body.validated_data
    base = {
        "name": current.name if current else "",
        "body": current.body if current else "",
        "channel": current.channel if current else "",
        "language": current.language if current else "ro",
        "subject": current.subject if current else "",
    }
    return QuickReplyData(**{**base, **given})


@extend_schema_view(
    list=extend_schema(
        summary="List the workspace's quick replies",
        responses={200: s.QuickReplySerializer(many=True), **errors(400)},
    ),
    retrieve=extend_schema(
        summary="A quick reply", responses={200: s.QuickReplySerializer, **errors(*READ)}
    ),
    create=extend_schema(
        summary="Create a quick reply",
        request=s.QuickReplyWriteSerializer,
        responses={201: s.QuickReplySerializer, **errors(*WRITE)},
        examples=[EXAMPLE],
    ),
    update=extend_schema(
        summary="Replace a quick reply",
        request=s.QuickReplyWriteSerializer,
        responses={200: s.QuickReplySerializer, **errors(*WRITE)},
    ),
    partial_update=extend_schema(
        summary="Change some fields of a quick reply",
        request=s.QuickReplyWriteSerializer,
        responses={200: s.QuickReplySerializer, **errors(*WRITE)},
    ),
    destroy=extend_schema(summary="Delete a quick reply", responses={204: None, **errors(*READ)}),
)
class QuickReplyViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet,
):
    queryset = QuickReply.objects.none()
    serializer_class = s.QuickReplySerializer

    def get_queryset(self) -> QuerySet[QuickReply]:
        if getattr(self, "swagger_fake_view", False):
            return QuickReply.objects.none()
        return QuickReply.objects.filter(tenant=tenant_of(self.request)).select_related(
            "created_by"
        )

    def _save(self, request: Request, current: QuickReply | None, partial: bool) -> QuickReply:
        data = _data(request, partial, current)
        try:
            return quick_replies.save(
                tenant_of(request), data, user=acting_user(request), instance=current
            )
        except quick_replies.QuickReplyInvalid as refused:
            raise ValidationError(refused.problems) from None

    def create(self, request: Request, *args: object, **kwargs: object) -> Response:
        reply = self._save(request, None, partial=False)
        return Response(s.QuickReplySerializer(reply).data, status=status.HTTP_201_CREATED)

    def update(self, request: Request, *args: object, **kwargs: object) -> Response:
        partial = bool(kwargs.get("partial"))
        reply = self._save(request, self.get_object(), partial=partial)
        return Response(s.QuickReplySerializer(reply).data)

    def partial_update(self, request: Request, *args: object, **kwargs: object) -> Response:
        return self.update(request, *args, partial=True, **kwargs)
