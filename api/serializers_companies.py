"""What the API shows of companies and takes to make or change one. Types only: the rules
(CUI checksum, a CUI one company's, a name kept) are outreach.company_entry's."""

from __future__ import annotations

from rest_framework import serializers

from outreach.company_models import Company


class CompanySerializer(serializers.ModelSerializer):
    contact_count = serializers.IntegerField(
        read_only=True, help_text="Its contacts (leads, erased people included)."
    )

    class Meta:
        model = Company
        fields = [
            "id",
            "name",
            "cui",
            "county",
            "locality",
            "custom_fields",
            "contact_count",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields


class CompanyWriteSerializer(serializers.Serializer):
    name = serializers.CharField(required=False, allow_blank=True, help_text="Required to create.")
    cui = serializers.CharField(
        required=False,
        allow_blank=True,
        help_text="Romanian tax id; the checksum is checked; one company's in a workspace.",
    )
    county = serializers.CharField(required=False, allow_blank=True)
    locality = serializers.CharField(required=False, allow_blank=True)
    custom_fields = serializers.DictField(
        child=serializers.CharField(allow_blank=True),
        required=False,
        help_text="The firm's own named values, merged into those it has.",
    )
