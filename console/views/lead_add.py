"""Add one lead by hand (/outreach/leads/add/): checked and deduplicated as the import and
the API do (outreach.lead_entry), then the workspace's lead rules take it (source "page").

Its company: the one the company page's "Add a contact" sets (?company=<id>), or the one
with the CUI typed in "Existing company", else a new one made of the company fields."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from cerniq import reasons
from cerniq.params import parse_id
from cerniq.tenancy import AuthenticatedHttpRequest, TenantScope, scope_for
from console.forms_lead_rules import AddLeadForm
from outreach.company_models import Company
from outreach.importing.cleaning import cui_in
from outreach.lead_entry import DuplicateLead, LeadInvalid, create_lead
from outreach.models import LeadRule, RuleFiring


def _preset(request: AuthenticatedHttpRequest, scope: TenantScope) -> Company | None:
    """The company "Add a contact" set: the workspace's, else 404."""
    raw = request.POST.get("company") or request.GET.get("company")
    if not raw:
        return None
    return scope.get_or_404(Company, pk=parse_id(raw))


def _data(form: AddLeadForm, scope: TenantScope, preset: Company | None) -> dict | None:
    """The lead's values for the service; None when "Existing company" names none."""
    data = {name: value for name, value in form.cleaned_data.items() if value}
    existing = data.pop("existing_cui", "")
    if preset is not None:
        data["company"] = preset.pk
    elif existing:
        cui = cui_in(existing)
        found = scope.queryset(Company).filter(cui=cui).first() if cui else None
        if found is None:
            form.add_error("existing_cui", _("No company of yours has this CUI."))
            return None
        data["company"] = found.pk
    return data


@login_required
@require_http_methods(["GET", "POST"])
def lead_add(request: AuthenticatedHttpRequest) -> HttpResponse:
    scope = scope_for(request)
    preset = _preset(request, scope)
    form = AddLeadForm(request.POST or None, company=preset)
    if request.method == "POST" and form.is_valid():
        data = _data(form, scope, preset)
        try:
            lead = create_lead(scope.tenant, data, source=LeadRule.Source.PAGE) if data else None
        except LeadInvalid as refused:
            for name, problems in refused.fields.items():
                for problem in problems:
                    field = "existing_cui" if name == "company" and not preset else name
                    form.add_error(field if field in form.fields else None, problem)
        except DuplicateLead as duplicate:
            url = f"/outreach/leads/{duplicate.lead_id}/"
            form.add_error(None, format_html('{} <a href="{}">{}</a>', duplicate, url, _("Open")))
        else:
            if lead is not None:
                messages.success(request, _added(lead))
                return redirect("outreach:lead", pk=lead.pk)
    if form.errors:
        messages.error(request, _("Nothing was saved: correct the fields marked below."))
    status = 400 if form.errors else 200
    context = {"form": form, "company": preset}
    return render(request, "outreach/lead_add.html", context, status=status)


def _added(lead) -> str:
    firing = RuleFiring.objects.filter(lead=lead).first()
    said = _("%(name)s added.") % {"name": lead.name}
    if firing is not None:
        done = "; ".join(reasons.render(c) for c in [*firing.done, *firing.refused])
        said += " " + _("Lead rule %(rule)s: %(done)s.") % {"rule": firing.rule_name, "done": done}
    return said
