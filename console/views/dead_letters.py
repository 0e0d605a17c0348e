"""The dead letters page: messages the send path gave up on and webhook events that failed,
each retried or discarded, one at a time or in bulk (outreach.deadletters owns the rules).

Bulk actions take the ticked ids and ignore any that are not the tenant's; an action on one
row names it in the URL, and another tenant's row is a 404."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_POST

from cerniq import failed_events
from cerniq.models import WebhookEvent
from cerniq.params import parse_ids
from cerniq.tenancy import AuthenticatedHttpRequest, TenantScope, display_name, scope_for
from outreach import deadletters
from outreach.models import Message

PER_PAGE = 100
MESSAGE_ACTIONS = ("retry", "discard", "discard_pause")
EVENT_ACTIONS = ("retry", "discard")


@login_required
@require_GET
def dead_letter_list(request: AuthenticatedHttpRequest) -> HttpResponse:
    tenant = scope_for(request).tenant
    letters = Paginator(deadletters.dead_letters(tenant), PER_PAGE)
    events = Paginator(failed_events.failed(tenant), PER_PAGE)
    letters_page = letters.get_page(request.GET.get("page"))
    events_page = events.get_page(request.GET.get("events_page"))
    for event in events_page.object_list:
        event.error_summary = event.error.strip().split("\n", 1)[0] if event.error else ""
    context = {
        "letters": letters_page,
        "events": events_page,
        "dead_count": letters.count + events.count,
        "retention_days": settings.DEAD_LETTER_RETENTION_DAYS,
    }
    return render(request, "outreach/dead_letters.html", context)


@login_required
@require_POST
def message_bulk(request: AuthenticatedHttpRequest) -> HttpResponse:
    ids = parse_ids(request.POST.getlist("ids"))
    if not ids:
        messages.error(request, _("Select at least one dead letter."))
        return redirect("outreach:dead_letters")
    return _act_on_messages(request, scope_for(request), request.POST.get("action", ""), ids)


@login_required
@require_POST
def message_one(request: AuthenticatedHttpRequest, pk: int, action: str) -> HttpResponse:
    scope = scope_for(request)
    scope.get_or_404(Message, pk=pk, direction=Message.Direction.OUTBOUND)
    return _act_on_messages(request, scope, action, [pk])


def _act_on_messages(
    request: AuthenticatedHttpRequest, scope: TenantScope, action: str, ids: list[int]
) -> HttpResponse:
    if action not in MESSAGE_ACTIONS:
        messages.error(request, _("Unknown action."))
        return redirect("outreach:dead_letters")
    tenant = scope.tenant
    if action == "retry":
        result = deadletters.retry(tenant, ids)
        text = ngettext(
            "%(n)d message queued to be sent again.",
            "%(n)d messages queued to be sent again.",
            result.done,
        )
    else:
        pause = action == "discard_pause"
        result = deadletters.discard(tenant, ids, pause=pause, by_user=request.user)
        if pause:
            text = ngettext(
                "%(n)d message discarded; its lead is paused.",
                "%(n)d messages discarded; their leads are paused.",
                result.done,
            )
        else:
            text = ngettext(
                "%(n)d message discarded; its lead is re-planned.",
                "%(n)d messages discarded; their leads are re-planned.",
                result.done,
            )
    _report(request, text % {"n": result.done}, result.done, result.skipped)
    return redirect("outreach:dead_letters")


@login_required
@require_POST
def event_bulk(request: AuthenticatedHttpRequest) -> HttpResponse:
    ids = parse_ids(request.POST.getlist("event_ids"))
    if not ids:
        messages.error(request, _("Select at least one webhook event."))
        return redirect("outreach:dead_letters")
    return _act_on_events(request, scope_for(request), request.POST.get("action", ""), ids)


@login_required
@require_POST
def event_one(request: AuthenticatedHttpRequest, pk: int, action: str) -> HttpResponse:
    scope = scope_for(request)
    scope.get_or_404(WebhookEvent, pk=pk)
    return _act_on_events(request, scope, action, [pk])


def _act_on_events(
    request: AuthenticatedHttpRequest, scope: TenantScope, action: str, ids: list[int]
) -> HttpResponse:
    if action not in EVENT_ACTIONS:
        messages.error(request, _("Unknown action."))
        return redirect("outreach:dead_letters")
    if action == "retry":
        done = failed_events.retry(scope.tenant, ids)
        text = ngettext(
            "%(n)d webhook event queued to be processed again.",
            "%(n)d webhook events queued to be processed again.",
            done,
        )
    else:
        note = f"discarded from the dead letters by {display_name(request.user)}"
        done = failed_events.discard(scope.tenant, ids, note)
        text = ngettext("%(n)d webhook event discarded.", "%(n)d webhook events discarded.", done)
    deadletters.resolve_alert_if_under(scope.tenant)
    left = len(set(ids)) - done  # no longer failed (or not the tenant's: not said)
    skipped = {_("no longer a dead letter"): left} if left else {}
    _report(request, text % {"n": done}, done, skipped)
    return redirect("outreach:dead_letters")


def _report(
    request: AuthenticatedHttpRequest, text: str, done: int, skipped: dict[str, int]
) -> None:
    (messages.success if done else messages.warning)(request, text)
    if skipped:
        detail = "; ".join(f"{reason}: {n}" for reason, n in sorted(skipped.items()))
        messages.warning(request, _("Not changed — %(detail)s") % {"detail": detail})
