"""What the API shows of the lead rules (read-only: they are kept on Settings → Lead
rules, where their choices are checked against the workspace)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from outreach.models import LeadRule


def _has(value: str) -> bool | None:
    return None if not value else value == LeadRule.Has.YES


class LeadRuleConditionsSerializer(serializers.Serializer):
    # A field named "source" (the rule's condition), not DRF's Field.source attribute.
    source = serializers.ChoiceField(  # type: ignore[assignment]
        ["", *LeadRule.Source.values],
        help_text='How the lead came in: import, api, page, lead_ads; "" for any way.',
    )
    form_id = serializers.CharField(help_text='A Meta Lead Ads form id; "" for any.')
    county = serializers.CharField(help_text='Compared without diacritics or case; "" for any.')
    tags = serializers.ListField(
        child=serializers.CharField(), help_text="The lead has any of them; [] for any lead."
    )
    has_phone = serializers.SerializerMethodField(help_text="true, false, or null (either).")
    has_email = serializers.SerializerMethodField(help_text="true, false, or null (either).")

    def get_has_phone(self, rule: LeadRule) -> bool | None:
        return _has(rule.has_phone)

    def get_has_email(self, rule: LeadRule) -> bool | None:
        return _has(rule.has_email)


class LeadRuleActionsSerializer(serializers.Serializer):
    sequence = serializers.IntegerField(
        source="sequence_id", allow_null=True, help_text="Enroll in this sequence (its id)."
    )
    operator = serializers.SerializerMethodField(
        help_text="Give the lead to this colleague (username)."
    )
    phone = serializers.IntegerField(
        source="phone_id", allow_null=True, help_text="Assign this WhatsApp number (its id)."
    )
    add_tags = serializers.ListField(child=serializers.CharField(), help_text="Tags added.")

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_operator(self, rule: LeadRule) -> str | None:
        return rule.operator.get_username() if rule.operator else None


class LeadRuleSerializer(serializers.ModelSerializer):
    conditions = LeadRuleConditionsSerializer(
        source="*", read_only=True, help_text="All must hold; empty: any."
    )
    actions = LeadRuleActionsSerializer(
        source="*", read_only=True, help_text="None at all: the rule only stops the rules after it."
    )
    taken_last_7_days = serializers.SerializerMethodField(
        help_text="How many new leads this rule took in the last 7 days."
    )

    class Meta:
        model = LeadRule
        fields = [
            "id",
            "name",
            "position",
            "enabled",
            "conditions",
            "actions",
            "taken_last_7_days",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields

    def get_taken_last_7_days(self, rule: LeadRule) -> int:
        return self.context.get("taken", {}).get(rule.pk, 0)
