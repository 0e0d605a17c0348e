"""The inbox: every conversation across WhatsApp and email, the list on the left and the
selected thread as a chat on the right (docs/inbox.md). Thin views over hitl.inbox (the
list), hitl.inbox_thread (the thread) and hitl.inbox_state (read, close, notes, stamps)."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from datetime import datetime
from functools import wraps
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.safestring import SafeString
from django.utils.text import Truncator
from django.utils.translation import gettext
from django.views.decorators.http import require_GET

from cerniq.params import parse_id
from cerniq.templatetags.numbers import num
from cerniq.tenancy import AuthenticatedHttpRequest, TenantScope, scope_for
from console.forms_inbox import NoteForm
from console.rows import Dates, render_rows
from console.topbar import inbox_badge
from console.views.lead_rows import pk_url
from console.views.thread_rows import thread_html
from hitl import inbox as conversations
from hitl import inbox_state, inbox_thread
from hitl.inbox import Cursor, InboxQuery
from hitl.routing import HOT_INTENTS
from outreach.models import Channel, Lead, Message
from whatsapp.models import Phone

LIST_TEMPLATE = "outreach/inbox/_list.html"
PANE_TEMPLATE = "outreach/inbox/_pane.html"
PREVIEW = 90  # characters of the latest message a row shows
THREAD_TEMPLATE = "outreach/inbox/_thread.html"
# The conversation pane's id: a list link (or j/k) asks for this pane alone, with htmx.
PANE = "inbox-main"


def wants_pane(request: HttpRequest) -> bool:
    """An htmx request from the list for the conversation pane alone: the list stays on
    screen as it is (a history restore asks for the whole page)."""
    headers = request.headers
    return (
        headers.get("HX-Request") == "true"
        and headers.get("HX-Target") == PANE
        and headers.get("HX-History-Restore-Request") != "true"
    )


def poll_login_required(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """A poll after the session ended must not swap the login page into the inbox: htmx
    is told to go to the login page instead (as the dashboard's poll does)."""

    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not request.user.is_authenticated:
            if request.headers.get("HX-Request") == "true":
                response = HttpResponse(status=204)
                response["HX-Redirect"] = f"{settings.LOGIN_URL}?next={reverse('outreach:inbox')}"
                return response
            return redirect_to_login(request.get_full_path())
        return view(request, *args, **kwargs)

    return wrapped


def _lead(scope: TenantScope, pk: int) -> Lead:
    lead = scope.get_or_404(
        Lead.objects.select_related("journey", "journey__assigned_phone", "journey__taken_over_by"),
        pk=pk,
    )
    lead.tenant = scope.tenant  # the workspace the request already read (the lead is in it)
    return lead


def _rows(page: conversations.Page, filters: str = "") -> list[dict[str, Any]]:
    """The list's rows as the template prints them, worked out once per page (no query: all
    loaded by the page; docs/page-rendering.md): the thread's link with the list's
    `filters`, the latest message's channel and preview, the marks."""
    thread_url = pk_url("outreach:inbox_thread")
    suffix = f"?{filters}" if filters else ""
    email = gettext("Email")
    dates = Dates()
    rows = []
    for row in page.rows:
        replied = row.last_reply_at
        last = page.last_messages.get(row.pk)
        item: dict[str, Any] = {
            "pk": row.pk,
            "url": f"{thread_url(row.pk)}{suffix}",
            "name": row.name,
            "contact_name": row.contact_name,
            # What `activity|date:'c'` and `activity|date:"SHORT_DATETIME_FORMAT"` printed.
            "activity_iso": dates.iso(row.activity),
            "activity_short": dates.short_datetime(row.activity),
            "last": last is not None,
            "unread": bool(replied and (row.read_at is None or row.read_at < replied)),
            "hot": row.last_intent in HOT_INTENTS,
            "review": row.requires_human_review,
            "taken": bool(row.taken_over_by_id),
            "closed": conversations.is_closed(row.closed_at, replied),
        }
        if last is not None:
            channel = last["channel"]
            item["channel"] = channel.lower()
            item["channel_label"] = "WhatsApp" if channel == Channel.WHATSAPP else email
            item["ours"] = last["direction"] == Message.Direction.OUTBOUND
            # What `subject|default:body|truncatechars:90` printed: Truncator returns the
            # NFC form unchanged when it has no more than 90 characters.
            text = unicodedata.normalize("NFC", str(last["subject"] or last["body"]))
            item["preview"] = text if len(text) <= PREVIEW else Truncator(text).chars(PREVIEW)
        rows.append(item)
    return rows


def rows_context(
    request: AuthenticatedHttpRequest, query: InboxQuery, selected: int | None = None
) -> dict[str, Any]:
    """One keyset page of the list's rows and its "Show more" link: all that the rows
    template (`_rows.html`, a deeper page) prints (`selected`: the open conversation)."""
    found = conversations.page(scope_for(request).tenant, request.user, query)
    more = None
    if found.next_cursor is not None:
        more = (
            f"{reverse('outreach:inbox_list')}?"
            f"{urlencode(query.params(after=found.next_cursor.encode()))}"
        )
    filters = urlencode(query.params())
    return {
        "query": query,
        "rows_html": rows_html(_rows(found, filters), selected),
        "more_url": more,
        "filters": filters,
        "selected": selected,
    }


def rows_html(rows: list[dict[str, Any]], selected: int | None) -> SafeString:
    """The rows printed by the compiled rows template (console.rows); "" for none."""
    words = {
        "you": gettext("You"),
        "unread": gettext("Unread"),
        "new": gettext("new"),
        "hot": gettext("Hot"),
        "review": gettext("Needs review"),
        "taken": gettext("Taken over"),
        "closed": gettext("Closed"),
    }
    return render_rows("outreach/inbox/_rows.jinja", rows=rows, selected=selected, words=words)


def _linker(query: InboxQuery) -> Callable[..., str]:
    """The inbox's URL for this query with `changes` (None drops a key)."""
    base = reverse("outreach:inbox")

    def link(**changes: Any) -> str:
        found = urlencode(query.params(**changes))
        return f"{base}?{found}" if found else base

    return link


def _list_url(filters: str) -> str:
    return (
        f"{reverse('outreach:inbox_list')}?{filters}" if filters else reverse("outreach:inbox_list")
    )


def deferred_list_context(query: InboxQuery, selected: int) -> dict[str, Any]:
    """The list pane of a page opened on a thread, left for the browser to load (htmx, on
    load) once the thread is on screen: the page costs the thread alone. No query."""
    filters = urlencode(query.params())
    return {
        "query": query,
        "filters": filters,
        "selected": selected,
        "list_deferred": True,
        "list_poll_url": _list_url(filters),
        "clear_url": _linker(query)(view=query.view if query.view != "all" else None, q=None),
    }


def list_context(
    request: AuthenticatedHttpRequest,
    query: InboxQuery,
    stamp: str | None = None,
    selected: int | None = None,
) -> dict[str, Any]:
    """The list pane: its views with unread counts, the filters, one keyset page (`stamp`:
    the list's version when the caller has it already; `selected`: the open conversation)."""
    scope = scope_for(request)
    user = request.user
    context = rows_context(request, query, selected)
    tenant_phones = list(
        scope.queryset(Phone).order_by("label", "number").values("pk", "label", "number")[:50]
    )
    counts, by_phone = conversations.unread_summary(
        scope.tenant, user, [p["pk"] for p in tenant_phones]
    )
    link = _linker(query)
    views = [
        {
            "key": key,
            "label": label,
            "count": (in_view := counts.get(f"view:{key}")),
            "count_text": num(in_view),
            "url": link(view=None if key == "all" else key),
            "active": query.view == key,
        }
        for key, label in conversations.VIEWS.items()
    ]
    channels = [
        {
            "key": key,
            "label": label,
            "count": (in_channel := counts[f"channel:{key}"]),
            "count_text": num(in_channel),
            "url": link(channel=None if query.channel == key else key),
            "active": query.channel == key,
        }
        for key, label in conversations.CHANNELS.items()
    ]
    phones = [
        {
            "pk": phone["pk"],
            "number": phone["number"],
            "name": phone["label"] or phone["number"],
            "count": (on_phone := by_phone.get(phone["pk"]) or 0),
            "count_text": num(on_phone),
            "url": link(phone=None if query.phone == phone["pk"] else phone["pk"]),
            "active": query.phone == phone["pk"],
        }
        for phone in tenant_phones
    ]
    chosen = next((p["name"] for p in phones if p["active"]), "")
    facets = render_rows(
        "outreach/inbox/_facets.jinja",
        views=views,
        channels=channels,
        phones=phones,
        phone_filter=bool(query.phone),
        # the phones' summary: the chosen phone, or what the list offers
        phone_summary=chosen or ("" if query.phone else gettext("By phone")),
        words={"views": gettext("Views"), "unread": gettext("unread")},
    )
    filters = context["filters"]
    return {
        **context,
        "facets_html": facets,
        "list_poll_url": _list_url(filters),
        "list_stamp": stamp or inbox_state.list_stamp(scope.tenant, user),
        "clear_url": link(view=query.view if query.view != "all" else None, q=None),
        # The navigation's badge (console.context_processors) is the open view's count:
        # the same conversations, counted already.
        "inbox_unread": counts["view:all"],
    }


def thread_context(
    request: AuthenticatedHttpRequest,
    lead: Lead,
    before: Cursor | None = None,
    stamp: str | None = None,
    since: Cursor | None = None,
) -> dict[str, Any]:
    """The thread pane (`stamp`: the thread's version when the caller has it already;
    `since`: from that message on, what "show earlier" had loaded), or with `before` the
    messages "show earlier" adds (no stamp: they carry none)."""
    found = inbox_thread.thread(lead, before=before, since=since)
    earlier_url = None
    if found.earlier is not None:
        earlier_url = (
            f"{reverse('outreach:inbox_timeline', args=[lead.pk])}?"
            f"{urlencode({'before': found.earlier.encode()})}"
        )
    return {
        "lead": lead,
        "journey": getattr(lead, "journey", None),
        "entries_html": thread_html(found.entries),
        "earlier_url": earlier_url,
        "thread_stamp": stamp or ("" if before else inbox_state.thread_stamp(lead)),
        # Where the poll keeps the thread from: set once "show earlier" has loaded more
        # (its answer moves it back, out of band), kept by every poll after that.
        "thread_since": (found.oldest.encode() if found.oldest and (before or since) else ""),
        "thread_since_oob": before is not None,
        "thread_poll_url": reverse("outreach:inbox_timeline", args=[lead.pk]),
    }


_UNKNOWN: Any = object()


def page_context(
    request: AuthenticatedHttpRequest,
    lead: Lead | None,
    note_form: NoteForm | None = None,
    closed_at: datetime | None = _UNKNOWN,
) -> dict[str, Any]:
    """The whole page: the list, or with `lead` its thread and the list left for the
    browser to load (`deferred_list_context`) (`closed_at`: when the user closed the
    conversation, None when open, as `inbox_state.mark_read` answers it; read here when
    not given)."""
    query = InboxQuery.from_params(request.GET)
    if lead is None:
        return list_context(request, query)
    context = deferred_list_context(query, lead.pk)
    context.update(thread_context(request, lead))
    context["note_form"] = note_form or NoteForm()
    if closed_at is _UNKNOWN:
        closed_at = _closed_at(request, lead)
    context["closed"] = _is_closed(lead, closed_at)
    return context


def _closed_at(request: AuthenticatedHttpRequest, lead: Lead) -> datetime | None:
    from hitl.models import ConversationState

    state = ConversationState.objects.filter(user=request.user, lead=lead).first()
    return state.closed_at if state else None


def _is_closed(lead: Lead, closed_at: datetime | None) -> bool:
    journey = getattr(lead, "journey", None)
    return conversations.is_closed(closed_at, journey.last_reply_at if journey else None)


@login_required
@require_GET
def inbox(request: AuthenticatedHttpRequest) -> HttpResponse:
    return render(request, "outreach/inbox/inbox.html", page_context(request, None))


@login_required
@require_GET
def thread(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """The page opened on a conversation; asked from the list (`wants_pane`), the
    conversation pane alone (the list on screen stays as it is)."""
    lead = _lead(scope_for(request), pk)
    closed_at = inbox_state.mark_read(lead, request.user)  # before the list: its row is read
    context = page_context(request, lead, closed_at=closed_at)
    template = PANE_TEMPLATE if wants_pane(request) else "outreach/inbox/inbox.html"
    return render(request, template, context)


@poll_login_required
@require_GET
def list_partial(request: AuthenticatedHttpRequest) -> HttpResponse:
    """The list pane alone: the 10-second poll (204 when nothing changed since the stamp
    the page holds) and the "more" button's next page (`after`)."""
    query = InboxQuery.from_params(request.GET)
    stamp = None
    if query.cursor is None:
        stamp = inbox_state.list_stamp(scope_for(request).tenant, request.user)
        if request.GET.get("v") == stamp:
            return HttpResponse(status=204)
    selected = parse_id(request.GET.get("sel"))
    if query.cursor is not None:  # "Show more": the rows alone, no counts or stamp
        context = rows_context(request, query, selected)
    else:
        context = list_context(request, query, stamp, selected)
        # The bar's badge follows the list's count (a conversation opened beside the list
        # was read meanwhile).
        context["badge_oob_html"] = inbox_badge(context["inbox_unread"], oob=True)
    template = "outreach/inbox/_rows.html" if query.cursor else LIST_TEMPLATE
    return render(request, template, context)


@poll_login_required
@require_GET
def timeline_partial(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """The thread alone: the 10-second poll and the refresh after a send (204 when nothing
    changed), or the messages before `before` ("show earlier")."""
    lead = _lead(scope_for(request), pk)
    before = Cursor.decode(request.GET.get("before"))
    if before is not None:
        context = thread_context(request, lead, before)
        return render(request, "outreach/inbox/_entries.html", context)
    stamp = inbox_state.thread_stamp(lead)
    if request.GET.get("v") == stamp:
        return HttpResponse(status=204)
    inbox_state.mark_read(lead, request.user)  # the operator is looking at it
    since = Cursor.decode(request.GET.get("since"))
    return render(request, THREAD_TEMPLATE, thread_context(request, lead, stamp=stamp, since=since))
