"""The shapes of a manual message (request) and of a message's status (response). The
refusals (opt-out, takeover, suppression, quota, the address's status) stay in
outreach.manual; the field checks below use its limits, so a bad field is a 400 naming it
rather than a refusal."""

from __future__ import annotations

from django.utils.translation import gettext as _
from rest_framework import serializers

from api.serializers import MessageSerializer
from outreach.manual import MAX_EMAIL_SUBJECT, MAX_EMAIL_TEXT, MAX_WHATSAPP_TEXT
from outreach.models import Channel, Lead

SEND_CHANNELS = [
    (Channel.WHATSAPP, Channel.WHATSAPP.label),
    (Channel.EMAIL_WARM, Channel.EMAIL_WARM.label),
]
TEXT_LIMITS = {Channel.WHATSAPP: MAX_WHATSAPP_TEXT, Channel.EMAIL_WARM: MAX_EMAIL_TEXT}


class ManualMessageSerializer(serializers.Serializer):
    lead = serializers.PrimaryKeyRelatedField(
        queryset=Lead.objects.none(), help_text="A lead of your tenant."
    )
    channel = serializers.ChoiceField(
        SEND_CHANNELS,
        default=Channel.WHATSAPP,
        help_text="WhatsApp (the lead's phone) or a warm email (Resend).",
    )
    text = serializers.CharField(
        max_length=MAX_EMAIL_TEXT,
        help_text=f"Up to {MAX_WHATSAPP_TEXT} characters on WhatsApp, {MAX_EMAIL_TEXT} by email.",
    )
    subject = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=MAX_EMAIL_SUBJECT,
        help_text="Required for an email.",
    )

    def __init__(self, *args, tenant=None, **kwargs):
        super().__init__(*args, **kwargs)
        if tenant is not None:
            lead = self.fields["lead"]
            assert isinstance(lead, serializers.RelatedField), "declared a related field"
            lead.queryset = Lead.objects.filter(tenant=tenant)

    def validate(self, data: dict) -> dict:
        channel = data["channel"]
        if len(data["text"]) > TEXT_LIMITS[channel]:
            raise serializers.ValidationError(
                {
                    "text": _("At most %(n)d characters on this channel.")
                    % {"n": TEXT_LIMITS[channel]}
                }
            )
        if channel == Channel.EMAIL_WARM and not data.get("subject", "").strip():
            raise serializers.ValidationError({"subject": _("An email needs a subject.")})
        return data


class MessageStatusSerializer(MessageSerializer):
    """A message and where it is on its way (status and the times it reached each step)."""

    class Meta(MessageSerializer.Meta):
        fields = [*MessageSerializer.Meta.fields, "lead"]
        read_only_fields = fields
