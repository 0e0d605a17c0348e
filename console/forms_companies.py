"""The company page's form: the firm's fields, checked by outreach.company_entry."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _


class CompanyForm(forms.Form):
    name = forms.CharField(label=_("Company name"), max_length=255)
    cui = forms.CharField(label=_("CUI"), max_length=14, required=False)
    county = forms.CharField(label=_("County"), max_length=64, required=False)
    locality = forms.CharField(label=_("Locality"), max_length=128, required=False)
