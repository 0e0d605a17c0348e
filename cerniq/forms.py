"""The alert channel form, shared by the alerts page and the admin.

The URL is write-only: the field is always shown empty (the saved URL appears masked in
its help text), and leaving it empty while editing keeps the saved one.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from cerniq import alert_channels
from cerniq.models import Alert, AlertChannel


class AlertChannelForm(forms.ModelForm):
    url = forms.CharField(
        label=_("URL"),
        max_length=AlertChannel._meta.get_field("url").max_length,
        required=False,
        strip=True,
        widget=forms.TextInput(attrs={"autocomplete": "off", "spellcheck": "false", "size": 48}),
    )
    kinds = forms.MultipleChoiceField(
        label=_("Kinds"),
        choices=Alert.Kind.choices,
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=_("None ticked: every kind."),
    )

    class Meta:
        model = AlertChannel
        fields = ["name", "url", "kinds", "min_severity", "language", "enabled"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.initial["url"] = ""  # never sent back to the browser
        if self.instance.pk:
            self.fields["url"].help_text = _(
                "Saved: %(masked)s. Leave empty to keep it, or paste a new one."
            ) % {"masked": alert_channels.masked(self.instance.url)}
        else:
            self.fields["url"].help_text = _(
                "An apprise URL: slack://…, tgram://bot-token/chat-id, mailto://…, "
                "json://host/path, or env://ALERTS_… naming an environment variable."
            )

    def clean_url(self) -> str:
        url = self.cleaned_data["url"]
        if not url:
            if self.instance.pk:
                return self.instance.url
            raise forms.ValidationError(_("Enter the channel's URL."), code="required")
        alert_channels.validate_url(url)
        return url

    def validate_unique(self) -> None:
        # The page's form has no tenant field, so Django skips (tenant, name): check it here.
        super().validate_unique()
        name = self.cleaned_data.get("name")
        tenant_id = self.instance.tenant_id
        if "tenant" in self.fields or not name or not tenant_id or "name" in self.errors:
            return
        taken = AlertChannel.objects.filter(tenant_id=tenant_id, name=name)
        if self.instance.pk:
            taken = taken.exclude(pk=self.instance.pk)
        if taken.exists():
            self.add_error("name", _("A channel with this name already exists."))
