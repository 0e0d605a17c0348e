"""The shape of the response-times answer (hitl.response_times; definitions in
docs/response-times.md). Durations are whole seconds of working time."""

from __future__ import annotations

from rest_framework import serializers


def _figure_fields(prefix: str) -> dict[str, serializers.Field]:
    """One group's figures; `prefix` is where they sit on the object serialized."""
    fields: dict[str, serializers.Field] = {
        "answered": serializers.IntegerField(
            source=f"{prefix}answered", help_text="Replies whose first response was a message."
        ),
        "closed_without_message": serializers.IntegerField(
            source=f"{prefix}handled",
            help_text="Replies a person closed in review without writing.",
        ),
        "waiting": serializers.IntegerField(
            source=f"{prefix}waiting", help_text="Replies nobody responded to yet."
        ),
        "median_seconds": serializers.IntegerField(
            source=f"{prefix}median_seconds",
            allow_null=True,
            help_text="Median working time to the first answer.",
        ),
        "p90_seconds": serializers.IntegerField(
            source=f"{prefix}p90_seconds",
            allow_null=True,
            help_text="90% of the replies were answered within this working time.",
        ),
        "within_deadline_percent": serializers.FloatField(
            source=f"{prefix}within_sla_share",
            allow_null=True,
            help_text="Percent of the answered replies answered within their review deadline.",
        ),
    }
    for name, field in fields.items():
        if field.source == name:  # DRF refuses a source equal to the name
            field.source = None
    return fields


class ResponseFiguresSerializer(serializers.Serializer):
    prefix = ""

    def get_fields(self):
        return {**super().get_fields(), **_figure_fields(self.prefix)}


class OperatorResponseTimesSerializer(ResponseFiguresSerializer):
    prefix = "figures."
    user_id = serializers.IntegerField()
    name = serializers.CharField()


class DayResponseTimesSerializer(ResponseFiguresSerializer):
    prefix = "figures."
    day = serializers.DateField(help_text="The reply's day in the tenant's time zone.")


class ResponseTimesSerializer(serializers.Serializer):
    start = serializers.DateField()
    end = serializers.DateField()
    total = ResponseFiguresSerializer()
    operators = OperatorResponseTimesSerializer(
        many=True, help_text="Per person who responded, by name (waiting replies have none)."
    )
    days = DayResponseTimesSerializer(
        many=True, help_text="Per day with at least one reply, oldest first."
    )
