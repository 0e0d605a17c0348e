"""What the API shows of WhatsApp phones (status, today's quota, health, next slot) and
the shapes of their request bodies. The rules stay in whatsapp.phones / whatsapp.quota /
whatsapp.warmup."""

from __future__ import annotations

from rest_framework import serializers

from api.fields import ReasonField
from whatsapp.models import MAX_DAILY_LIMIT, Phone
from whatsapp.warmup import FULL_LIMIT, MAX_DAYS


class QuotaTodaySerializer(serializers.Serializer):
    """Today's new-contact quota (the tenant's local day) and what set its limit."""

    day = serializers.DateField()
    used = serializers.IntegerField()
    limit = serializers.IntegerField()
    remaining = serializers.IntegerField()
    warmup_day = serializers.IntegerField(
        allow_null=True, help_text="Day N of the warm-up ramp; null when not warming up."
    )
    warmup_days = serializers.IntegerField(
        allow_null=True, help_text="The ramp's day of full volume."
    )
    warmup_limit = serializers.IntegerField(allow_null=True)
    throttled = serializers.BooleanField(help_text="The health guard gives it a share only.")


class HealthSerializer(serializers.Serializer):
    state = serializers.ChoiceField(Phone.Health.choices, source="health")
    score = serializers.IntegerField(source="health_score", allow_null=True)
    reason = ReasonField(source="health_reason", help_text="In the request's language.")
    changed_at = serializers.DateTimeField(source="health_changed_at", allow_null=True)
    scored_at = serializers.DateTimeField(source="health_scored_at", allow_null=True)
    hold_until = serializers.DateTimeField(source="health_hold_until", allow_null=True)


class PhoneSerializer(serializers.ModelSerializer):
    usable = serializers.BooleanField(source="is_usable", help_text="Active and enabled.")
    status_reason = ReasonField(help_text="Why the status changed, in the request's language.")
    quota_today = QuotaTodaySerializer()
    health = HealthSerializer(source="*")
    next_slot = serializers.DateTimeField(
        allow_null=True,
        help_text="When it may send next (pacing, sending window); null when not usable.",
    )

    class Meta:
        model = Phone
        fields = [
            "id",
            "number",
            "label",
            "provider",
            "status",
            "status_reason",
            "status_changed_at",
            "is_enabled",
            "usable",
            "daily_limit",
            "warmup_started_at",
            "quota_today",
            "health",
            "next_slot",
            "last_sent_at",
            "total_sent",
            "total_new_contacts",
            "created_at",
        ]
        read_only_fields = fields


class PhoneUpdateSerializer(serializers.Serializer):
    is_enabled = serializers.BooleanField(
        required=False, help_text="A disabled phone sends nothing until enabled."
    )
    daily_limit = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=MAX_DAILY_LIMIT,
        help_text="New contacts a day from the next quota day (the warm-up may lower it).",
    )


class PauseSerializer(serializers.Serializer):
    reason = serializers.CharField(required=False, allow_blank=True, max_length=255)


class WarmupSerializer(serializers.Serializer):
    """The tenant's warm-up ramp: `[from day, new contacts a day]` steps."""

    steps = serializers.ListField(
        child=serializers.ListField(
            child=serializers.IntegerField(min_value=1), min_length=2, max_length=2
        ),
        help_text=(
            f"[[1, 20], [3, 40], ..., [N, {FULL_LIMIT}]]: day 1 first, days and limits "
            f"growing, the last step at {FULL_LIMIT}, at most day {MAX_DAYS}."
        ),
    )
    text = serializers.CharField(read_only=True, help_text="The same ramp as `1:20, 3:40`.")
    days = serializers.IntegerField(read_only=True, help_text="The day of full volume.")
