"""Erasing a person from the lead page (admins only): a reason and a confirmation; the
refusals are said in the form, the audit row and the receipts on the page after."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from cerniq.tenancy import AuthenticatedHttpRequest, scope_for
from console.views.alerts import is_channel_admin
from console.views.lead_detail import _lead, page_context
from outreach.erasure import ErasureRefused, erase_person
from outreach.models import Erasure


@login_required
@require_POST
def lead_erase(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    scope = scope_for(request)
    lead = _lead(scope, pk)
    if not is_channel_admin(request, scope):
        raise PermissionDenied(_("Only the workspace's admins erase a person."))
    error = ""
    if request.POST.get("confirm") != "yes":
        error = _("Tick the box to confirm: an erasure cannot be undone.")
    else:
        try:
            erase_person(
                lead, by=request.user, reason=request.POST.get("reason", ""), via=Erasure.Via.PAGE
            )
        except ErasureRefused as refused:
            error = str(refused)
    if not error:
        messages.success(
            request,
            _(
                "The person is erased: their data is blanked here, the providers that hold "
                "them are being told, and they can never be imported or written to again."
            ),
        )
        return redirect("outreach:lead", pk=lead.pk)
    context = page_context(request, scope, lead)
    context |= {"erase_error": error, "erase_reason": request.POST.get("reason", "")}
    return render(request, "outreach/lead_detail.html", context, status=400)
