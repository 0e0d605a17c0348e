"""The shapes of a sequence's results (`GET /api/v1/sequences/{id}/stats/`): the figures
of outreach.analytics.sequences, per step, per template version under each step, and in
total (definitions in docs/figures.md, "Sequence results")."""

from __future__ import annotations

from rest_framework import serializers

from outreach.analytics import RangeInvalid
from outreach.analytics.sequences import check_range
from outreach.models import Channel

PERCENT = "Percent, one decimal; null when its denominator is 0 (or the count is unknown)."


class StatsRangeSerializer(serializers.Serializer):
    """Query parameters: the days the messages went out, in the tenant's time zone."""

    start = serializers.DateField(
        required=False, help_text="First day, included (default: since the first message)."
    )
    end = serializers.DateField(required=False, help_text="Last day, included (default: today).")

    def validate(self, data: dict) -> dict:
        try:
            check_range(data.get("start"), data.get("end"))
        except RangeInvalid as invalid:
            raise serializers.ValidationError({invalid.field: str(invalid)}) from None
        return data


class FiguresSerializer(serializers.Serializer):
    sent = serializers.IntegerField(help_text="Step messages that went out (bounces included).")
    delivered = serializers.IntegerField(
        allow_null=True,
        help_text="Of those, delivered (or read). Null when the provider does not report it.",
    )
    read = serializers.IntegerField(
        allow_null=True,
        help_text="Of those, read (WhatsApp) or opened (email). Null when not reported, "
        "e.g. cold email without open tracking.",
    )
    replied = serializers.IntegerField(
        help_text="Messages that drew a reply: the lead's reply came after it and before the "
        "lead's next automated message. Counted once however many replies."
    )
    positive_replies = serializers.IntegerField(
        source="positive", help_text="Messages that drew a positive reply (AI triage)."
    )
    opt_outs = serializers.IntegerField(help_text="Messages that drew an opt-out reply.")
    bounces = serializers.IntegerField(help_text="Messages that bounced.")
    delivered_of = serializers.IntegerField(
        help_text="The denominator of `delivered_rate`: sent, on the steps that report it."
    )
    read_of = serializers.IntegerField(
        help_text="The denominator of `read_rate`: sent, on the steps that report reads."
    )
    delivered_rate = serializers.FloatField(allow_null=True, help_text=PERCENT)
    read_rate = serializers.FloatField(allow_null=True, help_text=PERCENT)
    reply_rate = serializers.FloatField(allow_null=True, help_text="replied / sent. " + PERCENT)
    positive_rate = serializers.FloatField(
        allow_null=True, help_text="positive_replies / sent. " + PERCENT
    )
    opt_out_rate = serializers.FloatField(allow_null=True, help_text="opt_outs / sent. " + PERCENT)
    bounce_rate = serializers.FloatField(allow_null=True, help_text="bounces / sent. " + PERCENT)


class VersionStatsSerializer(serializers.Serializer):
    template_version = serializers.IntegerField(
        source="version.pk", allow_null=True, help_text="Null: a version deleted since."
    )
    version = serializers.IntegerField(source="version.version", allow_null=True)
    is_active = serializers.BooleanField(source="version.is_active", allow_null=True)
    figures = FiguresSerializer()


class StepStatsSerializer(serializers.Serializer):
    step = serializers.IntegerField(
        source="step.pk", allow_null=True, help_text="Null: a step deleted since."
    )
    position = serializers.IntegerField(source="step.position", allow_null=True)
    sequence_version = serializers.IntegerField(source="step.sequence_version", allow_null=True)
    current = serializers.BooleanField(help_text="A step of the sequence's current version.")
    channel = serializers.ChoiceField(Channel.choices, source="step.channel", allow_null=True)
    template = serializers.IntegerField(source="step.template_id", allow_null=True)
    template_name = serializers.CharField(source="step.template.name", allow_null=True)
    figures = FiguresSerializer(help_text="The sum of its versions.")
    versions = VersionStatsSerializer(
        many=True, help_text="Versions that sent in the range, and the template's active ones."
    )


class SequenceStatsSerializer(serializers.Serializer):
    sequence = serializers.IntegerField(source="sequence.pk")
    name = serializers.CharField(source="sequence.name")
    version = serializers.IntegerField(source="sequence.version", help_text="Current version.")
    start = serializers.DateField(allow_null=True, help_text="Null: since the first message.")
    end = serializers.DateField(allow_null=True, help_text="Null: up to now.")
    total = FiguresSerializer(help_text="The sum of every step.")
    steps = StepStatsSerializer(
        many=True,
        help_text="The current version's steps by position, then older versions' steps that "
        "sent in the range.",
    )
