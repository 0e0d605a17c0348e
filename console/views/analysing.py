"""Replies still being analysed (hitl.triage_jobs): shown the moment they are stored, on
the review page and in the lead's conversation, and polled by htmx until the triage routed
them. A poll answers 204 while nothing changed; once a reply it showed is analysed it asks
the page to reload (`HX-Refresh`), which then shows the review item, the answer or the
opt-out in its place. Tenant-scoped like every page (cerniq.tenancy)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from cerniq.params import parse_ids
from cerniq.tenancy import TenantScope, scope_for
from hitl.models import ReplyTriage

SHOWN = 20  # the oldest pending replies listed on the review page; the rest are counted
POLL_PENDING_SECONDS = 2  # while replies are being analysed
POLL_IDLE_SECONDS = 15  # otherwise: a reply that arrives meanwhile shows up within this


def pending_context(scope: TenantScope) -> dict:
    """The review page's "being analysed" block: the oldest SHOWN and how many in all."""
    pending = scope.queryset(ReplyTriage).filter(state=ReplyTriage.State.PENDING)
    shown = list(pending.select_related("lead", "message").order_by("created_at", "pk")[:SHOWN])
    total = len(shown) if len(shown) < SHOWN else pending.count()
    return {
        "analysing": shown,
        "analysing_total": total,
        "analysing_more": total - len(shown),
        "analysing_ids": ",".join(str(job.pk) for job in shown),
        "analysing_poll": POLL_PENDING_SECONDS if shown else POLL_IDLE_SECONDS,
    }


def _reload() -> HttpResponse:
    response = HttpResponse(status=204)
    response["HX-Refresh"] = "true"
    return response


@login_required
@require_GET
def analysing(request: HttpRequest) -> HttpResponse:
    """The review page's block, polled: reload the page once a reply it showed is done."""
    context = pending_context(scope_for(request))
    shown_before = set(parse_ids(request.GET.get("shown", "").split(",")))
    if shown_before - {job.pk for job in context["analysing"]}:
        return _reload()
    return render(request, "hitl/_analysing.html", context)


@login_required
@require_GET
def analysing_one(request: HttpRequest, pk: int) -> HttpResponse:
    """One reply on the lead's page, polled: 204 while it is analysed, then reload."""
    job = scope_for(request).get_or_404(ReplyTriage.objects.only("state"), pk=pk)
    return HttpResponse(status=204) if job.state == ReplyTriage.State.PENDING else _reload()
