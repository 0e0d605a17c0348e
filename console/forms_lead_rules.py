"""The lead rule form of Settings → Lead rules, and the leads page's "add a lead" form. The
choices (sequences, colleagues, numbers) are the workspace's own, so another workspace's
id is a form error on its field; outreach.lead_rules.editing says what else is wrong."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from cerniq.models import Tenant
from outreach.company_models import Company
from outreach.lead_rules import editing
from outreach.models import LeadRule


def _tags(text: str) -> list[str]:
    return [part for part in (p.strip() for p in text.split(",")) if part]


class _Person(forms.ModelChoiceField):
    def label_from_instance(self, obj: Any) -> str:
        return obj.get_full_name() or obj.get_username()


class LeadRuleForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=editing.MAX_NAME)
    enabled = forms.BooleanField(label=_("Enabled"), required=False, initial=True)
    source = forms.ChoiceField(
        label=_("Came in through"),
        choices=[("", _("Any way")), *LeadRule.Source.choices],
        required=False,
    )
    form_id = forms.CharField(
        label=_("Lead Ads form id"),
        max_length=64,
        required=False,
        help_text=_("Only leads from this Meta Lead Ads form; empty: any form."),
    )
    county = forms.CharField(
        label=_("County"),
        max_length=64,
        required=False,
        help_text=_("Diacritics and case do not matter (Iasi finds Iași)."),
    )
    tags = forms.CharField(
        label=_("Has any of the tags"),
        max_length=1000,
        required=False,
        help_text=_("Separated by commas; empty: any lead."),
    )
    has_phone = forms.ChoiceField(
        label=_("Has a phone number"), choices=LeadRule.Has.choices, required=False
    )
    has_email = forms.ChoiceField(
        label=_("Has an email address"), choices=LeadRule.Has.choices, required=False
    )
    sequence = forms.ModelChoiceField(
        label=_("Enroll in the sequence"),
        queryset=LeadRule.objects.none(),
        required=False,
        empty_label=_("— none —"),
    )
    operator = _Person(
        label=_("Give to the colleague"),
        queryset=LeadRule.objects.none(),
        required=False,
        empty_label=_("— none —"),
    )
    phone = forms.ModelChoiceField(
        label=_("Assign the WhatsApp number"),
        queryset=LeadRule.objects.none(),
        required=False,
        empty_label=_("— none —"),
    )
    add_tags = forms.CharField(
        label=_("Add the tags"),
        max_length=1000,
        required=False,
        help_text=_("Separated by commas."),
    )

    CONDITIONS = ("source", "form_id", "county", "tags", "has_phone", "has_email")
    ACTIONS = ("sequence", "operator", "phone", "add_tags")

    def __init__(
        self, *args: Any, tenant: Tenant, instance: LeadRule | None = None, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.tenant, self.instance = tenant, instance
        querysets = {
            "sequence": editing.sequences_of(tenant),
            "operator": editing.operators_of(tenant),
            "phone": editing.phones_of(tenant),
        }
        for name, queryset in querysets.items():
            field = self.fields[name]
            assert isinstance(field, forms.ModelChoiceField), "a choice of rows"
            field.queryset = queryset

    @classmethod
    def initial_of(cls, rule: LeadRule) -> dict[str, Any]:
        return {
            "name": rule.name,
            "enabled": rule.enabled,
            "source": rule.source,
            "form_id": rule.form_id,
            "county": rule.county,
            "tags": ", ".join(rule.tags),
            "has_phone": rule.has_phone,
            "has_email": rule.has_email,
            "sequence": rule.sequence_id,
            "operator": rule.operator_id,
            "phone": rule.phone_id,
            "add_tags": ", ".join(rule.add_tags),
        }

    def data_to_save(self) -> editing.RuleData:
        c = self.cleaned_data
        return editing.RuleData(
            name=c.get("name") or "",
            enabled=bool(c.get("enabled")),
            source=c.get("source") or "",
            form_id=c.get("form_id") or "",
            county=c.get("county") or "",
            tags=_tags(c.get("tags") or ""),
            has_phone=c.get("has_phone") or "",
            has_email=c.get("has_email") or "",
            sequence=c.get("sequence"),
            operator=c.get("operator"),
            phone=c.get("phone"),
            add_tags=_tags(c.get("add_tags") or ""),
        )

    def clean(self) -> dict:
        """The service's problems, on each field the form itself found no fault with."""
        super().clean()
        found = editing.problems(self.tenant, self.data_to_save(), instance=self.instance)
        for name, problems in found.items():
            if name not in self.errors:
                for problem in problems:
                    self.add_error(name, problem)
        return self.cleaned_data

    def disable(self) -> None:
        """Read-only, for colleagues who are not admins."""
        for field in self.fields.values():
            field.disabled = True


class AddLeadForm(forms.Form):
    """One lead typed on the leads page; outreach.lead_entry checks it as the import does.
    Its company: one of the workspace's (the company page's "Add a contact" sets it, or
    `existing_cui` finds it), else a new one of the company fields."""

    existing_cui = forms.CharField(
        label=_("Existing company (CUI)"),
        max_length=14,
        required=False,
        help_text=_(
            "To add a person to a company you already have, give its CUI and leave the "
            "company fields below empty."
        ),
    )
    name = forms.CharField(label=_("Company name"), max_length=255, required=False)
    cui = forms.CharField(label=_("CUI"), max_length=14, required=False)
    county = forms.CharField(label=_("County"), max_length=64, required=False)
    locality = forms.CharField(label=_("Locality"), max_length=128, required=False)
    contact_name = forms.CharField(label=_("Contact"), max_length=200, required=False)
    phone = forms.CharField(label=_("Phone"), max_length=32, required=False)
    email = forms.CharField(label=_("Email"), max_length=254, required=False)

    COMPANY_FIELDS = ("existing_cui", "name", "cui", "county", "locality")

    def __init__(self, *args: Any, company: Company | None = None, **kwargs: Any) -> None:
        """With `company` set, the person's fields only: the company's are its own."""
        super().__init__(*args, **kwargs)
        if company is not None:
            for name in self.COMPANY_FIELDS:
                del self.fields[name]
