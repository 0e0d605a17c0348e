"""Consent settings (/outreach/settings/consent/): what a first message needs per channel
and recipient country (off, warn, require) and whether cold templates must say who writes
and how to stop (outreach.lawful_basis). Tenant admins change them (403 for others)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from cerniq.tenancy import AuthenticatedHttpRequest, scope_for
from console.views.alerts import is_channel_admin
from outreach import lawful_basis


@login_required
@require_http_methods(["GET", "POST"])
def consent_settings(request: AuthenticatedHttpRequest) -> HttpResponse:
    scope = scope_for(request)
    tenant = scope.tenant
    if not is_channel_admin(request, scope):
        raise PermissionDenied(_("Only the workspace's admins change the consent policy."))
    values = {
        kind: lawful_basis.policy_text(lawful_basis.policy_table(tenant, kind))
        for kind in lawful_basis.KINDS
    }
    templates = tenant.first_templates_must_comply
    error, field = "", ""
    if request.method == "POST":
        values = {kind: request.POST.get(kind, "") for kind in lawful_basis.KINDS}
        templates = request.POST.get("templates") == "on"
        try:
            lawful_basis.save_policy(
                tenant,
                whatsapp=values[lawful_basis.WHATSAPP],
                email=values[lawful_basis.EMAIL],
                templates_must_comply=templates,
            )
        except lawful_basis.BasisRefused as refused:
            error, field = str(refused), refused.field
        else:
            messages.success(request, _("Consent policy saved: first messages follow it now."))
            return redirect("outreach:consent_settings")
    context = {
        "settings_tab": "consent",
        "values": values,
        "templates": templates,
        "error": error,
        "error_field": field,
        "modes": lawful_basis.DEFAULT_POLICY,
    }
    return render(request, "outreach/consent_settings.html", context, status=400 if error else 200)
