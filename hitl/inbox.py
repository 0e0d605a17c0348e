"""The inbox's conversation list: which conversations, in which order, and how many are
unread in each view (docs/inbox.md).

A conversation is one lead with at least one message: its journey was contacted
(`last_contact_at`) or the lead replied (`last_reply_at`). Both are kept on the journey by
the send path and the reply path, so the list, its order ("last activity": the later of the
two) and the unread rule read journeys, never the message log. Each operator's own place in
a conversation is a `ConversationState` row (read up to, closed since), joined once.

Every function here answers in a fixed number of queries, however many conversations there
are and however deep the page: the unread counts are one query (one pass over the user's
unread conversations with a conditional sum per view and phone, plus capped counts for what
needs the message log), the pages are keyset pages (by last activity, then lead id).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

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
from django.db.models.functions import Coalesce, Greatest
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext_lazy as _

from cerniq.models import Tenant
from cerniq.params import parse_id, text_param
from hitl.models import ConversationState, ReviewItem
from hitl.review import OPEN_STATUSES
from hitl.routing import HOT_INTENTS
from outreach.lead_filters import search_match
from outreach.models import Channel, Journey, Lead, Message

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


def _listed(tenant: Tenant, user: User) -> QuerySet[Lead]:
    """The tenant's conversations with only what every page of the list needs: `activity`
    (last message either way) and the user's own marks (`read_at`, `closed_at`, one join
    of their `ConversationState`). The views' per-row tests (review items, channels,
    latest reply) are added by the filters that need them (`view_q`, `channel_q`)."""
    return (
        # The journey's tenant too: the list's order is an index of journeys by tenant.
        Lead.objects.filter(tenant=tenant, journey__tenant=tenant)
        .annotate(
            my_state=FilteredRelation(
                "conversation_states", condition=Q(conversation_states__user=user)
            ),
            activity=activity(),
            read_at=F("my_state__last_read_at"),
            closed_at=F("my_state__closed_at"),
        )
        # A conversation has a reply or a contact: its activity is not NULL. Written on the
        # indexed expression, so the walk down `journey_activity_idx` starts past the
        # never-contacted journeys (NULL sorts first in a DESC index).
        .filter(activity__isnull=False)
    )


def _open_items() -> QuerySet[ReviewItem]:
    # Correlated on the journey's lead id, as `_latest_intent`.
    return ReviewItem.objects.filter(lead=OuterRef("journey__lead_id"), status__in=OPEN_STATUSES)


def conversations(tenant: Tenant, user: User) -> QuerySet[Lead]:
    """The tenant's conversations, as `_listed` with the intent of the lead's latest reply
    (`last_intent`, the journey's copy: hitl.reply_intent) too: what `view_q` filters."""
    return _listed(tenant, user).annotate(last_intent=F("journey__last_reply_intent"))


def unread_q() -> Q:
    """The lead replied after the user last read the conversation (or they never did)."""
    return Q(journey__last_reply_at__isnull=False) & (
        Q(read_at__isnull=True) | Q(read_at__lt=F("journey__last_reply_at"))
    )


def open_q() -> Q:
    """Not closed by the user, or closed before the lead's latest reply (which reopens it)."""
    return Q(closed_at__isnull=True) | Q(journey__last_reply_at__gt=F("closed_at"))


def closed_q() -> Q:
    return Q(closed_at__isnull=False) & (
        Q(journey__last_reply_at__isnull=True) | Q(journey__last_reply_at__lte=F("closed_at"))
    )


def is_closed(closed_at: datetime | None, last_reply_at: datetime | None) -> bool:
    """`closed_q` for one conversation already loaded: closed by the user and no reply
    since (a later reply reopens it)."""
    return closed_at is not None and (last_reply_at is None or last_reply_at <= closed_at)


def needs_review_q() -> Q:
    """The journey's review flag: set while the lead has an open review item (hitl.review
    keeps it so), and by whatever else asks a person to look."""
    return Q(journey__requires_human_review=True)


def facet_q(view: str, user: User) -> Q:
    """What a view adds to "open" (on `conversations()`). Each condition starts with a
    cheap column test, so the correlated subqueries run only for the rows it lets by."""
    if view == "unread":
        return unread_q()
    if view == "mine":
        return (needs_review_q() & Q(Exists(_open_items().filter(assignee=user)))) | Q(
            journey__taken_over_by=user
        )
    if view == "unassigned":
        return (
            needs_review_q()
            & Q(journey__taken_over_by__isnull=True)
            & ~Q(Exists(_open_items().filter(assignee__isnull=False)))
        )
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
    return Q(
        Exists(
            Message.objects.filter(
                lead=OuterRef("journey__lead_id"), channel__in=_CHANNEL_VALUES[channel]
            )
        )
    )


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


@dataclass(slots=True)
class Row:
    """One conversation of a list page: the lead, its journey's few columns the row shows,
    and the annotations of `conversations()`."""

    pk: int
    name: str
    contact_name: str
    activity: datetime
    read_at: datetime | None
    closed_at: datetime | None
    last_intent: str | None
    last_reply_at: datetime | None
    requires_human_review: bool
    taken_over_by_id: int | None
    last_message_id: int | None


_ROW_COLUMNS = (
    "pk",
    "name",
    "contact_name",
    "activity",
    "read_at",
    "closed_at",
    "last_intent",
    "journey__last_reply_at",
    "journey__requires_human_review",
    "journey__taken_over_by_id",
    "last_message_id",
)
# What a row shows of its latest message.
LAST_MESSAGE_COLUMNS = ("lead_id", "channel", "direction", "subject", "body")


@dataclass
class Page:
    rows: list[Row]
    next_cursor: Cursor | None
    # Each row's latest message (LAST_MESSAGE_COLUMNS), by lead id.
    last_messages: dict[int, dict[str, Any]] = field(default_factory=dict)


def page(tenant: Tenant, user: User, query: InboxQuery) -> Page:
    """One keyset page of the list, each row with its latest message (`last_messages`, by
    lead id): two queries, whatever the page's depth. Only the columns a row shows are read,
    as plain values."""
    qs = narrowed(tenant, user, query)
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
    rows = [Row(*values) for values in qs.values_list(*_ROW_COLUMNS)[: PAGE_SIZE + 1]]
    more = len(rows) > PAGE_SIZE
    rows = rows[:PAGE_SIZE]
    ids = [row.last_message_id for row in rows if row.last_message_id]
    last = Message.objects.filter(pk__in=ids).values(*LAST_MESSAGE_COLUMNS) if ids else []
    by_lead = {m["lead_id"]: m for m in last if m["lead_id"] is not None}
    cursor = Cursor(rows[-1].activity, rows[-1].pk) if more and rows else None
    return Page(rows=rows, next_cursor=cursor, last_messages=by_lead)


# Unread counts stop at this many: "99+" is all a badge needs (docs/inbox.md).
COUNT_CAP = 100


class Capped(int):
    """A count that stopped at COUNT_CAP: shows as "99+" from there."""

    def __str__(self) -> str:
        return f"{COUNT_CAP - 1}+" if self >= COUNT_CAP else int.__repr__(self)


def capped(value: int | None) -> Capped:
    return Capped(min(value or 0, COUNT_CAP))


# --- the unread counts, in SQL written once -------------------------------------------
#
# The counts read journeys alone (never the leads table): a journey has its lead's tenant,
# and every condition of a view that is a journey column is tested in one pass over the
# user's unread conversations, read from the partial index of replied journeys
# (`journey_replied_idx`). The review items a view needs are two small uncorrelated
# subqueries (a hash each). "Hot" is a journey column too (the latest reply's intent, kept
# by hitl.reply_intent). Only the channels need the message log: those are counted as
# before, stopping at COUNT_CAP rows.

_J = Journey._meta.db_table
_S = ConversationState._meta.db_table
_R = ReviewItem._meta.db_table
_M = Message._meta.db_table


class _Sql:
    """SQL text and its parameters, written in order."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.params: list[Any] = []

    def add(self, text: str, *params: Any) -> _Sql:
        self.parts.append(text)
        self.params.extend(params)
        return self

    def values(self, values: Any) -> str:
        """Placeholders for `values`, whose parameters are added."""
        values = list(values)
        self.params.extend(values)
        return ", ".join(["%s"] * len(values))

    @property
    def text(self) -> str:
        return "".join(self.parts)


def _unread_from(q: _Sql, user: User, tenant: Tenant, j: str, s: str) -> None:
    """FROM and WHERE of the user's open conversations with an unread reply (`open_q` and
    `unread_q` in SQL), on journeys alone: a journey has its lead's tenant."""
    q.add(
        f" FROM {_J} {j} LEFT OUTER JOIN {_S} {s}"
        f" ON ({s}.lead_id = {j}.lead_id AND {s}.user_id = %s)"
        f" WHERE {j}.tenant_id = %s AND {j}.last_reply_at IS NOT NULL"
        f" AND ({s}.closed_at IS NULL OR {j}.last_reply_at > {s}.closed_at)"
        f" AND ({s}.last_read_at IS NULL OR {s}.last_read_at < {j}.last_reply_at)",
        user.pk,
        tenant.pk,
    )


def _capped(q: _Sql, user: User, tenant: Tenant, condition: Callable[[_Sql], None]) -> None:
    """A scalar subquery: how many of the user's unread conversations (journey `u`) meet
    `condition`, stopping at COUNT_CAP rows."""
    q.add("(SELECT COUNT(*) FROM (SELECT 1 AS one")
    _unread_from(q, user, tenant, "u", "us")
    q.add(" AND ")
    condition(q)
    q.add(" LIMIT %s) capped)", COUNT_CAP)


def _review_items(q: _Sql, tenant: Tenant, assignee: str) -> None:
    """The leads with an open review item whose assignee is `assignee` (SQL)."""
    q.add(f"SELECT r.lead_id FROM {_R} r WHERE r.tenant_id = %s AND r.status IN (", tenant.pk)  # noqa: S608
    q.add(q.values(OPEN_STATUSES))
    q.add(f") AND r.assignee_id {assignee}")


def _used(channel: str) -> Callable[[_Sql], None]:
    def condition(q: _Sql) -> None:
        q.add(f"EXISTS (SELECT 1 FROM {_M} m WHERE m.lead_id = u.lead_id AND m.channel IN (")  # noqa: S608
        q.add(q.values(_CHANNEL_VALUES[channel]) + "))")

    return condition


def _summary(tenant: Tenant, user: User) -> _Sql:
    """One row per assigned phone (NULL: none) of the user's unread open conversations:
    how many, how many in the views that are journey columns (one pass, conditional sums),
    then the capped counts that need the message log (the same on every row)."""
    q = _Sql().add("SELECT j.assigned_phone_id, COUNT(*),")
    # Mine: an open review item assigned to me (with the review flag), or taken over by me.
    q.add(" SUM(CASE WHEN (j.requires_human_review AND j.lead_id IN (")
    _review_items(q, tenant, "= %s")
    q.params.append(user.pk)
    q.add(")) OR j.taken_over_by_id = %s THEN 1 ELSE 0 END),", user.pk)
    # Unassigned: needs review, nobody took it over, no open review item has an assignee.
    q.add(" SUM(CASE WHEN j.requires_human_review AND j.taken_over_by_id IS NULL")
    q.add(" AND j.lead_id NOT IN (")
    _review_items(q, tenant, "IS NOT NULL")
    q.add(") THEN 1 ELSE 0 END),")
    q.add(" SUM(CASE WHEN j.taken_over_by_id = %s THEN 1 ELSE 0 END),", user.pk)
    q.add(" SUM(CASE WHEN j.requires_human_review THEN 1 ELSE 0 END),")
    # Hot: the latest reply's intent, the journey's copy (hitl.reply_intent).
    q.add(" SUM(CASE WHEN j.last_reply_intent IN (")
    q.add(q.values(sorted(HOT_INTENTS)) + ") THEN 1 ELSE 0 END), ")
    _capped(q, user, tenant, _used("whatsapp"))
    q.add(", ")
    _capped(q, user, tenant, _used("email"))
    _unread_from(q, user, tenant, "j", "s")
    q.add(" GROUP BY j.assigned_phone_id")
    return q


def unread_summary(
    tenant: Tenant, user: User, phone_ids: list[int]
) -> tuple[dict[str, Capped], dict[int, Capped]]:
    """The user's unread open conversations counted per view ("view:mine"), per channel
    ("channel:email") and per assigned phone (of `phone_ids`), each capped at COUNT_CAP:
    one query, one pass over the unread conversations (docs/inbox.md, "Counts")."""
    q = _summary(tenant, user)
    with connection.cursor() as cursor:
        cursor.execute(q.text, q.params)
        found = cursor.fetchall()
    sums = [0] * 6  # all, mine, unassigned, taken, review, hot
    from_log = (0, 0)  # whatsapp, email: the same on every row
    phones: dict[int, int] = {}
    for phone, *counted in found:
        for i, n in enumerate(counted[:6]):
            sums[i] += n or 0
        if phone is not None:
            phones[phone] = counted[0]
        from_log = tuple(counted[6:])
    total, mine, unassigned, taken, review, hot = sums
    whatsapp, email = from_log
    counts = {
        "view:all": capped(total),
        "view:unread": capped(total),
        "view:mine": capped(mine),
        "view:unassigned": capped(unassigned),
        "view:taken": capped(taken),
        "view:review": capped(review),
        "view:hot": capped(hot),
        "channel:whatsapp": capped(whatsapp),
        "channel:email": capped(email),
    }
    return counts, {pk: capped(phones.get(pk)) for pk in phone_ids}


def unread_counts(tenant: Tenant, user: User) -> dict[str, Capped]:
    """Unread conversations per view and per channel ("channel:whatsapp"), each capped at
    COUNT_CAP: one query, however many conversations there are."""
    return unread_summary(tenant, user, [])[0]


def unread_by_phone(tenant: Tenant, user: User, phone_ids: list[int]) -> dict[int, Capped]:
    """Unread open conversations of each of these assigned phones, capped: one query (none
    without phones)."""
    if not phone_ids:
        return {}
    return unread_summary(tenant, user, phone_ids)[1]


def unread_total_sql(tenant: Tenant, user: User) -> tuple[str, list[Any]]:
    """`unread_total`'s query (SQL and parameters), for a caller that asks it together with
    other numbers (the top bar's badges, console.context_processors)."""
    q = _Sql().add("SELECT COUNT(*) FROM (SELECT 1 AS one")
    _unread_from(q, user, tenant, "j", "s")
    q.add(" LIMIT %s) capped", COUNT_CAP)
    return q.text, q.params


def unread_total(tenant: Tenant, user: User) -> Capped:
    """The navigation's badge: open conversations with a reply the user has not read,
    capped. One query over journeys alone (the partial index of replied journeys), which
    stops at COUNT_CAP rows."""
    sql, params = unread_total_sql(tenant, user)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        (n,) = cursor.fetchone()
    return capped(n)
