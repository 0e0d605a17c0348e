"""Admin for companies (imported by outreach.admin): the firm's fields, changed through
outreach.companies so every contact gets the copy, and its contacts, read-only (a lead is
edited on its own page). The lead admin's form: a lead's company is of its tenant."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.db.models import Count, QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString

from outreach import companies, company_entry
from outreach.companies import COMPANY_FIELDS, CompanyRefused
from outreach.company_models import Company
from outreach.models import Lead


class ContactInline(admin.TabularInline):
    model = Lead
    fk_name = "company"
    fields = ("contact", "contact_name", "phone", "email", "stage")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True

    def get_queryset(self, request: HttpRequest) -> QuerySet[Lead]:
        return super().get_queryset(request).select_related("journey").order_by("pk")

    @admin.display(description="lead")
    def contact(self, lead: Lead) -> SafeString:
        url = reverse("admin:outreach_lead_change", args=[lead.pk])
        return format_html('<a href="{}">#{}</a>', url, lead.pk)

    @admin.display(description="stage")
    def stage(self, lead: Lead) -> str:
        journey = getattr(lead, "journey", None)
        return journey.get_stage_display() if journey else "-"

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class CompanyForm(forms.ModelForm):
    """The import's checks (CUI checksum, lengths, a name kept) on the admin's values."""

    class Meta:
        model = Company
        fields = ("tenant", *COMPANY_FIELDS)

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        given = {name: data.get(name) or "" for name in COMPANY_FIELDS if name != "custom_fields"}
        try:
            data.update(company_entry.clean_company(given))
        except CompanyRefused as refused:
            for name, problems in refused.fields.items():
                for problem in problems:
                    self.add_error(name if name in self.fields else None, problem)
        return data


@admin.register(Company)
class CompanyAdmin(admin.ModelAdmin):
    form = CompanyForm
    list_display = ("name", "cui", "county", "locality", "contact_count", "tenant")
    list_select_related = ("tenant",)
    list_filter = ("tenant",)
    search_fields = ("name", "cui")
    readonly_fields = ("created_at", "updated_at")
    inlines = (ContactInline,)

    def get_queryset(self, request: HttpRequest) -> QuerySet[Company]:
        return super().get_queryset(request).annotate(contact_total=Count("contacts"))

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        """A company stays in its workspace (its contacts do)."""
        return (*self.readonly_fields, "tenant") if obj is not None else self.readonly_fields

    @admin.display(description="contacts", ordering="contact_total")
    def contact_count(self, company: Company) -> int:
        return company.contact_total  # type: ignore[attr-defined]

    def save_model(self, request: HttpRequest, obj: Company, form: Any, change: bool) -> None:
        """A change goes through outreach.companies: its contacts get the copy."""
        if not change:
            super().save_model(request, obj, form, change)
            return
        stored = Company.objects.get(pk=obj.pk)
        changes = {name: getattr(obj, name) for name in form.changed_data if name in COMPANY_FIELDS}
        companies.update_company(stored, changes)


class LeadAdminForm(forms.ModelForm):
    """A lead's company is one of its tenant's. No Meta: the admin makes the form of Lead
    with the fields it shows (a Meta naming fields would be all it shows)."""

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        company, tenant = data.get("company"), data.get("tenant")
        if company is not None and tenant is not None and company.tenant_id != tenant.pk:
            self.add_error("company", "This company is another workspace's.")
        return data
