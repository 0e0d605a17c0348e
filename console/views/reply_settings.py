"""Replies settings (/outreach/settings/replies/): how drafted replies answer a price
question — the tenant's price-list link and answer text (hitl.triage.drafts uses them).
Tenant admins change them (403 for others)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from cerniq.tenancy import AuthenticatedHttpRequest, scope_for
from console.forms_replies import ReplySettingsForm
from console.views.alerts import is_channel_admin
from hitl.triage.context import price_list_configured, save_price_list


@login_required
@require_http_methods(["GET", "POST"])
def reply_settings(request: AuthenticatedHttpRequest) -> HttpResponse:
    scope = scope_for(request)
    if not is_channel_admin(request, scope):
        raise PermissionDenied(_("Only the workspace's admins change how replies are drafted."))
    form = ReplySettingsForm(request.POST or None, tenant=scope.tenant)
    if request.method == "POST":
        if form.is_valid():
            save_price_list(
                scope.tenant,
                url=form.cleaned_data["price_list_url"],
                answer=form.cleaned_data["price_list_answer"],
            )
            messages.success(
                request, _("Reply settings saved. Replies drafted from now on use them.")
            )
            return redirect("outreach:reply_settings")
        messages.error(request, _("Nothing was saved: correct the fields marked below."))
    context = {"form": form, "configured": price_list_configured(scope.tenant)}
    return render(
        request, "outreach/reply_settings.html", context, status=400 if form.errors else 200
    )
