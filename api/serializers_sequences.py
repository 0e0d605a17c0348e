"""What the API shows of sequences (steps, versions, enrollments) and its request bodies.

Request serializers describe types only; the rules (a step's channel matches its template,
no link in a first WhatsApp message, a new version when leads run on the old one) stay
with the model and outreach.sequences, as on the sequences page.
"""

from __future__ import annotations

from rest_framework import serializers

from api.fields import BoundedListField, ReasonField, reason_code
from cerniq.model_fields import max_length
from outreach.models import Channel, Sequence, SequenceStep, Stage
from outreach.sequences import MAX_COMPANY_PAUSE_DAYS, MAX_STEPS
from outreach.step_condition_words import kind_choices
from outreach.step_conditions import MAX_CONDITIONS, MAX_HOURS

MAX_ENROLL = 1000  # lead ids per enroll or stop request
MAX_ID = 2**63 - 1  # the largest row id (BigAutoField); a larger one is a 400, not a DB error


def row_id(**kwargs) -> serializers.IntegerField:
    return serializers.IntegerField(min_value=1, max_value=MAX_ID, **kwargs)


class ConditionSerializer(serializers.Serializer):
    """One condition of a step: what must hold for it to go (`kind`), with the hours or
    stages the kind needs."""

    kind = serializers.ChoiceField(kind_choices())
    hours = serializers.IntegerField(
        min_value=1,
        max_value=MAX_HOURS,
        required=False,
        help_text="Required by `whatsapp_not_delivered` and `whatsapp_not_read` (the step "
        "waits until then); ignored by the other kinds.",
    )
    stages = BoundedListField(
        child=serializers.ChoiceField(Stage.choices),
        required=False,
        max_length=len(Stage.choices),
        help_text="Required by `stage_not` (skipped when the lead's stage is one of these); "
        "ignored by the other kinds.",
    )


class StepConditionsSerializer(serializers.Serializer):
    """A step's conditions: the step goes only when every one holds; none, it always goes."""

    def get_fields(self) -> dict:
        # `all` is the stored key; as a class attribute it would shadow the builtin.
        return {
            "all": ConditionSerializer(  # type: ignore[call-arg]
                many=True, max_length=MAX_CONDITIONS, help_text=f"At most {MAX_CONDITIONS}."
            )
        }

    def to_representation(self, instance: dict) -> dict:
        return super().to_representation({"all": (instance or {}).get("all", [])})


class StepSerializer(serializers.ModelSerializer):
    template_name = serializers.CharField(source="template.name", read_only=True)
    conditions = StepConditionsSerializer(read_only=True)

    class Meta:
        model = SequenceStep
        fields = [
            "position",
            "channel",
            "template",
            "template_name",
            "delay_value",
            "delay_unit",
            "conditions",
        ]
        read_only_fields = fields


SEQUENCE_FIELDS = [
    "id",
    "name",
    "description",
    "is_active",
    "stop_on_reply",
    "company_reply",
    "company_pause_days",
    "fallback_sequence",
    "version",
    "created_at",
    "updated_at",
]


class SequenceSerializer(serializers.ModelSerializer):
    steps_count = serializers.IntegerField(read_only=True, help_text="Steps of the version.")
    active_enrollments = serializers.IntegerField(read_only=True)

    class Meta:
        model = Sequence
        fields = [*SEQUENCE_FIELDS, "steps_count", "active_enrollments"]
        read_only_fields = fields


class SequenceVersionSerializer(serializers.Serializer):
    version = serializers.IntegerField()
    enrollments = serializers.IntegerField(help_text="Leads that started on this version.")
    active_enrollments = serializers.IntegerField()
    steps = StepSerializer(many=True)


class SequenceDetailSerializer(SequenceSerializer):
    """A sequence with the steps of its current version and every version's steps (the
    view sets `steps_list` and `versions_list`, gathered in three queries)."""

    steps = StepSerializer(
        source="steps_list", many=True, read_only=True, help_text="Of the current version."
    )
    versions = SequenceVersionSerializer(
        source="versions_list", many=True, read_only=True, help_text="Newest first."
    )

    class Meta(SequenceSerializer.Meta):
        fields = [*SequenceSerializer.Meta.fields, "steps", "versions"]
        read_only_fields = fields


class StepWriteSerializer(serializers.Serializer):
    channel = serializers.ChoiceField(Channel.choices)
    template = row_id(help_text="A template of your tenant, same channel.")
    delay_value = serializers.IntegerField(min_value=0, max_value=10000, default=0)
    delay_unit = serializers.ChoiceField(
        SequenceStep.DelayUnit.choices, default=SequenceStep.DelayUnit.WORKING_DAYS
    )
    conditions = StepConditionsSerializer(
        required=False, help_text="Left out: none (the step always goes)."
    )


class SequenceWriteSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200, required=False)
    description = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=max_length(Sequence, "description"),
    )
    is_active = serializers.BooleanField(required=False)
    stop_on_reply = serializers.BooleanField(
        required=False,
        help_text="true: a reply stops the sequence; false: a nurture sequence, going on "
        "after a reply unless it is negative or an opt-out.",
    )
    company_reply = serializers.ChoiceField(
        Sequence.CompanyReply.choices,
        required=False,
        help_text="What a reply from one contact does to the other contacts of the same "
        "company in this sequence.",
    )
    company_pause_days = serializers.IntegerField(
        min_value=1,
        max_value=MAX_COMPANY_PAUSE_DAYS,
        required=False,
        help_text="How long `pause` pauses them.",
    )
    fallback_sequence = row_id(
        required=False, allow_null=True, help_text="Another sequence of your tenant, or null."
    )
    # many=True passes max_length on to DRF's ListSerializer; the stubs do not list it.
    steps = StepWriteSerializer(  # type: ignore[call-arg]
        many=True,
        required=False,
        allow_empty=False,
        max_length=MAX_STEPS,
        help_text="All steps, in order; they replace the current ones (a new version when "
        f"leads run on the current one; unchanged steps keep the version). At most {MAX_STEPS}.",
    )


class SequenceCreateSerializer(SequenceWriteSerializer):
    name = serializers.CharField(max_length=200)
    # many=True passes max_length on to DRF's ListSerializer; the stubs do not list it.
    steps = StepWriteSerializer(  # type: ignore[call-arg]
        many=True, allow_empty=False, max_length=MAX_STEPS, help_text=f"At most {MAX_STEPS}."
    )


class LeadIdsSerializer(serializers.Serializer):
    lead_ids = BoundedListField(
        child=row_id(),
        min_length=1,
        max_length=MAX_ENROLL,
        help_text=f"Up to {MAX_ENROLL} lead ids.",
    )


class StopSerializer(serializers.Serializer):
    lead_ids = BoundedListField(
        child=row_id(),
        required=False,
        min_length=1,
        max_length=MAX_ENROLL,
        help_text="Only these leads; all the sequence's running leads when left out.",
    )
    reason = serializers.CharField(max_length=64, default="stopped")


class EnrollOutcomeSerializer(serializers.Serializer):
    lead_id = serializers.IntegerField()
    enrolled = serializers.BooleanField()
    reason = ReasonField(help_text="Why not, in the request's language; empty when enrolled.")
    reason_code = serializers.SerializerMethodField(
        help_text="Why not, as a stable code (e.g. `enroll.opted_out`, `enroll.unreachable`); "
        "empty when enrolled."
    )

    def get_reason_code(self, outcome: dict) -> str:
        return reason_code(outcome["reason_code"])


class EnrollResultSerializer(serializers.Serializer):
    enrolled = serializers.IntegerField()
    skipped = serializers.IntegerField()
    results = EnrollOutcomeSerializer(many=True)


class StopResultSerializer(serializers.Serializer):
    stopped = serializers.ListField(child=serializers.IntegerField(), help_text="Lead ids.")
