"""The inbox: every conversation across WhatsApp and email as a chat thread."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from cerniq.tenancy import AuthenticatedHttpRequest, scope_for
from outreach.models import Lead


@login_required
@require_GET
def inbox(request: AuthenticatedHttpRequest) -> HttpResponse:
    return render(request, "outreach/inbox/inbox.html", {"lead": None})


@login_required
@require_GET
def thread(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    lead = scope_for(request).get_or_404(Lead.objects.all(), pk=pk)
    return render(request, "outreach/inbox/inbox.html", {"lead": lead})
