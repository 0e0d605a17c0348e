"""The Meta settings page's forms: the portfolio's messaging limit, a template version's
approved WhatsApp template, a Lead Ads form and its field map. A bad value is a form error
on its field; nothing is saved then."""

from __future__ import annotations

import re
from typing import Any

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from cerniq.models import Tenant
from integrations.meta.leadgen import MAPPED
from integrations.meta.models import PLACEHOLDER, ApprovedTemplate
from outreach.media import kind_of
from outreach.models import Channel, TemplateVersion, known_custom_fields
from outreach.spintax import KNOWN_VARIABLES

_TEMPLATE_NAME = re.compile(r"[a-z0-9_]{1,512}")
_LANGUAGE = re.compile(r"[a-z]{2,3}(?:_[A-Z]{2})?")


class LimitForm(forms.Form):
    limit = forms.CharField(
        label=gettext_lazy("People a day, all Cloud API numbers together"),
        max_length=12,
        help_text=gettext_lazy(
            "Your business portfolio's messaging limit (250, 2000, 10000, 100000 or "
            "unlimited). Meta raises it on its own and tells us; set it here if it changed "
            "before we heard."
        ),
    )

    def clean_limit(self) -> int | None:
        value = self.cleaned_data["limit"].strip().lower().replace(".", "").replace(" ", "")
        if value in ("unlimited", "nelimitat", "-1"):
            return None
        if not value.isdigit() or not 1 <= int(value) <= 10_000_000:
            raise forms.ValidationError(_("Write a number of people, or “unlimited”."))
        return int(value)


class VersionField(forms.ModelChoiceField):
    def label_from_instance(self, obj: Any) -> str:
        return f"{obj.template.name} v{obj.version}"


class ApprovedTemplateForm(forms.Form):
    version = VersionField(
        queryset=TemplateVersion.objects.none(), label=gettext_lazy("Template version")
    )
    name = forms.CharField(
        label=gettext_lazy("Template name in WhatsApp Manager"),
        max_length=512,
        help_text=gettext_lazy("Lowercase letters, digits and _, e.g. intro_ferma_ro."),
    )
    language = forms.CharField(
        label=gettext_lazy("Language code"),
        max_length=15,
        initial="ro",
        help_text=gettext_lazy("As approved: ro, en, en_US."),
    )
    parameters = forms.CharField(
        label=gettext_lazy("Our variables for {{1}}, {{2}}, …"),
        required=False,
        max_length=500,
        help_text=gettext_lazy("In order, separated by commas, e.g. contact_name, company_name."),
    )
    named = forms.BooleanField(
        label=gettext_lazy("The template uses named parameters ({{first_name}})"), required=False
    )
    text = forms.CharField(
        label=gettext_lazy("The approved text"),
        widget=forms.Textarea(attrs={"rows": 4}),
        max_length=1024,
        help_text=gettext_lazy(
            "Copied from WhatsApp Manager, with its {{1}}… : what the timeline shows as sent."
        ),
    )

    header = forms.ChoiceField(
        label=gettext_lazy("Media header"),
        choices=ApprovedTemplate.Header.choices,
        required=False,
        help_text=gettext_lazy(
            "A template approved with an image or document header carries the version's file "
            "outside the 24-hour window; without one, a version with a file is not sent there."
        ),
    )

    def __init__(self, *args: Any, tenant: Tenant, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.tenant = tenant
        field = self.fields["version"]
        assert isinstance(field, forms.ModelChoiceField), "declared above"
        field.queryset = TemplateVersion.objects.filter(
            tenant=tenant, template__channel=Channel.WHATSAPP
        ).select_related("template")

    def clean_name(self) -> str:
        name = self.cleaned_data["name"].strip()
        if not _TEMPLATE_NAME.fullmatch(name):
            raise forms.ValidationError(_("Use lowercase letters, digits and _ only."))
        return name

    def clean_language(self) -> str:
        language = self.cleaned_data["language"].strip()
        if not _LANGUAGE.fullmatch(language):
            raise forms.ValidationError(_("A language code such as ro, en or en_US."))
        return language

    def clean_parameters(self) -> list[str]:
        names = [n.strip() for n in self.cleaned_data["parameters"].split(",") if n.strip()]
        known = KNOWN_VARIABLES | known_custom_fields(self.tenant.pk)
        unknown = [n for n in names if n not in known]
        if unknown:
            raise forms.ValidationError(
                _("Not a variable of ours: %(names)s. Known: %(known)s.")
                % {"names": ", ".join(unknown), "known": ", ".join(sorted(known))}
            )
        return names

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        self._check_header(data)
        text, names = data.get("text"), data.get("parameters")
        if text is None or names is None:
            return data
        found = [m.group(1) for m in PLACEHOLDER.finditer(text)]
        if data.get("named"):
            expected = sorted(set(names))
            problem = sorted(set(found)) != expected
        else:
            expected = [str(i) for i in range(1, len(names) + 1)]
            problem = sorted(set(found), key=lambda v: (len(v), v)) != expected
        if problem:
            self.add_error(
                "text",
                _("The text's placeholders (%(found)s) do not match the variables given.")
                % {"found": ", ".join("{{" + f + "}}" for f in found) or _("none")},
            )
        return data

    def _check_header(self, data: dict[str, Any]) -> None:
        """A media header matches the version's file: an image header an image, a document
        header a PDF; a version with a file and no header is allowed (sent inside the
        window only), a header without a file is not."""
        version, header = data.get("version"), data.get("header") or ""
        if version is None:
            return
        kind = kind_of(version.media.content_type) if version.media_id else ""
        if header and header != kind:
            said = (
                _("This version carries no image or PDF.")
                if not kind
                else _("This version's file is %(kind)s: the header must be the same kind.")
                % {"kind": ApprovedTemplate.Header(kind).label}
            )
            self.add_error("header", said)

    def save(self) -> ApprovedTemplate:
        data = self.cleaned_data
        approved, _created = ApprovedTemplate.objects.update_or_create(
            tenant=self.tenant,
            template_version=data["version"],
            defaults={
                "name": data["name"],
                "language": data["language"],
                "parameters": data["parameters"],
                "named": data["named"],
                "text": data["text"].strip(),
                "header": data.get("header") or "",
            },
        )
        return approved


class LeadFormForm(forms.Form):
    name = forms.CharField(label=gettext_lazy("Name"), max_length=200, required=False)
    page_id = forms.RegexField(
        regex=r"^[0-9]{1,32}$",
        label=gettext_lazy("Facebook page ID"),
        max_length=32,
        error_messages={"invalid": gettext_lazy("A page ID is digits only.")},
    )
    form_id = forms.RegexField(
        regex=r"^[0-9]{1,32}$",
        label=gettext_lazy("Lead form ID"),
        max_length=32,
        error_messages={"invalid": gettext_lazy("A form ID is digits only.")},
    )
    field_map = forms.CharField(
        label=gettext_lazy("Questions → lead fields"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 5}),
        help_text=gettext_lazy(
            "One per line, our field = the form's question key, e.g. phone = phone_number. "
            "Our fields: name (company), contact_name, phone, email, cui, county, locality."
        ),
    )
    requires_cui = forms.BooleanField(label=gettext_lazy("A CUI is required"), required=False)
    asks_for_contact = forms.BooleanField(
        label=gettext_lazy("The person asks to be contacted (first message fast, not cold)"),
        required=False,
        initial=True,
    )
    consent_text = forms.CharField(
        label=gettext_lazy("Consent text shown on the form"),
        required=False,
        max_length=2000,
        widget=forms.Textarea(attrs={"rows": 3}),
    )

    def clean_field_map(self) -> dict[str, str]:
        mapping: dict[str, str] = {}
        for number, line in enumerate(self.cleaned_data["field_map"].splitlines(), 1):
            if not line.strip():
                continue
            ours, sep, question = (part.strip() for part in line.partition("="))
            if not sep or not question:
                raise forms.ValidationError(
                    _("Line %(n)d: write our field = the question key.") % {"n": number}
                )
            if ours not in MAPPED:
                raise forms.ValidationError(
                    _("Line %(n)d: %(field)s is not one of our fields.")
                    % {"n": number, "field": ours}
                )
            mapping[ours] = question
        return mapping
