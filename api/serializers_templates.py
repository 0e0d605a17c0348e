"""What the API shows of templates (versions with their results) and its request bodies.

Request serializers describe types only; whether a body or subject renders (spintax,
variables, the channel's length) is TemplateVersion.clean's and outreach.spintax's rule,
as on the templates page.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from api.serializers_sequences import row_id
from api.serializers_template_ab import ABDecisionSerializer
from outreach import spintax
from outreach.analytics import rate
from outreach.models import ABDecision, Channel, Template, TemplateVersion
from outreach.template_preview import MAX_PREVIEW_COUNT, PREVIEW_COUNT
from outreach.template_versions import MAX_VERSIONS


class MediaRefSerializer(serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    filename = serializers.CharField(read_only=True)


class TemplateVersionSerializer(serializers.ModelSerializer):
    media = MediaRefSerializer(
        read_only=True,
        allow_null=True,
        help_text="The image or PDF a WhatsApp message of this version carries (set on the "
        "template's page), else null.",
    )
    reply_rate = serializers.SerializerMethodField(
        help_text="Replies per 100 sent (one decimal); null before the first send."
    )

    class Meta:
        model = TemplateVersion
        fields = [
            "id",
            "version",
            "subject",
            "body",
            "weight",
            "is_active",
            "draft",
            "sent_count",
            "reply_count",
            "positive_reply_count",
            "reply_rate",
            "media",
            "created_at",
        ]
        read_only_fields = fields
        extra_kwargs = {
            "draft": {
                "help_text": "Drafted from a brochure and not approved yet: never sent, and "
                "`is_active` is false, until a person approves it on the template's page."
            }
        }

    @extend_schema_field(serializers.FloatField(allow_null=True))
    def get_reply_rate(self, version: TemplateVersion) -> float | None:
        return rate(version.reply_count, version.sent_count)


class TemplateSerializer(serializers.ModelSerializer):
    versions = TemplateVersionSerializer(many=True, read_only=True, help_text="Oldest first.")
    ab_suggestion = serializers.SerializerMethodField(
        help_text="The A/B winner waiting for a person to confirm or dismiss it, else null."
    )

    class Meta:
        model = Template
        fields = [
            "id",
            "name",
            "channel",
            "language",
            "is_active",
            "ab_mode",
            "ab_suggestion",
            "versions",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields
        extra_kwargs = {
            "ab_mode": {
                "help_text": "What the A/B rule may do: off (figures only), suggest (a person "
                "confirms each winner), auto (applied at once)."
            }
        }

    @extend_schema_field(ABDecisionSerializer(allow_null=True))
    def get_ab_suggestion(self, template: Template) -> dict | None:
        waiting = getattr(template, "ab_waiting", None)
        if waiting is None:  # not prefetched (api.views.templates prefetches it)
            waiting = list(
                template.ab_decisions.filter(status=ABDecision.Status.SUGGESTED).select_related(
                    "decided_by", "winner"
                )
            )
        return ABDecisionSerializer(waiting[0]).data if waiting else None


class VersionWriteSerializer(serializers.Serializer):
    subject = serializers.CharField(
        max_length=255, required=False, allow_blank=True, default="", help_text="Email only."
    )
    body = serializers.CharField(
        max_length=spintax.MAX_SOURCE_CHARS,
        help_text="Spintax: {a|b}, {{variable}}, {{variable|fallback}}.",
    )
    weight = serializers.IntegerField(min_value=0, max_value=1000, default=100)
    is_active = serializers.BooleanField(default=True)


class TemplateCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200)
    channel = serializers.ChoiceField(Channel.choices)
    language = serializers.ChoiceField(Template.Language.choices, default=Template.Language.RO)
    is_active = serializers.BooleanField(default=True)
    ab_mode = serializers.ChoiceField(
        Template.ABMode.choices,
        default=Template.ABMode.SUGGEST,
        help_text="What the A/B rule may do with the versions' weights.",
    )
    # many=True passes max_length on to DRF's ListSerializer; the stubs do not list it.
    versions = VersionWriteSerializer(  # type: ignore[call-arg]
        many=True, allow_empty=False, max_length=MAX_VERSIONS, help_text=f"At most {MAX_VERSIONS}."
    )


class PreviewRequestSerializer(serializers.Serializer):
    body = serializers.CharField(
        allow_blank=True, trim_whitespace=False, max_length=spintax.MAX_SOURCE_CHARS
    )
    subject = serializers.CharField(
        required=False, allow_blank=True, default="", trim_whitespace=False, max_length=255
    )
    channel = serializers.ChoiceField(Channel.choices, default=Channel.WHATSAPP)
    first_message = serializers.BooleanField(
        default=False, help_text="Check as a sequence's first WhatsApp message (no links)."
    )
    lead = row_id(
        required=False,
        allow_null=True,
        help_text="Render with this lead's values; sample values when left out.",
    )
    count = serializers.IntegerField(
        min_value=1, max_value=MAX_PREVIEW_COUNT, default=PREVIEW_COUNT
    )


class PreviewSerializer(serializers.Serializer):
    valid = serializers.BooleanField(help_text="No problem in the body nor the subject.")
    problems = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        help_text="Per field (body, subject): each problem with its line and column.",
    )
    variants = serializers.ListField(
        child=serializers.CharField(),
        help_text="Distinct rendered bodies: up to `count`, fewer when they would pass "
        f"{spintax.PREVIEW_TEXT_BUDGET:,} characters together (one at least).",
    )
    total = serializers.IntegerField(
        help_text="How many variants the body's spintax has, counted up to "
        f"{spintax.VARIANT_COUNT_CAP:,}."
    )
    more = serializers.BooleanField(
        help_text="The body has more variants than `total` (counting stopped there)."
    )
