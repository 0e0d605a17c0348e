"""The lead page's lawful basis: what is recorded per channel, what the workspace's policy
asks of a first message there, and the form that records one (outreach.lawful_basis)."""

from __future__ import annotations

from datetime import datetime, time

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.dateparse import parse_date
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from cerniq.tenancy import AuthenticatedHttpRequest, scope_for
from console.views.lead_detail import _lead, page_context
from outreach import lawful_basis
from outreach.lawful_basis import BasisRefused
from outreach.models import ContactBasis


@login_required
@require_POST
def record_basis(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    scope = scope_for(request)
    lead = _lead(scope, pk)
    post = request.POST
    chosen = post.get("channel", "")
    channels = list(lawful_basis.KINDS) if chosen == "both" else [chosen]
    given = parse_date(post.get("given_on", "") or "") if post.get("given_on") else None
    error = ""
    if post.get("given_on") and given is None:
        error = _("Write the date as YYYY-MM-DD.")
    else:
        given_at = (
            timezone.make_aware(datetime.combine(given, time(12))) if given is not None else None
        )
        try:
            lawful_basis.record(
                lead,
                channels=channels,
                basis=post.get("basis", ""),
                source=ContactBasis.Source.PAGE,
                evidence=post.get("evidence", ""),
                given_at=given_at,
                by=request.user,
            )
        except BasisRefused as refused:
            error = str(refused)
    if not error:
        messages.success(request, _("The lawful basis is recorded."))
        return redirect("outreach:lead", pk=lead.pk)
    context = page_context(request, scope, lead)
    context |= {"basis_error": error, "basis_form": post}
    return render(request, "outreach/lead_detail.html", context, status=400)
