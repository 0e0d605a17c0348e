"""The endpoint form, shared by the operator page and the admin. The secret is never a
field: it is made on creation (and by "rotate"), and shown once by the page."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from cerniq.models import WebhookEndpoint
from cerniq.outbound import endpoints, events


class WebhookEndpointForm(forms.ModelForm):
    url = forms.CharField(
        label=_("URL"),
        max_length=WebhookEndpoint._meta.get_field("url").max_length,
        strip=True,
        widget=forms.TextInput(attrs={"autocomplete": "off", "spellcheck": "false", "size": 48}),
        help_text=_("https://… on a public address; every delivery is signed."),
    )
    events = forms.MultipleChoiceField(
        label=_("Events"),
        choices=[(name, f"{name}: {text}") for name, text in events.EVENTS.items()],
        widget=forms.CheckboxSelectMultiple,
    )

    class Meta:
        model = WebhookEndpoint
        fields = ["url", "description", "events", "enabled"]

    def clean_url(self) -> str:
        url = self.cleaned_data["url"]
        endpoints.validate_url(url)
        return url

    def clean_events(self) -> list[str]:
        names = list(self.cleaned_data["events"])
        endpoints.validate_events(names)
        return names

    def save(self, commit: bool = True) -> Any:
        if not self.instance.secret:
            self.instance.secret = endpoints.new_secret()
        if "enabled" in self.changed_data:
            endpoints.switch(self.instance, self.instance.enabled)
        return super().save(commit)
