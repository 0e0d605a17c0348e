"""What the API shows of do-not-contact entries and takes to add or remove one. The
serializers check types; what a valid phone, address, domain or CUI is, and who may take an
entry off, is outreach.suppression_list's rule, as on the list's page."""

from __future__ import annotations

from rest_framework import serializers

from cerniq import reasons
from outreach.models import Suppression


class SuppressionSerializer(serializers.ModelSerializer):
    kind = serializers.ChoiceField(Suppression.Kind.choices, help_text="What `value` is.")
    value = serializers.CharField(
        help_text="E.164 phone, lowercase email, lowercase domain (no @), CUI digits, or for "
        "an erased person the HMAC-SHA256 hash (hex) of their phone or address."
    )
    reason_text = serializers.SerializerMethodField(help_text="`reason` in the reader's words.")
    created_by = serializers.SerializerMethodField(
        help_text="Who added it (username), if a person."
    )
    removable = serializers.BooleanField(
        help_text="A person's entry (manual, import, API) may be removed here; one the "
        "recipient caused (opt-out, unsubscribe, bounce, complaint) is lifted on the lead."
    )
    blocked_leads = serializers.SerializerMethodField(
        help_text="How many of the workspace's leads the entry names now."
    )

    class Meta:
        model = Suppression
        fields = [
            "id",
            "kind",
            "value",
            "reason",
            "reason_text",
            "source",
            "created_by",
            "created_at",
            "removable",
            "blocked_leads",
        ]
        read_only_fields = fields

    def get_reason_text(self, entry: Suppression) -> str:
        return reasons.render(entry.reason)

    def get_created_by(self, entry: Suppression) -> str:
        return entry.created_by.get_username() if entry.created_by else ""

    def get_blocked_leads(self, entry: Suppression) -> int:
        return self.context.get("blocked", {}).get(entry.pk, 0)


class SuppressionWriteSerializer(serializers.Serializer):
    kind = serializers.ChoiceField([(k.value, k.label) for k in Suppression.ADDABLE_KINDS])
    value = serializers.CharField(
        max_length=254, help_text="Written as people write it: 0722 123 456, RO22732040, @ferma.ro."
    )
    reason = serializers.CharField(max_length=255, help_text="Why it is on the list.")


class SuppressionRemoveSerializer(serializers.Serializer):
    reason = serializers.CharField(
        max_length=2000, help_text="Why it comes off the list (kept in the audit)."
    )


class SuppressionImportSerializer(serializers.Serializer):
    added = serializers.IntegerField()
    already = serializers.IntegerField(help_text="Entries of the file listed before.")
    lines = serializers.IntegerField(help_text="Lines of the file with an entry.")
    kinds = serializers.DictField(child=serializers.IntegerField(), help_text="Added, by kind.")
