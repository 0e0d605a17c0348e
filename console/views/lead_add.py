"""Add one lead by hand (/outreach/leads/add/): checked and deduplicated as the import and
the API do (outreach.lead_entry), then the workspace's lead rules take it (source "page")."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from cerniq import reasons
from cerniq.tenancy import AuthenticatedHttpRequest, scope_for
from console.forms_lead_rules import AddLeadForm
from outreach.lead_entry import DuplicateLead, LeadInvalid, create_lead
from outreach.models import LeadRule, RuleFiring


@login_required
@require_http_methods(["GET", "POST"])
def lead_add(request: AuthenticatedHttpRequest) -> HttpResponse:
    scope = scope_for(request)
    form = AddLeadForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = {name: value for name, value in form.cleaned_data.items() if value}
        try:
            lead = create_lead(scope.tenant, data, source=LeadRule.Source.PAGE)
        except LeadInvalid as refused:
            for name, problems in refused.fields.items():
                for problem in problems:
                    form.add_error(name if name in form.fields else None, problem)
        except DuplicateLead as duplicate:
            url = f"/outreach/leads/{duplicate.lead_id}/"
            form.add_error(None, format_html('{} <a href="{}">{}</a>', duplicate, url, _("Open")))
        else:
            firing = RuleFiring.objects.filter(lead=lead).first()
            said = _("%(name)s added.") % {"name": lead.name}
            if firing is not None:
                done = "; ".join(reasons.render(c) for c in [*firing.done, *firing.refused])
                said += " " + _("Lead rule %(rule)s: %(done)s.") % {
                    "rule": firing.rule_name,
                    "done": done,
                }
            messages.success(request, said)
            return redirect("outreach:lead", pk=lead.pk)
    if form.errors:
        messages.error(request, _("Nothing was saved: correct the fields marked below."))
    status = 400 if form.errors else 200
    return render(request, "outreach/lead_add.html", {"form": form}, status=status)
