"""The replies settings form (/outreach/settings/replies/): how drafted replies answer a
price question. The checks are hitl.triage.context.price_list_problems."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from cerniq.models import Tenant
from hitl.triage.context import MAX_PRICE_LIST_ANSWER, price_list_problems


class ReplySettingsForm(forms.Form):
    price_list_url = forms.URLField(
        label=_("Price list link"),
        required=False,
        max_length=500,
        assume_scheme="https",
        help_text=_(
            "A page or a file with your prices; drafted replies to price questions link it."
        ),
    )
    price_list_answer = forms.CharField(
        label=_("Answer to price questions"),
        required=False,
        max_length=MAX_PRICE_LIST_ANSWER,
        widget=forms.Textarea(attrs={"rows": 5}),
        help_text=_(
            "The text drafted replies give to a price question; variables such as "
            "{{contact_name}} or {{company_name}} are filled in for each lead."
        ),
    )

    def __init__(self, *args: Any, tenant: Tenant, **kwargs: Any) -> None:
        kwargs.setdefault(
            "initial",
            {
                "price_list_url": tenant.price_list_url,
                "price_list_answer": tenant.price_list_answer,
            },
        )
        super().__init__(*args, **kwargs)
        self.tenant = tenant

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        found = price_list_problems(
            self.tenant, data.get("price_list_url") or "", data.get("price_list_answer") or ""
        )
        for field, problems in found.items():
            if field not in data:  # already refused by the field itself
                continue
            for problem in problems:
                self.add_error(field, problem)
        return data
