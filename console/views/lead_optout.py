"""Recording an opt-out from the lead page: a form whose refusals are shown in it."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from cerniq.tenancy import scope_for
from console.forms import RecordOptOutForm
from console.views.lead_detail import _journey, _lead, page_context
from outreach import optout_manual


@login_required
@require_POST
def record_opt_out(request: HttpRequest, pk: int) -> HttpResponse:
    scope = scope_for(request)
    lead = _lead(scope, pk)
    _journey(lead)
    form = RecordOptOutForm(request.POST)
    if form.is_valid():
        try:
            recorded = optout_manual.record_opt_out(lead, user=request.user, **form.cleaned_data)
        except optout_manual.OptOutRefused as refused:
            form.add_error(refused.field or None, str(refused))
        else:
            if recorded is None:
                messages.info(
                    request,
                    _("%(lead)s had already opted out of every channel; nothing changed.")
                    % {"lead": lead.name},
                )
            else:
                messages.success(
                    request,
                    _(
                        "%(lead)s is opted out of every channel: open sequences are stopped "
                        "and queued messages cancelled."
                    )
                    % {"lead": lead.name},
                )
            return redirect("outreach:lead", pk=lead.pk)
    context = page_context(request, scope, lead, opt_out_form=form)
    return render(request, "outreach/lead_detail.html", context, status=400)
