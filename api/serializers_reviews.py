"""What the API shows of review items and the shapes of the review actions' bodies. The
rules (who may act, legal resolutions, what is sent) stay in hitl.review."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.utils import timezone
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from api.fields import ReasonField, reason_code
from api.serializers import MessageSerializer
from api.serializers_sequences import MAX_ID
from cerniq.models import Tenant
from cerniq.tenancy import display_name
from hitl import review, review_queue
from hitl.models import ReviewItem
from hitl.review import RESOLVE_STAGES
from hitl.triage.base import intent_label
from outreach.hours import SendingWindow
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


class SentimentSerializer(serializers.Serializer):
    score = serializers.IntegerField(help_text="From −100 (hostile) to 100 (keen).")
    tone = serializers.ChoiceField(
        ["negative", "neutral", "positive"], help_text="The band the review page colours."
    )
    tone_label = serializers.CharField(help_text="The tone in the request's language.")


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
    intent_label = serializers.SerializerMethodField(
        help_text="The intent in the request's language ('' when none)."
    )
    sentiment = serializers.SerializerMethodField(help_text="sentiment_score read on its scale.")
    priority_reason = serializers.SerializerMethodField(
        help_text=(
            "Why the item has its priority, in the request's language: the rules routing "
            "found, and a raise after a missed deadline."
        )
    )
    sla_due_in = serializers.SerializerMethodField(
        help_text="'due in 1h 05m' or 'overdue by 12m' in working time, as of the request."
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
            "intent_label",
            "sentiment_score",
            "sentiment",
            "priority_reason",
            "sla_due_in",
            "message",
            "created_at",
            "resolved_at",
        ]
        read_only_fields = fields

    def get_reason_code(self, item: ReviewItem) -> str:
        return reason_code(item.reason)

    def get_intent_label(self, item: ReviewItem) -> str:
        return intent_label(item.intent) if item.intent else ""

    @extend_schema_field(SentimentSerializer(allow_null=True))
    def get_sentiment(self, item: ReviewItem) -> dict | None:
        found = review_queue.sentiment(item.sentiment_score)
        if found is None:
            return None
        return {"score": found.score, "tone": found.tone, "tone_label": found.label}

    def get_priority_reason(self, item: ReviewItem) -> str:
        return review_queue.priority_reason(item)

    def get_sla_due_in(self, item: ReviewItem) -> str:
        """In working time, as the SLA counts it (the tenant's window, read once)."""
        windows = self.context.setdefault("sla_windows", {})
        if item.tenant_id not in windows:
            windows[item.tenant_id] = SendingWindow.for_tenant(
                Tenant.objects.get(pk=item.tenant_id)
            )
        return review_queue.countdown(windows[item.tenant_id], item.sla_due_at, timezone.now()).text


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


class BulkSerializer(serializers.Serializer):
    action = serializers.ChoiceField(list(review_queue.BULK_ACTIONS))
    items = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=MAX_ID),
        min_length=1,
        max_length=review_queue.BULK_LIMIT,
        help_text="Review item ids of this workspace.",
    )
    assignee = serializers.PrimaryKeyRelatedField(
        queryset=get_user_model().objects.none(),
        required=False,
        help_text="assign: the member of the workspace to give the items to.",
    )
    note = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=review.MAX_NOTE,
        help_text="reject: why (required); resolve: an optional note.",
    )

    def __init__(self, *args, tenant=None, **kwargs):
        super().__init__(*args, **kwargs)
        if tenant is not None:
            assignee = self.fields["assignee"]
            assert isinstance(assignee, serializers.RelatedField), "declared a related field"
            assignee.queryset = get_user_model().objects.filter(memberships__tenant=tenant)

    def validate(self, attrs: dict) -> dict:
        if attrs["action"] == review_queue.ASSIGN and attrs.get("assignee") is None:
            raise serializers.ValidationError({"assignee": "Required to assign."})
        return attrs


class BulkRefusalSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    reason = serializers.CharField()


class BulkResultSerializer(serializers.Serializer):
    done = serializers.ListField(child=serializers.IntegerField())
    refused = BulkRefusalSerializer(many=True)
    summary = serializers.CharField(help_text="'3 resolved, 1 refused: …', as the page says.")
