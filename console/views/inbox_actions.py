"""What an operator does to a conversation from the inbox: a team note, mark unread,
close ("e": done with it for now), reopen. POST only, tenant-scoped; each redirects back
(to `next` when it is one of our pages, so "e" can move on to the next conversation)."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from cerniq.tenancy import AuthenticatedHttpRequest, scope_for
from console.forms_inbox import NoteForm
from console.views.inbox import _lead, page_context
from hitl import inbox_state
from outreach.models import Lead


def _back(request: AuthenticatedHttpRequest, default: str) -> HttpResponse:
    target = request.POST.get("next") or ""
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return redirect(target)
    return redirect(default)


def _unread(request: AuthenticatedHttpRequest, lead: Lead) -> str:
    inbox_state.mark_unread(lead, request.user)
    return _("Marked unread.")


def _close(request: AuthenticatedHttpRequest, lead: Lead) -> str:
    inbox_state.close(lead, request.user)
    return _("Conversation closed; it opens again when %(lead)s replies.") % {"lead": lead.name}


def _reopen(request: AuthenticatedHttpRequest, lead: Lead) -> str:
    inbox_state.reopen(lead, request.user)
    return _("Conversation open again.")


ACTIONS: dict[str, Callable[[AuthenticatedHttpRequest, Lead], str]] = {
    "unread": _unread,
    "close": _close,
    "reopen": _reopen,
}


@login_required
@require_POST
def conversation_action(request: AuthenticatedHttpRequest, pk: int, action: str) -> HttpResponse:
    handler = ACTIONS.get(action)
    if handler is None:
        raise Http404("unknown action")
    lead = _lead(scope_for(request), pk)
    messages.success(request, handler(request, lead))
    # Marked unread: back to the list, or opening the thread would read it again.
    default = reverse("outreach:inbox")
    if action == "reopen":
        default = reverse("outreach:inbox_thread", args=[lead.pk])
    return _back(request, default)


@login_required
@require_POST
def add_note(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    lead = _lead(scope_for(request), pk)
    form = NoteForm(request.POST)
    if form.is_valid():
        try:
            inbox_state.add_note(lead, request.user, form.cleaned_data["body"])
        except inbox_state.NoteRefused:
            form.add_error("body", _("Write the note first."))
        else:
            messages.success(request, _("Note added. Only your team sees it."))
            return _back(request, reverse("outreach:inbox_thread", args=[lead.pk]))
    context = page_context(request, lead, note_form=form)
    return render(request, "outreach/inbox/inbox.html", context, status=400)
