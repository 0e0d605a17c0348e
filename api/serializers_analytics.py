"""The shapes of the analytics answers: figures read from the roll-up tables
(outreach.analytics; definitions of sent, reply, positive reply there)."""

from __future__ import annotations

from django.utils import timezone
from rest_framework import serializers

from cerniq.models import Tenant
from outreach.analytics import DAILY_FIELDS, RangeInvalid, local_today, report_range
from outreach.models import Channel


class RangeSerializer(serializers.Serializer):
    """Query parameters: the report's days, both included, in the tenant's time zone."""

    start = serializers.DateField(
        required=False, help_text="First day (default: 29 days before `end`)."
    )
    end = serializers.DateField(required=False, help_text="Last day (default: today).")

    def __init__(self, *args, tenant: Tenant | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.tenant = tenant

    def validate(self, data: dict) -> dict:
        today = local_today(self.tenant, timezone.now())
        try:
            data["start"], data["end"] = report_range(today, data.get("start"), data.get("end"))
        except RangeInvalid as invalid:
            field = "end" if invalid.code == "reversed" else "start"
            raise serializers.ValidationError({field: str(invalid)}) from None
        return data


class CountersSerializer(serializers.Serializer):
    """The roll-up's counters (outreach.analytics: sent, new contacts, follow-ups, ...)."""

    def get_fields(self):
        return {name: serializers.IntegerField() for name in DAILY_FIELDS}


class ChannelTotalsSerializer(serializers.Serializer):
    channel = serializers.ChoiceField(Channel.choices)
    label = serializers.CharField()
    today = CountersSerializer()
    last_7_days = CountersSerializer(source="week")


class OverviewSerializer(serializers.Serializer):
    day = serializers.DateField(help_text="Today in the tenant's time zone.")
    since = serializers.DateField(help_text="The first of the last 7 days.")
    today = CountersSerializer()
    last_7_days = CountersSerializer()
    channels = ChannelTotalsSerializer(many=True)


class SeriesSerializer(serializers.Serializer):
    channel = serializers.ChoiceField(Channel.choices)
    label = serializers.CharField()
    sent = serializers.ListField(child=serializers.IntegerField(), help_text="One per day.")
    replies = serializers.ListField(child=serializers.IntegerField())
    positive_replies = serializers.ListField(child=serializers.IntegerField())
    reply_rate = serializers.FloatField(allow_null=True, help_text="Percent of sent.")
    positive_rate = serializers.FloatField(allow_null=True, help_text="Percent of sent.")


class DailySerializer(serializers.Serializer):
    start = serializers.DateField()
    end = serializers.DateField()
    days = serializers.ListField(child=serializers.DateField())
    channels = SeriesSerializer(many=True)


class ResultFields(serializers.Serializer):
    channel = serializers.ChoiceField(Channel.choices)
    sent = serializers.IntegerField()
    replies = serializers.IntegerField()
    positive_replies = serializers.IntegerField()
    reply_rate = serializers.FloatField(allow_null=True, help_text="Percent of sent.")
    positive_rate = serializers.FloatField(allow_null=True, help_text="Percent of sent.")


class TemplateResultSerializer(ResultFields):
    template_version = serializers.IntegerField(source="key")
    template = serializers.CharField(source="name", help_text="The template's name.")
    version = serializers.CharField(source="detail", help_text="e.g. v3")


class PhoneResultSerializer(ResultFields):
    phone = serializers.IntegerField(source="key")
    number = serializers.CharField(source="name")
    label = serializers.CharField(source="detail")
    new_contacts = serializers.IntegerField()
    follow_ups = serializers.IntegerField()


class TemplateResultsSerializer(serializers.Serializer):
    start = serializers.DateField()
    end = serializers.DateField()
    results = TemplateResultSerializer(many=True)


class PhoneResultsSerializer(serializers.Serializer):
    start = serializers.DateField()
    end = serializers.DateField()
    results = PhoneResultSerializer(many=True)
