"""The inbox's conversation list: which conversations, in which order, and how many are
unread in each view (docs/inbox.md).

A conversation is one lead with at least one message: its journey was contacted
(`last_contact_at`) or the lead replied (`last_reply_at`). Both are kept on the journey by
the send path and the reply path, so the list, its order ("last activity": the later of the
two) and the unread rule read journeys, never the message log. Each operator's own place in
a conversation is a `ConversationState` row (read up to, closed since), joined once.

Every function here answers in a fixed number of queries, however many conversations there
are and however deep the page: the counts are one aggregate (`Count(filter=...)`), the pages
are keyset pages (by last activity, then lead id).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

from django.contrib.auth.models import User
from django.db import connection
from django.db.models import (
    DateTimeField,
    Exists,
    F,
    FilteredRelation,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
)
from django.db.models.fields.json import KT
from django.db.models.functions import Coalesce, Greatest
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext_lazy as _

from cerniq.models import Tenant
from cerniq.params import parse_id, text_param
from hitl.models import ReviewItem
from hitl.review import OPEN_STATUSES
from hitl.routing import HOT_INTENTS
from outreach.lead_filters import search_match
from outreach.models import Channel, Lead, Message

PAGE_SIZE = 50

# The views of the list, in the order the page shows them, with their names.
VIEWS: dict[str, Any] = {
    "all": _("Open"),
    "unread": _("Unread"),
    "mine": _("Mine"),
    "unassigned": _("Unassigned"),
    "taken": _("Taken over by me"),
    "review": _("Needs review"),
    "hot": _("Hot"),
    "closed": _("Closed"),
}
CHANNELS: dict[str, Any] = {"whatsapp": _("WhatsApp"), "email": _("Email")}
_CHANNEL_VALUES = {
    "whatsapp": [Channel.WHATSAPP],
    "email": [Channel.EMAIL_COLD, Channel.EMAIL_WARM],
}


def activity() -> Greatest:
    """A conversation's last activity, the later of the last reply and the last contact,
    written exactly as the journey's expression index `journey_activity_idx` is (each
    Coalesce falls back on the other column, so no constant is needed and a conversation,
    which has at least one of them, never sorts as NULL)."""
    return Greatest(
        Coalesce("journey__last_reply_at", "journey__last_contact_at"),
        Coalesce("journey__last_contact_at", "journey__last_reply_at"),
        output_field=DateTimeField(),
    )


def conversations(tenant: Tenant, user: User) -> QuerySet[Lead]:
    """The tenant's conversations, each with what the list and its views need:
    `activity` (last message either way), the user's `my_state` (joined), whether an open
    review item is assigned to the user, or to anybody, messages on
    WhatsApp / by email, and the intent of the lead's latest reply (`last_intent`)."""
    open_items = ReviewItem.objects.filter(lead=OuterRef("pk"), status__in=OPEN_STATUSES)
    latest_reply = Message.objects.filter(
        lead=OuterRef("pk"), direction=Message.Direction.INBOUND
    ).order_by("-created_at", "-pk")
    return (
        # The journey's tenant too: the list's order is an index of journeys by tenant.
        Lead.objects.filter(tenant=tenant, journey__tenant=tenant)
        .filter(Q(journey__last_reply_at__isnull=False) | Q(journey__last_contact_at__isnull=False))
        .annotate(
            my_state=FilteredRelation(
                "conversation_states", condition=Q(conversation_states__user=user)
            ),
            activity=activity(),
            read_at=F("my_state__last_read_at"),
            closed_at=F("my_state__closed_at"),
            last_intent=Subquery(
                latest_reply.annotate(intent=KT("analysis__triage__intent")).values("intent")[:1]
            ),
        )
        # Only filtered on: aliases, not selected, so a page does not compute them per row.
        .alias(
            assigned_to_me=Exists(open_items.filter(assignee=user)),
            assigned=Exists(open_items.filter(assignee__isnull=False)),
            on_whatsapp=Exists(
                Message.objects.filter(lead=OuterRef("pk"), channel__in=_CHANNEL_VALUES["whatsapp"])
            ),
            on_email=Exists(
                Message.objects.filter(lead=OuterRef("pk"), channel__in=_CHANNEL_VALUES["email"])
            ),
        )
    )


def unread_q() -> Q:
    """The lead replied after the user last read the conversation (or they never did)."""
    return Q(journey__last_reply_at__isnull=False) & (
        Q(my_state__last_read_at__isnull=True)
        | Q(my_state__last_read_at__lt=F("journey__last_reply_at"))
    )


def open_q() -> Q:
    """Not closed by the user, or closed before the lead's latest reply (which reopens it)."""
    return Q(my_state__closed_at__isnull=True) | Q(
        journey__last_reply_at__gt=F("my_state__closed_at")
    )


def closed_q() -> Q:
    return Q(my_state__closed_at__isnull=False) & (
        Q(journey__last_reply_at__isnull=True)
        | Q(journey__last_reply_at__lte=F("my_state__closed_at"))
    )


def needs_review_q() -> Q:
    """The journey's review flag: set while the lead has an open review item (hitl.review
    keeps it so), and by whatever else asks a person to look."""
    return Q(journey__requires_human_review=True)


def facet_q(view: str, user: User) -> Q:
    """What a view adds to "open" (or to "unread" for the counts). Each condition starts with
    a cheap column test, so the correlated subqueries run only for the rows it lets by."""
    if view == "unread":
        return unread_q()
    if view == "mine":
        return (needs_review_q() & Q(assigned_to_me=True)) | Q(journey__taken_over_by=user)
    if view == "unassigned":
        return needs_review_q() & Q(journey__taken_over_by__isnull=True) & Q(assigned=False)
    if view == "taken":
        return Q(journey__taken_over_by=user)
    if view == "review":
        return needs_review_q()
    if view == "hot":
        return Q(journey__last_reply_at__isnull=False) & Q(last_intent__in=list(HOT_INTENTS))
    return Q()


def view_q(view: str, user: User) -> Q:
    """The conversations a view shows (docs/inbox.md has the same definitions in words)."""
    if view == "closed":
        return closed_q()
    return open_q() & facet_q(view, user)


def channel_q(channel: str) -> Q:
    """Conversations with at least one message on the channel (either way)."""
    if channel not in _CHANNEL_VALUES:
        return Q()
    return Q(**{f"on_{channel}": True})


@dataclass(frozen=True)
class Cursor:
    """Where a keyset page starts: after this (moment, id), newest first. The list pages by
    (last activity, lead id), the thread by (created_at, message id)."""

    at: datetime
    pk: int

    def encode(self) -> str:
        return f"{self.at.isoformat()}_{self.pk}"

    @classmethod
    def decode(cls, raw: str | None) -> Cursor | None:
        """None for anything that is not a cursor we wrote (the first page)."""
        # A "+" of the offset that reached us unquoted reads as a space.
        when, _sep, pk = (raw or "").replace(" ", "+").rpartition("_")
        moment = parse_datetime(when) if when else None
        number = parse_id(pk)
        if moment is None or number is None or moment.tzinfo is None:
            return None
        return cls(moment, number)


@dataclass(frozen=True)
class InboxQuery:
    """The list's filters as the page's query string carries them (unknown values ignored)."""

    view: str = "all"
    channel: str = ""
    phone: int | None = None
    q: str = ""
    cursor: Cursor | None = None

    @classmethod
    def from_params(cls, params: Any) -> InboxQuery:
        view = params.get("view") or "all"
        channel = params.get("channel") or ""
        return cls(
            view=view if view in VIEWS else "all",
            channel=channel if channel in CHANNELS else "",
            phone=parse_id(params.get("phone")),
            q=text_param(params, "q")[:200],
            cursor=Cursor.decode(params.get("after")),
        )

    def params(self, **changes: Any) -> dict[str, str]:
        """The query string of this query with `changes` (None drops a key), first page."""
        values: dict[str, Any] = {
            "view": self.view if self.view != "all" else None,
            "channel": self.channel or None,
            "phone": self.phone,
            "q": self.q or None,
            **changes,
        }
        return {k: str(v) for k, v in values.items() if v not in (None, "")}


def narrowed(tenant: Tenant, user: User, query: InboxQuery) -> QuerySet[Lead]:
    """The conversations the query shows, newest activity first (not paged)."""
    qs = conversations(tenant, user).filter(view_q(query.view, user))
    if query.channel:
        qs = qs.filter(channel_q(query.channel))
    if query.phone is not None:
        qs = qs.filter(journey__assigned_phone_id=query.phone)
    if query.q:
        qs = qs.filter(search_match(query.q))
    # The journey's lead id (the lead's id) breaks ties: the index's last column.
    return qs.order_by("-activity", "-journey__lead_id")


@dataclass
class Page:
    rows: list[Any]  # Leads with conversations()'s annotations
    next_cursor: Cursor | None
    last_messages: dict[int, Message] = field(default_factory=dict)


def page(tenant: Tenant, user: User, query: InboxQuery) -> Page:
    """One keyset page of the list, each row with its latest message (`last_messages`, by
    lead id): two queries, whatever the page's depth."""
    qs = narrowed(tenant, user, query).select_related("journey", "journey__assigned_phone")
    if query.cursor is not None:
        c = query.cursor
        # The plain bound first, so the index scan starts at the cursor, not at the top.
        qs = qs.filter(
            Q(activity__lte=c.at)
            & (Q(activity__lt=c.at) | Q(activity=c.at, journey__lead_id__lt=c.pk))
        )
    qs = qs.annotate(
        last_message_id=Subquery(
            Message.objects.filter(lead=OuterRef("pk"))
            .order_by("-created_at", "-pk")
            .values("pk")[:1]
        )
    )
    rows: list[Any] = list(qs[: PAGE_SIZE + 1])  # Leads with the annotations above
    more = len(rows) > PAGE_SIZE
    rows = rows[:PAGE_SIZE]
    ids = [row.last_message_id for row in rows if row.last_message_id]
    last = Message.objects.filter(pk__in=ids).select_related("phone") if ids else []
    by_lead = {m.lead_id: m for m in last if m.lead_id is not None}
    cursor = Cursor(rows[-1].activity, rows[-1].pk) if more and rows else None
    return Page(rows=rows, next_cursor=cursor, last_messages=by_lead)


# Unread counts stop at this many: "99+" is all a badge needs, and a count that stops
# early reads a few rows whatever the inbox's size (docs/inbox.md).
COUNT_CAP = 100


Key = TypeVar("Key", str, int)


class Capped(int):
    """A count that stopped at COUNT_CAP: shows as "99+" from there."""

    def __str__(self) -> str:
        return f"{COUNT_CAP - 1}+" if self >= COUNT_CAP else int.__repr__(self)


def capped_counts(counted: Mapping[Key, QuerySet]) -> dict[Key, Capped]:
    """COUNT(*) of each queryset's first COUNT_CAP rows, all in one query (a scalar
    subquery each over a LIMITed subquery, so each stops at the cap)."""
    if not counted:
        return {}
    parts: list[str] = []
    params: list[Any] = []
    for qs in counted.values():
        sql, more = qs.order_by().values("pk")[:COUNT_CAP].query.sql_with_params()
        parts.append(f"(SELECT COUNT(*) FROM ({sql}) AS capped)")  # noqa: S608
        params.extend(more)
    with connection.cursor() as cursor:
        cursor.execute("SELECT " + ", ".join(parts), params)
        row = cursor.fetchone()
    return {key: Capped(value or 0) for key, value in zip(counted, row, strict=True)}


def unread(tenant: Tenant, user: User) -> QuerySet[Lead]:
    """The user's open conversations with a reply they have not read."""
    return conversations(tenant, user).filter(open_q() & unread_q())


def unread_counts(tenant: Tenant, user: User) -> dict[str, Capped]:
    """Unread conversations per view and per channel ("channel:whatsapp"), each capped at
    COUNT_CAP: one query, however many conversations there are."""
    base = unread(tenant, user)
    counted = {
        f"view:{view}": base.filter(facet_q(view, user)) for view in VIEWS if view != "closed"
    }
    for channel in CHANNELS:
        counted[f"channel:{channel}"] = base.filter(channel_q(channel))
    return capped_counts(counted)


def unread_by_phone(tenant: Tenant, user: User, phone_ids: list[int]) -> dict[int, Capped]:
    """Unread open conversations of each of these assigned phones, capped: one query."""
    base = unread(tenant, user)
    counted = {pk: base.filter(journey__assigned_phone_id=pk) for pk in phone_ids}
    return capped_counts(counted)


def unread_total(tenant: Tenant, user: User) -> Capped:
    """The navigation's badge: open conversations with a reply the user has not read,
    capped. One query, without the list's other annotations."""
    badge = (
        Lead.objects.filter(tenant=tenant, journey__last_reply_at__isnull=False)
        .annotate(
            my_state=FilteredRelation(
                "conversation_states", condition=Q(conversation_states__user=user)
            )
        )
        .filter(open_q() & unread_q())
    )
    return capped_counts({"total": badge})["total"]
