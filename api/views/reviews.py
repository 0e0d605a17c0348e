"""Reviews: list, retrieve, assign, approve the draft, edit and send, reject, resolve with a
stage. Each action calls the hitl.review function the review page calls; a ReviewError (an
item already closed, assigned to someone else, a refused send) is a 409 with its reason."""

from __future__ import annotations

from collections.abc import Callable

from django.db.models import BooleanField, ExpressionWrapper, QuerySet
from django.utils import timezone
from drf_spectacular.utils import OpenApiExample, extend_schema, extend_schema_view
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from api import serializers_reviews as s
from api.auth import acting_user, tenant_of
from api.docs import READ, WRITE, errors
from api.errors import Conflict
from api.filters_reviews import ReviewFilter
from api.pagination import Cursor
from api.serializers import MessageSerializer
from hitl import review, review_queue
from hitl.models import ReviewItem
from hitl.review import past_due

REFUSED_EXAMPLE = OpenApiExample(
    "assigned to someone else",
    value={
        "error": {
            "code": "review_refused",
            "message": "This item is assigned to Ana Pop; assign it to yourself first.",
            "fields": {},
        }
    },
    response_only=True,
    status_codes=["409"],
)


class QueueOrder(Cursor):
    ordering = ("sla_due_at", "pk")  # the review page's order: the most pressing first


def _refused(act: Callable[[], object]) -> object:
    try:
        return act()
    except review.ReviewError as refused:
        raise Conflict(str(refused), code="review_refused") from None


@extend_schema_view(
    list=extend_schema(
        summary="List review items",
        description=(
            "In queue order (SLA due time first), cursor-paged (`page_size` up to 200). "
            "Every status unless `status` is given: `status=OPEN&status=ASSIGNED` is the "
            "review page's queue."
        ),
        responses={200: s.ReviewSerializer(many=True), **errors(400)},
    ),
    retrieve=extend_schema(
        summary="A review item with its message, the AI's analysis and draft",
        responses={200: s.ReviewDetailSerializer, **errors(*READ)},
    ),
)
class ReviewViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    queryset = ReviewItem.objects.none()  # the schema's model; requests use get_queryset
    filterset_class = ReviewFilter
    pagination_class = QueueOrder
    http_method_names = ["get", "post", "head", "options"]

    def get_queryset(self) -> QuerySet[ReviewItem]:
        if getattr(self, "swagger_fake_view", False):
            return ReviewItem.objects.none()
        return (
            ReviewItem.objects.filter(tenant=tenant_of(self.request))
            .select_related("lead", "assignee", "resolved_by", "message")
            .annotate(is_past_due=ExpressionWrapper(past_due(timezone.now()), BooleanField()))
        )

    def filter_queryset(self, queryset: QuerySet[ReviewItem]) -> QuerySet[ReviewItem]:
        """Filters narrow the list only: an item's own URL finds it whatever the query."""
        return super().filter_queryset(queryset) if self.action == "list" else queryset

    def get_serializer_class(self):
        return s.ReviewSerializer if self.action == "list" else s.ReviewDetailSerializer

    def _item(self, pk: str | None) -> Response:
        return Response(s.ReviewDetailSerializer(self.get_queryset().get(pk=pk)).data)

    @extend_schema(
        summary="Assign the item (to the acting user unless `assignee` is given)",
        description=(
            "An assigned item is acted on by its assignee only; anyone in the workspace may "
            "take it over by assigning it to themselves."
        ),
        request=s.AssignSerializer,
        responses={200: s.ReviewDetailSerializer, **errors(*WRITE, 409)},
        examples=[OpenApiExample("to Ana", value={"assignee": 7}, request_only=True)],
    )
    @action(detail=True, methods=["post"])
    def assign(self, request: Request, pk: str | None = None) -> Response:
        item = self.get_object()
        body = s.AssignSerializer(data=request.data, tenant=tenant_of(request))
        body.is_valid(raise_exception=True)
        user = body.validated_data.get("assignee") or acting_user(request)
        _refused(lambda: review.assign(item, user))
        return self._item(pk)

    @extend_schema(
        summary="Approve the AI draft: send it and resolve the item",
        description="The reply goes out on the channel the lead wrote on.",
        request=None,
        responses={201: s.ReviewSentSerializer, **errors(*WRITE, 409)},
        examples=[REFUSED_EXAMPLE],
    )
    @action(detail=True, methods=["post"])
    def approve(self, request: Request, pk: str | None = None) -> Response:
        item = self.get_object()
        message = _refused(lambda: review.approve_draft(item, acting_user(request)))
        return self._sent(pk, message)

    @extend_schema(
        summary="Edit and send: send your text instead of the draft, resolve the item",
        request=s.SendSerializer,
        responses={201: s.ReviewSentSerializer, **errors(*WRITE, 409)},
        examples=[
            OpenApiExample(
                "edited reply",
                value={"text": "Bună ziua, vă sun mâine la 10."},
                request_only=True,
            ),
            REFUSED_EXAMPLE,
        ],
    )
    @action(detail=True, methods=["post"])
    def send(self, request: Request, pk: str | None = None) -> Response:
        item = self.get_object()
        body = s.SendSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        text = body.validated_data["text"]
        message = _refused(lambda: review.approve_draft(item, acting_user(request), text=text))
        return self._sent(pk, message)

    def _sent(self, pk: str | None, message) -> Response:
        item = self.get_queryset().get(pk=pk)
        return Response(
            {
                "review": s.ReviewDetailSerializer(item).data,
                "message": MessageSerializer(message).data,
            },
            status=status.HTTP_201_CREATED,
        )

    @extend_schema(
        summary="Reject: close the item without sending anything",
        request=s.RejectSerializer,
        responses={200: s.ReviewDetailSerializer, **errors(*WRITE, 409)},
        examples=[OpenApiExample("spam", value={"note": "spam"}, request_only=True)],
    )
    @action(detail=True, methods=["post"])
    def reject(self, request: Request, pk: str | None = None) -> Response:
        item = self.get_object()
        body = s.RejectSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        note = body.validated_data["note"]
        _refused(lambda: review.reject(item, acting_user(request), note))
        return self._item(pk)

    @extend_schema(
        summary="Resolve the item, optionally moving the lead to a closing stage",
        description=(
            "`stage`: NEGOTIATION, CONVERTED or DEAD, when the move is legal from the "
            "lead's stage (409 with the reason otherwise)."
        ),
        request=s.ResolveSerializer,
        responses={200: s.ReviewDetailSerializer, **errors(*WRITE, 409)},
        examples=[
            OpenApiExample(
                "won",
                value={"stage": "NEGOTIATION", "note": "asked for an offer"},
                request_only=True,
            )
        ],
    )
    @action(detail=True, methods=["post"])
    def resolve(self, request: Request, pk: str | None = None) -> Response:
        item = self.get_object()
        body = s.ResolveSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        _refused(
            lambda: review.resolve(
                item, acting_user(request), stage=data.get("stage"), note=data.get("note", "")
            )
        )
        return self._item(pk)

    @extend_schema(
        summary="Assign, resolve or reject several items at once",
        description=(
            "Each item goes through the same action as its own endpoint, in a transaction of "
            "its own: an item refused (closed meanwhile, assigned to someone else, another "
            "workspace's) is listed with the reason and does not stop the others. 200 even "
            "when some are refused."
        ),
        request=s.BulkSerializer,
        responses={200: s.BulkResultSerializer, **errors(400, 403)},
        examples=[
            OpenApiExample(
                "reject two",
                value={"action": "reject", "items": [12, 13], "note": "spam"},
                request_only=True,
            )
        ],
    )
    @action(detail=False, methods=["post"])
    def bulk(self, request: Request) -> Response:
        tenant = tenant_of(request)
        body = s.BulkSerializer(data=request.data, tenant=tenant)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        ids = list(dict.fromkeys(data["items"]))
        items = list(
            ReviewItem.objects.filter(tenant=tenant, pk__in=ids)
            .select_related("lead")
            .order_by("pk")
        )
        result = review_queue.bulk(
            items,
            data["action"],
            acting_user(request),
            assignee=data.get("assignee"),
            note=data.get("note", ""),
            missing=sorted(set(ids) - {item.pk for item in items}),
        )
        return Response(
            {
                "done": [item.pk for item in result.done],
                "refused": [{"id": r.id, "reason": r.reason} for r in result.refused],
                "summary": result.summary,
            }
        )
