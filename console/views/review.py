"""The review queue page (/outreach/review/): tabs by priority, oldest first, actions.

Every page and action is tenant-scoped through cerniq.tenancy.scope_for: another
tenant's item is a 404. Actions are small POST views that call hitl.review /
hitl.takeover, turn a ReviewError into an error message (nothing changed then) and
redirect back to the tab the operator was on. The page runs a constant number of queries
however many items it shows (one aggregate for the tab counts, one for the items, one for
the replies still being analysed: console.views.analysing).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.db.models import Count, Q, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.middleware.csrf import get_token
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_POST

from cerniq.params import parse_id, parse_ids, parse_page
from cerniq.tenancy import AuthenticatedHttpRequest, TenantScope, display_name, scope_for
from console.views.alerts import is_channel_admin
from console.views.analysing import pending_context
from console.views.review_rows import RowMaker
from console.views.review_settings import working_time
from hitl import review, sla, takeover
from hitl import review_queue as queue
from hitl.models import ReviewItem
from hitl.review import OPEN_STATUSES, ReviewError
from outreach.models import Priority, Stage

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

TABS: tuple[str, ...] = (Priority.URGENT, Priority.HIGH, Priority.MEDIUM, Priority.LOW)
RESOLVE_CHOICES: tuple[str, ...] = (Stage.NEGOTIATION, Stage.CONVERTED, Stage.DEAD)
sla_label = queue.sla_label  # the countdown's words ("due in 1h 05m"), named here as before
PAGE_SIZE = 25  # per tab and page: oldest first, the rest on the next pages
BULK_CHOICES: tuple[tuple[str, StrOrPromise], ...] = (
    (queue.ASSIGN, gettext_lazy("Assign to")),
    (queue.RESOLVE, gettext_lazy("Resolve")),
    (queue.REJECT, gettext_lazy("Reject (note required)")),
)


def _open_items(request: AuthenticatedHttpRequest) -> QuerySet[ReviewItem]:
    return scope_for(request).queryset(ReviewItem).filter(status__in=OPEN_STATUSES)


def _teammate(scope: TenantScope, raw: str) -> User:
    """A member of the workspace by id; ReviewError for anyone else or anything else."""
    pk = parse_id(raw)
    found = next((user for user in queue.teammates(scope.tenant) if user.pk == pk), None)
    if found is None:
        raise ReviewError(_("Choose a teammate from this workspace."))
    return found


def _is_htmx(request: HttpRequest) -> bool:
    return request.headers.get("HX-Request") == "true"


def _counts(request: AuthenticatedHttpRequest) -> dict[str, int]:
    return _open_items(request).aggregate(
        **{tab: Count("pk", filter=Q(priority=tab)) for tab in TABS}
    )


def _tabs(counts: dict[str, int]) -> list[tuple[str, StrOrPromise, int]]:
    return [(t, Priority(t).label, counts[t]) for t in TABS]


def item_labels() -> dict[str, str]:
    """Every item's fixed words, translated once per page rather than once per item (25
    items each translating its 34 labels cost the page about 100 ms of CPU)."""
    return {
        "due": _("Due"),
        "working_time": _("working time"),
        "unassigned": _("Unassigned"),
        "open_thread": _("Open the thread"),
        "latest_first": _("Latest messages, oldest first"),
        "they_wrote": _("They wrote"),
        "we_wrote": _("We wrote"),
        "this_reply": _("this reply"),
        "no_message": _("No message attached."),
        "why_priority": _("Why this priority"),
        "intent": _("Intent"),
        "sentiment": _("Sentiment"),
        "sentiment_scale": _("Sentiment from −100 to 100"),
        "keywords": _("Keywords"),
        "contact": _("Contact"),
        "stage": _("Stage"),
        "sequence": _("Sequence"),
        "reach": _("Can we reach them"),
        "ai_draft": _("AI draft (edit before sending if needed)"),
        "approve": _("Approve draft"),
        "edit_send": _("Edit & send"),
        "assign_me": _("Assign to me"),
        "assign_teammate": _("Assign to a teammate"),
        "teammate": _("Teammate…"),
        "assign": _("Assign"),
        "take_over": _("Take over"),
        "why_reject": _("Why reject?"),
        "why_reject_required": _("Why reject? (required)"),
        "reject": _("Reject"),
        "resolve_as": _("Resolve as"),
        "keep_stage": _("Keep the stage"),
        "note_optional": _("Note (optional)"),
        "resolve": _("Resolve"),
    }


def _rows(request: AuthenticatedHttpRequest, scope: TenantScope, tab: str) -> RowMaker:
    """What makes the items' rows, and the context every item needs (the page's and a
    fragment's alike)."""
    return RowMaker(
        labels=item_labels(),
        teammates=queue.teammates(scope.tenant),
        me=request.user.pk,
        csrf_token=get_token(request),
        tab=tab,
        resolve_choices=RESOLVE_CHOICES,
    )


@login_required
@require_GET
def review_queue(request: AuthenticatedHttpRequest) -> HttpResponse:
    scope = scope_for(request)
    open_items = _open_items(request)
    counts = _counts(request)
    tab = request.GET.get("tab", "")
    if tab not in TABS:
        tab = next((t for t in TABS if counts[t]), TABS[0])
    pages = max((counts[tab] + PAGE_SIZE - 1) // PAGE_SIZE, 1)
    page = min(parse_page(request.GET.get("page")), pages)
    offset = (page - 1) * PAGE_SIZE
    now = timezone.now()
    items = list(
        queue.queue_items(open_items.filter(priority=tab)).order_by("sla_due_at", "pk")[
            offset : offset + PAGE_SIZE
        ]
    )
    entries = queue.describe(items, scope.tenant, now)
    maker = _rows(request, scope, tab)
    return render(
        request,
        "hitl/review.html",
        {
            **maker.context,
            "teammates": maker.teammates,
            "tenant": scope.tenant,
            "tabs": _tabs(counts),
            "items": items,
            "entries": entries,
            "rows_html": maker.html(entries),
            "page": page,
            "pages": pages,
            "first_shown": offset + 1,
            "last_shown": offset + len(items),
            "total": counts[tab],
            "bulk_actions": BULK_CHOICES,
            "now": now,
            # The countdown's words for the page's script (it refreshes them every minute).
            "countdown_words": json.dumps(queue.countdown_words(), ensure_ascii=False),
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


def _fragment(
    request: AuthenticatedHttpRequest, item: ReviewItem, text: str, ok: bool
) -> HttpResponse:
    """The htmx answer to an action: the item again while it is still open in its tab (an
    assignment, a refusal), else nothing in its place and the next item of the tab appended;
    out of band, the tab counts and what happened (an aria-live status)."""
    scope = scope_for(request)
    tab = request.POST.get("tab", "")
    if tab not in TABS:
        tab = item.priority
    now = timezone.now()
    open_items = _open_items(request)
    again = list(queue.queue_items(open_items.filter(pk=item.pk, priority=tab)))
    shown = set(parse_ids(request.POST.getlist("shown"))) | {item.pk}
    following: list[ReviewItem] = []
    if not again:
        found = queue.next_item(queue.queue_items(open_items), tab, shown)
        following = [found] if found is not None else []
    # The pager's line after the action: the items now on the page, of the tab's new total.
    on_page = len(shown) - (0 if again else 1) + len(following)
    offset = (parse_page(request.POST.get("page")) - 1) * PAGE_SIZE
    counts = _counts(request)
    maker = _rows(request, scope, tab)
    return render(
        request,
        "hitl/_review_answer.html",
        {
            **maker.context,
            "again_html": maker.html(queue.describe(again, scope.tenant, now)),
            "following_html": maker.html(queue.describe(following, scope.tenant, now)),
            "tabs": _tabs(counts),
            "first_shown": offset + 1,
            "last_shown": offset + on_page if on_page else 0,
            "total": counts[tab],
            "status_text": text,
            "status_ok": ok,
        },
    )


def _action(
    request: AuthenticatedHttpRequest, pk: int, act: Callable[[ReviewItem], str]
) -> HttpResponse:
    """Find the item in the user's tenant (404 otherwise), act, report, go back (or, asked
    by htmx, answer with the fragment that replaces the item)."""
    item = scope_for(request).get_or_404(ReviewItem.objects.select_related("lead"), pk=pk)
    try:
        text, ok = act(item), True
    except ReviewError as refused:
        text, ok = str(refused), False
    if _is_htmx(request):
        return _fragment(request, item, text, ok)
    (messages.success if ok else messages.error)(request, text)
    return _back(request, item)


@login_required
@require_POST
def assign_to_me(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """To the signed-in operator, or to the teammate named by `assignee`."""
    scope = scope_for(request)

    def act(item: ReviewItem) -> str:
        raw = request.POST.get("assignee", "")
        if not raw:
            review.assign(item, request.user)
            return _("Assigned to you: %(lead)s.") % {"lead": item.lead.name}
        teammate = _teammate(scope, raw)
        review.assign_to(item, teammate, by=request.user)
        return _("Assigned to %(user)s: %(lead)s.") % {
            "user": display_name(teammate),
            "lead": item.lead.name,
        }

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
