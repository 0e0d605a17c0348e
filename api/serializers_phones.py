"""What the API shows of WhatsApp phones (status, today's quota, health, next slot) and
the shapes of their request bodies. The rules stay in whatsapp.phones / whatsapp.quota /
whatsapp.warmup."""

from __future__ import annotations

from rest_framework import serializers

from api.fields import BoundedListField, ReasonField
from outreach.hours import Closure
from outreach.next_send import NextSend, Reason
from outreach.next_send_text import holiday_list, reason_text
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


class NextSendSerializer(serializers.Serializer):
    """When something may go out next and why not now: the answer every page shows
    (outreach.next_send)."""

    at = serializers.DateTimeField(
        allow_null=True, help_text="The next moment; null: not until a person acts."
    )
    reason = serializers.ChoiceField(
        [r.value for r in Reason], help_text="Why not now (`now` when it is now)."
    )
    window_closed_because = serializers.ChoiceField(
        [c.value for c in Closure],
        allow_null=True,
        help_text="With `window_closed`: weekend, day_off, holiday or outside_hours.",
    )
    holidays = serializers.ListField(
        child=serializers.CharField(),
        help_text="Public holidays that keep the window shut until `at` (Accept-Language).",
    )
    message = serializers.CharField(help_text="The reason in words (Accept-Language).")


def next_send_body(answer: NextSend) -> dict:
    """A `NextSend` as NextSendSerializer shows it, words in the request's language."""
    return {
        "at": answer.at,
        "reason": answer.reason.value,
        "window_closed_because": answer.closure.value if answer.closure else None,
        "holidays": holiday_list(answer),
        "message": reason_text(answer),
    }


class PhoneSerializer(serializers.ModelSerializer):
    usable = serializers.BooleanField(source="is_usable", help_text="Active and enabled.")
    status_reason = ReasonField(help_text="Why the status changed, in the request's language.")
    quota_today = QuotaTodaySerializer()
    health = HealthSerializer(source="*")
    next_slot = serializers.DateTimeField(
        allow_null=True,
        help_text="When it may send next (pacing, sending window); null when not usable.",
    )
    next_send = NextSendSerializer(help_text="`next_slot` and why it is not now.")

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
            "next_send",
            "last_sent_at",
            "total_sent",
            "total_new_contacts",
            "created_at",
        ]
        read_only_fields = fields


class PhoneCreateSerializer(serializers.Serializer):
    """A new number; its rules (E.164, providers offered, a number once per workspace) are
    whatsapp.numbers.add_phone's."""

    number = serializers.CharField(
        max_length=32, help_text="Any usual notation; Romanian without a country code."
    )
    provider = serializers.CharField(
        max_length=16, help_text="A WhatsApp provider of this deployment, e.g. `timelinesai`."
    )
    account_id = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=128,
        help_text="The account at the provider; empty for TimelinesAI (found from the number).",
    )
    label = serializers.CharField(required=False, allow_blank=True, max_length=64)


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

    steps = BoundedListField(
        child=BoundedListField(
            child=serializers.IntegerField(min_value=1), min_length=2, max_length=2
        ),
        max_length=MAX_DAYS,  # a step a day at most
        help_text=(
            f"[[1, 20], [3, 40], ..., [N, {FULL_LIMIT}]]: day 1 first, days and limits "
            f"growing, the last step at {FULL_LIMIT}, at most day {MAX_DAYS}."
        ),
    )
    text = serializers.CharField(read_only=True, help_text="The same ramp as `1:20, 3:40`.")
    days = serializers.IntegerField(read_only=True, help_text="The day of full volume.")
