"""What the API shows of leads, journeys and messages, and the shapes of its request bodies.

Request serializers only describe types (for the schema); the rules (CUI, E.164, email,
dedupe, legal stage moves) stay with the services the pages use.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from rest_framework import serializers

from api.fields import ReasonField, reason_code
from api.serializers_readiness import ImportReadinessField, ReadinessField, RejectedRowsField
from outreach.models import (
    Channel,
    ImportJob,
    Journey,
    Lead,
    Message,
    OptOutRecord,
    Priority,
    Stage,
    StageTransition,
)


class ErrorDetailSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="A stable code, e.g. invalid, not_found, conflict.")
    message = serializers.CharField(help_text="What went wrong, for a person.")
    fields = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        help_text="Problems per field (nested fields as parent.child); empty otherwise.",
    )


class ErrorSerializer(serializers.Serializer):
    error = ErrorDetailSerializer()


def _blank_or(choices) -> serializers.ChoiceField:
    """A read-only choice that may be empty (read_only_fields would drop allow_blank)."""
    return serializers.ChoiceField(choices, allow_blank=True, read_only=True)


class JourneySerializer(serializers.ModelSerializer):
    taken_over_by: serializers.PrimaryKeyRelatedField[User] = serializers.PrimaryKeyRelatedField(
        read_only=True, allow_null=True
    )
    previous_stage = _blank_or(Stage.choices)
    last_channel = _blank_or(Channel.choices)
    review_priority = _blank_or(Priority.choices)
    review_reason = ReasonField(help_text="Why the lead needs review, in the request's language.")
    review_reason_code = serializers.SerializerMethodField(
        help_text="The machine-readable code of review_reason ('' for older free text)."
    )

    class Meta:
        model = Journey
        fields = [
            "stage",
            "previous_stage",
            "stage_changed_at",
            "last_channel",
            "assigned_phone",
            "current_sequence",
            "sequence_step",
            "next_action_at",
            "requires_human_review",
            "review_reason",
            "review_reason_code",
            "review_priority",
            "taken_over_by",
            "taken_over_at",
            "whatsapp_opted_out",
            "email_opted_out",
            "first_contact_at",
            "last_contact_at",
            "last_reply_at",
            "reply_count",
            "updated_at",
        ]
        read_only_fields = fields

    def get_review_reason_code(self, journey: Journey) -> str:
        return reason_code(journey.review_reason)


LEAD_FIELDS = [
    "id",
    "company",
    "company_name",
    "name",
    "cui",
    "county",
    "locality",
    "contact_name",
    "phone",
    "phone_reachable",
    "email",
    "email_status",
    "custom_fields",
    "source",
    "tags",
    "created_at",
    "updated_at",
    "erased_at",
]


class LeadSerializer(serializers.ModelSerializer):
    # A nested serializer, bound once per list, not one built per lead (bench/api.py: that
    # cost 72 % of a list's CPU). A lead without a journey gives null.
    journey = JourneySerializer(read_only=True, allow_null=True)
    readiness = ReadinessField(
        help_text="Can outreach reach this lead now, per channel, and why not "
        "(outreach's one readiness rule, as the lead page shows it)."
    )
    phone_reachable = serializers.BooleanField(
        read_only=True,
        allow_null=True,
        help_text="true: a WhatsApp message reached the number; false: not on WhatsApp; "
        "null: nobody has checked yet.",
    )
    erased_at = serializers.DateTimeField(
        read_only=True,
        allow_null=True,
        help_text="When the person was erased on request (their fields are blanked); null: "
        "not erased.",
    )
    company = serializers.IntegerField(
        source="company_id",
        read_only=True,
        help_text="The id of the lead's company (/api/v1/companies/): name, cui, county and "
        "locality are its fields, shown on each of its contacts.",
    )
    company_name = serializers.CharField(
        source="name", read_only=True, help_text="The company's name (as `name`)."
    )

    class Meta:
        model = Lead
        fields = [*LEAD_FIELDS, "journey", "readiness"]
        read_only_fields = fields


class StageTransitionSerializer(serializers.ModelSerializer):
    reason = ReasonField(help_text="Why the stage changed, in the request's language.")
    reason_code = serializers.SerializerMethodField(
        help_text="The machine-readable code of reason ('' for free text an operator typed)."
    )

    class Meta:
        model = StageTransition
        fields = [
            "from_stage",
            "to_stage",
            "reason",
            "reason_code",
            "by_user",
            "by_system",
            "created_at",
        ]
        read_only_fields = fields

    def get_reason_code(self, row: StageTransition) -> str:
        return reason_code(row.reason)


class OptOutLiftSerializer(serializers.Serializer):
    by_user = serializers.IntegerField(source="by_user_id")
    reason = serializers.CharField()
    whatsapp_opted_out_at = serializers.DateTimeField(allow_null=True)
    email_opted_out_at = serializers.DateTimeField(allow_null=True)
    created_at = serializers.DateTimeField()


class OptOutRecordSerializer(serializers.Serializer):
    by_user = serializers.IntegerField(source="by_user_id")
    channel = serializers.ChoiceField(
        OptOutRecord.AskedOn.choices, source="asked_on", help_text="Where the lead asked."
    )
    reason = serializers.CharField()
    created_at = serializers.DateTimeField()


class OptOutsSerializer(serializers.Serializer):
    whatsapp = serializers.BooleanField()
    whatsapp_at = serializers.DateTimeField(allow_null=True)
    email = serializers.BooleanField()
    email_at = serializers.DateTimeField(allow_null=True)
    records = OptOutRecordSerializer(
        many=True, help_text="Opt-outs recorded by a person (newest first), with the reason."
    )
    lifts = OptOutLiftSerializer(many=True)


class LeadDetailSerializer(LeadSerializer):
    """One lead with its journey, stage history, opt-outs and the stages it may move to."""

    stage_history = StageTransitionSerializer(many=True)
    opt_outs = OptOutsSerializer()
    allowed_stages = serializers.ListField(child=serializers.ChoiceField(Stage.choices))

    class Meta(LeadSerializer.Meta):
        fields = [*LeadSerializer.Meta.fields, "stage_history", "opt_outs", "allowed_stages"]
        read_only_fields = fields


class LeadWriteSerializer(serializers.Serializer):
    """A lead's contact data; validated by the import's rules (outreach.lead_entry)."""

    company = serializers.IntegerField(
        required=False,
        help_text="A company of yours (id): the lead becomes a contact of it (then leave out "
        "name, cui, county and locality, which are the company's).",
    )
    name = serializers.CharField(
        required=False,
        allow_blank=True,
        help_text="Company name. Name, cui, county and locality are the company's: changing "
        "one changes it for every contact of the company.",
    )
    cui = serializers.CharField(
        required=False, allow_blank=True, help_text="Romanian tax id; the checksum is checked."
    )
    county = serializers.CharField(required=False, allow_blank=True)
    locality = serializers.CharField(required=False, allow_blank=True)
    contact_name = serializers.CharField(required=False, allow_blank=True)
    phone = serializers.CharField(
        required=False, allow_blank=True, help_text="Any form; stored as E.164 (RO default)."
    )
    phone_reachable = serializers.BooleanField(required=False, allow_null=True)
    email = serializers.CharField(required=False, allow_blank=True)
    email_status = serializers.CharField(
        required=False,
        allow_blank=True,
        help_text="valid, invalid, risky, catch-all or unknown.",
    )
    custom_fields = serializers.DictField(child=serializers.CharField(), required=False)


class LeadCreateSerializer(LeadWriteSerializer):
    name = serializers.CharField(
        required=False,
        help_text="Company name (required unless `company` is given): the company with the "
        "CUI sent, else a new one, is the lead's.",
    )


class TransitionSerializer(serializers.Serializer):
    stage = serializers.ChoiceField(Stage.choices, help_text="The stage to move the lead to.")
    reason = serializers.CharField(required=False, allow_blank=True, max_length=255)


class HandBackSerializer(serializers.Serializer):
    stage = serializers.ChoiceField(Stage.choices, required=False)
    resume = serializers.BooleanField(
        default=True, help_text="Put the lead back in the sequence the takeover stopped."
    )


class RecordOptOutSerializer(serializers.Serializer):
    channel = serializers.ChoiceField(
        OptOutRecord.AskedOn.choices,
        help_text="Where the lead asked to stop: `whatsapp`, `email`, or `all` for another way "
        "(a phone call, in person). Every channel stops whichever it is.",
    )
    reason = serializers.CharField(
        allow_blank=True,
        trim_whitespace=False,
        help_text="Who asked, when and how: 15 to 1000 characters, kept in the lead's history.",
    )


class EnrollSerializer(serializers.Serializer):
    sequence = serializers.IntegerField(help_text="The id of an active sequence of yours.")


class MessageSerializer(serializers.ModelSerializer):
    ai_drafted = serializers.BooleanField(
        read_only=True,
        help_text="The text is an AI draft: approved by `sent_by`, or sent automatically when "
        "`sent_by` is null.",
    )
    ai_draft_edited = serializers.BooleanField(
        read_only=True, help_text="The approving person changed the AI draft before sending."
    )

    class Meta:
        model = Message
        fields = [
            "id",
            "channel",
            "direction",
            "status",
            "subject",
            "body",
            "is_manual",
            "ai_drafted",
            "ai_draft_edited",
            "phone",
            "sent_by",
            "template_version",
            "sequence",
            "error",
            "scheduled_for",
            "sent_at",
            "delivered_at",
            "read_at",
            "failed_at",
            "created_at",
        ]
        read_only_fields = fields


class ImportJobSerializer(serializers.ModelSerializer):
    contact_readiness = ImportReadinessField(
        help_text="The new leads by contact readiness: how many can be contacted now, how "
        "many will be contacted though nobody checked their number or address yet, how "
        "many cannot be contacted, each per reason; null for a dry run or a running job."
    )
    rejected = RejectedRowsField(
        help_text="Rejected rows: `line`, `reason` (in the request's language) and "
        "`reason_code` (empty for a reason stored before codes)."
    )
    flagged = RejectedRowsField(
        help_text="Rows imported but worth a look (a phone or email a contact of another "
        "company has; the reason names that company): `line`, `reason`, `reason_code`."
    )
    error = ReasonField(
        help_text="Why the whole file failed, in the request's language (empty otherwise)."
    )

    class Meta:
        model = ImportJob
        fields = [
            "id",
            "status",
            "file_name",
            "dry_run",
            "total_rows",
            "processed_rows",
            "created",
            "updated",
            "unchanged",
            "rejected",
            "flagged",
            "contact_readiness",
            "error",
            "created_at",
            "started_at",
            "finished_at",
        ]
        read_only_fields = fields
