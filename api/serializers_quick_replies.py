"""What the API shows of quick replies and takes to save one. The serializer checks types;
whether a name is free and a body renders (syntax, known variables, length) is
outreach.quick_replies' rule, as on the settings page."""

from __future__ import annotations

from rest_framework import serializers

from outreach.models import QuickReply, Template
from outreach.quick_replies import MAX_BODY, MAX_NAME, MAX_SUBJECT


class QuickReplySerializer(serializers.ModelSerializer):
    created_by = serializers.SerializerMethodField(help_text="Who wrote it (username).")

    class Meta:
        model = QuickReply
        fields = [
            "id",
            "name",
            "channel",
            "language",
            "subject",
            "body",
            "created_by",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields

    def get_created_by(self, reply: QuickReply) -> str:
        return reply.created_by.get_username() if reply.created_by else ""


class QuickReplyWriteSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=MAX_NAME, help_text="Unique in the workspace.")
    channel = serializers.ChoiceField(
        QuickReply.ChannelChoice.choices,
        required=False,
        allow_blank=True,
        default="",
        help_text='"" (any channel), WHATSAPP or EMAIL_WARM.',
    )
    language = serializers.ChoiceField(Template.Language.choices, required=False, default="ro")
    subject = serializers.CharField(
        max_length=MAX_SUBJECT, required=False, allow_blank=True, default="", help_text="Email."
    )
    body = serializers.CharField(
        max_length=MAX_BODY,
        trim_whitespace=False,
        help_text="The templates' syntax: {a|b}, {{contact_name}}, {{operator_name}}.",
    )
