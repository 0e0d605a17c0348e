"""What the API shows of review items and the shapes of the review actions' bodies. The
rules (who may act, legal resolutions, what is sent) stay in hitl.review."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from api.fields import ReasonField, reason_code
from api.serializers import MessageSerializer
from cerniq.tenancy import display_name
from hitl import review
from hitl.models import ReviewItem
from hitl.review import RESOLVE_STAGES
from outreach.models import Stage


class PersonSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    name = serializers.SerializerMethodField()

    def get_name(self, user) -> str:
        return display_name(user)


class ReviewLeadSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    phone = serializers.CharField()
    email = serializers.CharField()


class ReviewSerializer(serializers.ModelSerializer):
    lead = ReviewLeadSerializer()
    assignee = PersonSerializer(allow_null=True)
    sla_breached = serializers.BooleanField(
        source="is_past_due", help_text="Open and past its SLA due time (hitl.review.past_due)."
    )
    reason = ReasonField(help_text="Why a person must look at it, in the request's language.")
    reason_code = serializers.SerializerMethodField(
        help_text="The machine-readable code of reason ('' for older free text)."
    )

    class Meta:
        model = ReviewItem
        fields = [
            "id",
            "lead",
            "kind",
            "reason",
            "reason_code",
            "priority",
            "status",
            "sla_due_at",
            "sla_breached",
            "sla_breached_at",
            "assignee",
            "assigned_at",
            "intent",
            "sentiment_score",
            "message",
            "created_at",
            "resolved_at",
        ]
        read_only_fields = fields

    def get_reason_code(self, item: ReviewItem) -> str:
        return reason_code(item.reason)


class ReviewDetailSerializer(ReviewSerializer):
    """One item with the message it is about, the AI's analysis and draft, its outcome."""

    message = serializers.SerializerMethodField()
    resolved_by = PersonSerializer(allow_null=True)

    class Meta(ReviewSerializer.Meta):
        fields = [
            *ReviewSerializer.Meta.fields,
            "ai_analysis",
            "ai_draft",
            "resolution",
            "resolved_stage",
            "resolved_by",
        ]
        read_only_fields = fields

    @extend_schema_field(MessageSerializer(allow_null=True))
    def get_message(self, item: ReviewItem) -> dict | None:
        return MessageSerializer(item.message).data if item.message is not None else None


class ReviewSentSerializer(serializers.Serializer):
    review = ReviewDetailSerializer()
    message = MessageSerializer(help_text="The reply queued to the lead.")


class AssignSerializer(serializers.Serializer):
    assignee = serializers.PrimaryKeyRelatedField(
        queryset=get_user_model().objects.none(),
        required=False,
        help_text="A member of the workspace; the acting user when absent.",
    )

    def __init__(self, *args, tenant=None, **kwargs):
        super().__init__(*args, **kwargs)
        if tenant is not None:
            assignee = self.fields["assignee"]
            assert isinstance(assignee, serializers.RelatedField), "declared a related field"
            assignee.queryset = get_user_model().objects.filter(memberships__tenant=tenant)


class SendSerializer(serializers.Serializer):
    text = serializers.CharField(
        max_length=50_000, help_text="The reply to send instead of the AI draft."
    )


class RejectSerializer(serializers.Serializer):
    note = serializers.CharField(
        max_length=review.MAX_NOTE, help_text="Why (kept as the resolution)."
    )


class ResolveSerializer(serializers.Serializer):
    stage = serializers.ChoiceField(
        [(stage, Stage(stage).label) for stage in sorted(RESOLVE_STAGES)],
        required=False,
        help_text="Move the lead there while closing the item; its stage stays when absent.",
    )
    note = serializers.CharField(required=False, allow_blank=True, max_length=review.MAX_NOTE)
