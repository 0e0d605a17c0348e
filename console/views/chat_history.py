"""The lead page's chat history block: what was fetched of the lead's WhatsApp chats (waiting,
fetching with its progress, fetched with its figures, or failed with the provider's
answer), and the button that fetches it again. Any member of the workspace may press it;
the work is hitl.chat_backfill's (docs/chat-history.md)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods

from cerniq.tenancy import AuthenticatedHttpRequest, scope_for
from hitl import chat_backfill
from hitl.models import ChatBackfill
from outreach.models import Lead


def panel(lead: Lead, now: datetime | None = None) -> dict[str, Any]:
    """What the block shows: the latest fetches, whether the page polls, and whether the
    button is offered (a person who is not erased, with a chat the provider keeps)."""
    now = now or timezone.now()
    rows = chat_backfill.shown(lead)
    polling = any(chat_backfill.in_progress(row, now) for row in rows)
    may_ask = lead.erased_at is None and not polling
    if may_ask and not rows:
        may_ask = bool(chat_backfill.known_chats(lead))
    return {"rows": [_row(row, now) for row in rows], "polling": polling, "may_ask": may_ask}


def _row(row: ChatBackfill, now: datetime) -> dict[str, Any]:
    who = row.requested_by
    return {
        "pk": row.pk,
        "status": row.status,
        "phone": row.phone.number if row.phone else "",
        "requested_at": row.requested_at,
        "asked_by": (who.get_full_name() or who.get_username()) if who else "",
        "pages": row.pages,
        "fetched": row.fetched,
        "stored": row.stored,
        "end": row.get_end_display() if row.end else "",
        "finished_at": row.finished_at,
        "retry_at": row.retry_at if row.retry_at and row.retry_at > now else None,
        "error": row.error,
    }


@login_required
@require_http_methods(["GET", "POST"])
def lead_chat_history(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """GET: the block alone (polled while a fetch runs). POST: fetch the history again."""
    lead = scope_for(request).get_or_404(Lead, pk=pk)
    if request.method == "GET":
        return render(
            request, "outreach/_chat_history.html", {"lead": lead, "chat_history": panel(lead)}
        )
    try:
        started = chat_backfill.request(lead, request.user)
    except chat_backfill.BackfillRefused as refused:
        messages.error(request, str(refused))
    else:
        messages.success(
            request,
            ngettext(
                "The chat's earlier messages are being fetched.",
                "The earlier messages of %(count)d chats are being fetched.",
                len(started),
            )
            % {"count": len(started)},
        )
    return redirect(reverse("outreach:lead", args=[lead.pk]) + "#chat-history")
