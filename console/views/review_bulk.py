"""Bulk actions on the review items an operator ticked: assign to a teammate, resolve,
reject with a note. Each item goes through hitl.review in its own transaction
(hitl.review_queue.bulk); one refused item does not stop the others, and the message says
"3 resolved, 1 refused: <why>"."""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from cerniq.params import parse_id, parse_ids
from cerniq.tenancy import AuthenticatedHttpRequest, scope_for
from console.views.review import TABS
from hitl import review_queue as queue
from hitl.models import ReviewItem


def _back(request: AuthenticatedHttpRequest) -> HttpResponseRedirect:
    tab = request.POST.get("tab", "")
    query = f"?{urlencode({'tab': tab})}" if tab in TABS else ""
    return HttpResponseRedirect(reverse("hitl:review") + query)


@login_required
@require_POST
def bulk(request: AuthenticatedHttpRequest) -> HttpResponse:
    scope = scope_for(request)
    action = request.POST.get("action", "")
    raw_ids = request.POST.getlist("items")
    ids = list(dict.fromkeys(parse_ids(raw_ids)))
    if action not in queue.BULK_ACTIONS:
        messages.error(request, _("Choose what to do with the selected items."))
        return _back(request)
    if not ids or len(ids) != len(raw_ids) or len(ids) > queue.BULK_LIMIT:
        messages.error(
            request,
            _("Select between 1 and %(limit)s items on this page.") % {"limit": queue.BULK_LIMIT},
        )
        return _back(request)
    assignee = None
    if action == queue.ASSIGN:
        wanted = parse_id(request.POST.get("assignee", ""))
        assignee = next((u for u in queue.teammates(scope.tenant) if u.pk == wanted), None)
        if assignee is None:
            messages.error(request, _("Choose a teammate from this workspace."))
            return _back(request)
    items = list(
        scope.queryset(ReviewItem).select_related("lead").filter(pk__in=ids).order_by("pk")
    )
    result = queue.bulk(
        items,
        action,
        request.user,
        assignee=assignee,
        note=request.POST.get("note", ""),
        missing=sorted(set(ids) - {item.pk for item in items}),
    )
    (messages.success if not result.refused else messages.warning)(request, result.summary)
    return _back(request)
