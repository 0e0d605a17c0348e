"""The review queue page (/outreach/review/): tabs by priority, oldest first, actions.

Every page and action is tenant-scoped through cerniq.tenancy.scope_for: another
tenant's item is a 404. Actions are small POST views that call hitl.review /
hitl.takeover, turn a ReviewError into an error message (nothing changed then) and
redirect back to the tab the operator was on. The page runs a constant number of queries
however many items it shows (one aggregate for the tab counts, one for the items, one for
the replies still being analysed: console.views.analysing).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Count, Q
from django.http import HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from cerniq.params import parse_page
from cerniq.tenancy import AuthenticatedHttpRequest, scope_for
from console.views.alerts import is_channel_admin
from console.views.analysing import pending_context
from console.views.review_settings import working_time
from hitl import review, sla, takeover
from hitl.models import ReviewItem
from hitl.review import OPEN_STATUSES, ReviewError
from outreach.models import Priority, Stage

TABS: tuple[str, ...] = (Priority.URGENT, Priority.HIGH, Priority.MEDIUM, Priority.LOW)
RESOLVE_CHOICES: tuple[str, ...] = (Stage.NEGOTIATION, Stage.CONVERTED, Stage.DEAD)
PAGE_SIZE = 25  # per tab and page: oldest first, the rest on the next pages


def _duration(delta: timedelta) -> str:
    """'2d 3h', '1h 05m', '7m' (coarse on purpose: it is a countdown, not a clock)."""
    minutes = max(int(delta.total_seconds() // 60), 0)
    days, rest = divmod(minutes, 24 * 60)
    hours, mins = divmod(rest, 60)
    if days:
        return _("%(d)sd %(h)sh") % {"d": days, "h": hours}
    if hours:
        return _("%(h)sh %(m)02dm") % {"h": hours, "m": mins}
    return _("%(m)sm") % {"m": mins}


def sla_label(due: datetime, now: datetime) -> tuple[bool, str]:
    """(overdue?, 'due in 1h 05m' / 'overdue by 12m')."""
    if due <= now:
        return True, _("overdue by %(t)s") % {"t": _duration(now - due)}
    return False, _("due in %(t)s") % {"t": _duration(due - now)}


def _open_items(request: AuthenticatedHttpRequest):
    return scope_for(request).queryset(ReviewItem).filter(status__in=OPEN_STATUSES)


@login_required
@require_GET
def review_queue(request: AuthenticatedHttpRequest) -> HttpResponse:
    scope = scope_for(request)
    open_items = _open_items(request)
    counts = open_items.aggregate(**{tab: Count("pk", filter=Q(priority=tab)) for tab in TABS})
    tab = request.GET.get("tab", "")
    if tab not in TABS:
        tab = next((t for t in TABS if counts[t]), TABS[0])
    pages = max((counts[tab] + PAGE_SIZE - 1) // PAGE_SIZE, 1)
    page = min(parse_page(request.GET.get("page")), pages)
    offset = (page - 1) * PAGE_SIZE
    items = list(
        open_items.filter(priority=tab)
        .select_related("lead", "lead__journey", "lead__journey__taken_over_by", "message")
        .select_related("assignee")
        .order_by("sla_due_at", "pk")[offset : offset + PAGE_SIZE]
    )
    now = timezone.now()
    for item in items:
        item.sla_overdue, item.sla_text = sla_label(item.sla_due_at, now)
        triage = (item.ai_analysis or {}).get("triage") or {}
        item.keywords = ", ".join(str(k) for k in triage.get("keywords") or [])
    return render(
        request,
        "hitl/review.html",
        {
            "tenant": scope.tenant,
            "tab": tab,
            "tabs": [(t, Priority(t).label, counts[t]) for t in TABS],
            "items": items,
            "page": page,
            "pages": pages,
            "first_shown": offset + 1,
            "last_shown": offset + len(items),
            "total": counts[tab],
            "resolve_stages": [(s, Stage(s).label) for s in RESOLVE_CHOICES],
            "now": now,
            "deadline": working_time(sla.minutes_for(scope.tenant, tab)),
            "can_change_deadlines": is_channel_admin(request, scope),
            **pending_context(scope),
        },
    )


def _back(request: AuthenticatedHttpRequest, item: ReviewItem) -> HttpResponseRedirect:
    tab = request.POST.get("tab", "")
    if tab not in TABS:
        tab = item.priority
    return HttpResponseRedirect(f"{reverse('hitl:review')}?{urlencode({'tab': tab})}")


def _action(
    request: AuthenticatedHttpRequest, pk: int, act: Callable[[ReviewItem], str]
) -> HttpResponseRedirect:
    """Find the item in the user's tenant (404 otherwise), act, report, go back."""
    item = scope_for(request).get_or_404(ReviewItem.objects.select_related("lead"), pk=pk)
    try:
        done = act(item)
    except ReviewError as refused:
        messages.error(request, str(refused))
    else:
        messages.success(request, done)
    return _back(request, item)


@login_required
@require_POST
def assign_to_me(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    def act(item: ReviewItem) -> str:
        review.assign(item, request.user)
        return _("Assigned to you: %(lead)s.") % {"lead": item.lead.name}

    return _action(request, pk, act)


@login_required
@require_POST
def approve(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    def act(item: ReviewItem) -> str:
        review.approve_draft(item, request.user)
        return _("Draft approved; the reply to %(lead)s is queued.") % {"lead": item.lead.name}

    return _action(request, pk, act)


@login_required
@require_POST
def edit_and_send(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    def act(item: ReviewItem) -> str:
        review.approve_draft(item, request.user, text=request.POST.get("text", ""))
        return _("Your reply to %(lead)s is queued.") % {"lead": item.lead.name}

    return _action(request, pk, act)


@login_required
@require_POST
def reject(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    def act(item: ReviewItem) -> str:
        review.reject(item, request.user, request.POST.get("note", ""))
        return _("Rejected; nothing was sent to %(lead)s.") % {"lead": item.lead.name}

    return _action(request, pk, act)


@login_required
@require_POST
def take_over(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    def act(item: ReviewItem) -> str:
        takeover.take_over(item.lead, request.user)
        return _("You took over the conversation with %(lead)s; its automation is stopped.") % {
            "lead": item.lead.name
        }

    return _action(request, pk, act)


@login_required
@require_POST
def resolve(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    def act(item: ReviewItem) -> str:
        stage = request.POST.get("stage") or None
        review.resolve(item, request.user, stage=stage, note=request.POST.get("note", ""))
        if stage:
            return _("Resolved; %(lead)s moved to %(stage)s.") % {
                "lead": item.lead.name,
                "stage": Stage(stage).label,
            }
        return _("Resolved: %(lead)s.") % {"lead": item.lead.name}

    return _action(request, pk, act)
