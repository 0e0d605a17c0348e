"""A company's page (/outreach/companies/<pk>/): the firm's fields with a form to change
them (outreach.company_entry: copied to every contact), and its contacts with their stage,
last contact and readiness, each linking to its lead page; "Add a contact" opens the lead
form with the company set."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from cerniq.tenancy import AuthenticatedHttpRequest, TenantScope, scope_for
from console.forms_companies import CompanyForm
from console.views.lead_rows import badge_class
from outreach import company_entry
from outreach.companies import FIRM_FIELDS, CompanyRefused
from outreach.company_models import Company
from outreach.models import Journey, Lead
from outreach.readiness import ContactPolicy, readiness_many

CONTACTS_SHOWN = 200  # a firm's people; more are listed on the leads page, filtered


def _contacts(scope: TenantScope, company: Company) -> list[dict]:
    """Each contact with its stage, last contact and readiness (one query for all)."""
    leads = list(
        scope.queryset(Lead)
        .filter(company=company)
        .select_related("journey")
        .order_by("contact_name", "pk")[:CONTACTS_SHOWN]
    )
    ready = readiness_many(leads, policy=ContactPolicy.of(scope.tenant))
    rows = []
    for lead in leads:
        try:
            journey: Journey | None = lead.journey
        except Journey.DoesNotExist:
            journey = None
        found = ready.get(lead.pk)
        rows.append(
            {
                "lead": lead,
                "journey": journey,
                "channels": [(c, badge_class(c)) for c in found.channels] if found else [],
                "contactable": bool(found and found.contactable),
            }
        )
    return rows


@login_required
@require_http_methods(["GET", "POST"])
def company_detail(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    scope = scope_for(request)
    company = scope.get_or_404(Company, pk=pk)
    initial = {name: getattr(company, name) for name in FIRM_FIELDS}
    form = CompanyForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            company_entry.change_company(company, form.cleaned_data)
        except CompanyRefused as refused:
            for name, problems in refused.fields.items():
                for problem in problems:
                    form.add_error(name if name in form.fields else None, problem)
        else:
            messages.success(request, _("%(name)s saved.") % {"name": company.name})
            return redirect("outreach:company", pk=company.pk)
    if form.errors:
        messages.error(request, _("Nothing was saved: correct the fields marked below."))
    context = {"company": company, "form": form, "contacts": _contacts(scope, company)}
    return render(
        request, "outreach/company_detail.html", context, status=400 if form.errors else 200
    )
