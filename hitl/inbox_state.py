"""What an operator does to a conversation in the inbox (read, mark unread, close, reopen,
add a note) and the version stamps the inbox's polls compare (docs/inbox.md).

Read and closed are each operator's own (`ConversationState`): closing a conversation says
"I am done with it for now", it does not close it for colleagues. A reply that arrives after
the close reopens it by itself: the list compares `closed_at` with the journey's
`last_reply_at`, nothing has to run when the reply comes in.
"""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.db import connection
from django.db.models import F, Func, QuerySet, Subquery
from django.utils import timezone

from cerniq.models import Tenant
from hitl.models import ConversationState, Note, ReplyTriage, ReviewItem
from hitl.review import OPEN_STATUSES
from outreach.models import Journey, Lead, Message, StageTransition

NOTE_MAX = 5000


class NoteRefused(ValueError):
    """The note cannot be kept; the text says why, for the operator."""


def _state(lead: Lead, user: User) -> ConversationState:
    state, _created = ConversationState.objects.get_or_create(
        user=user, lead=lead, defaults={"tenant_id": lead.tenant_id}
    )
    return state


def mark_read(lead: Lead, user: User, now: datetime | None = None) -> None:
    """The user has seen the conversation as it is now."""
    state = _state(lead, user)
    state.last_read_at = now or timezone.now()
    state.save(update_fields=["last_read_at", "updated_at"])


def mark_unread(lead: Lead, user: User) -> None:
    """Unread again for the user (when the lead has replied at all)."""
    state = _state(lead, user)
    state.last_read_at = None
    state.save(update_fields=["last_read_at", "updated_at"])


def close(lead: Lead, user: User, now: datetime | None = None) -> None:
    """Done with it for now: out of the user's open list until the lead's next reply.
    Closing reads it too (a closed conversation is not waiting to be read)."""
    state = _state(lead, user)
    state.closed_at = state.last_read_at = now or timezone.now()
    state.save(update_fields=["closed_at", "last_read_at", "updated_at"])


def reopen(lead: Lead, user: User) -> None:
    state = _state(lead, user)
    state.closed_at = None
    state.save(update_fields=["closed_at", "updated_at"])


def add_note(lead: Lead, user: User, body: str) -> Note:
    """A team note on the conversation (kept for colleagues, never sent)."""
    text = (body or "").replace("\x00", "").strip()
    if not text:
        raise NoteRefused("empty")
    if len(text) > NOTE_MAX:
        raise NoteRefused("too_long")
    return Note.objects.create(tenant_id=lead.tenant_id, lead=lead, author=user, body=text)


def _max(qs: QuerySet, column: str) -> Subquery:
    """MAX(column) over qs as a scalar subquery (no GROUP BY: MAX is written as a plain
    function so the ORM does not aggregate the outer query)."""
    return Subquery(qs.order_by().values(m=Func(F(column), function="MAX"))[:1])


def _count(qs: QuerySet) -> Subquery:
    return Subquery(qs.order_by().values(n=Func(F("pk"), function="COUNT"))[:1])


def _digest(values: object) -> str:
    return hashlib.sha256(repr(values).encode()).hexdigest()[:16]


def _list_stamp_sql() -> str:
    journeys = Journey._meta.db_table
    items = ReviewItem._meta.db_table
    statuses = ", ".join(["%s"] * len(OPEN_STATUSES))
    open_items = f"FROM {items} WHERE tenant_id = %s AND status IN ({statuses})"  # noqa: S608
    taken = f"FROM {journeys} WHERE tenant_id = %s AND taken_over_by_id IS NOT NULL"  # noqa: S608
    return (
        "SELECT "  # noqa: S608
        f"(SELECT MAX(created_at) FROM {Message._meta.db_table} WHERE tenant_id = %s), "
        f"(SELECT MAX(last_reply_at) FROM {journeys} WHERE tenant_id = %s), "
        f"(SELECT MAX(last_contact_at) FROM {journeys} WHERE tenant_id = %s), "
        f"(SELECT MAX(taken_over_at) {taken}), "
        f"(SELECT COUNT(*) {taken}), "
        f"(SELECT COUNT(*) {open_items}), "
        f"(SELECT MAX(assigned_at) {open_items}), "
        f"(SELECT MAX(updated_at) FROM {ConversationState._meta.db_table} "
        "WHERE user_id = %s AND tenant_id = %s)"
    )


def list_stamp(tenant: Tenant, user: User) -> str:
    """Changes when the user's list may look different: a message stored, a reply or a send
    recorded, a review item opened, assigned or closed, a take-over, the user's own read or
    close marks. One query of index-backed MAX/COUNT subqueries, written as SQL once (the
    ORM took longer to build it than the database to answer it). Taken over: the latest
    take-over and how many, both from the small index of taken journeys
    (`journey_taken_idx`); a release empties both columns, so the count moves then."""
    t = tenant.pk
    statuses = [str(status) for status in OPEN_STATUSES]
    params: list[Any] = [t, t, t, t, t, t, *statuses, t, *statuses, user.pk, t]
    with connection.cursor() as cursor:
        cursor.execute(_list_stamp_sql(), params)
        row = cursor.fetchone()
    return _digest(row)


def thread_stamp(lead: Lead) -> str:
    """Changes when the thread may look different: a message stored or its status moved
    (sent, delivered, read, failed), a reply analysed, a stage change, a note, the journey's
    review or take-over. One query."""
    messages = Message.objects.filter(lead=lead)
    row = (
        Journey.objects.filter(lead=lead)
        .annotate(
            message=_max(messages, "updated_at"),
            message_n=_count(messages),
            # Status moves written by UPDATEs that leave updated_at alone.
            sent=_max(messages, "sent_at"),
            delivered=_max(messages, "delivered_at"),
            read=_max(messages, "read_at"),
            failed=_max(messages, "failed_at"),
            triaged=_max(ReplyTriage.objects.filter(lead=lead), "triaged_at"),
            transition=_max(StageTransition.objects.filter(journey__lead=lead), "created_at"),
            note=_max(Note.objects.filter(lead=lead), "created_at"),
            note_n=_count(Note.objects.filter(lead=lead)),
            review_n=_count(ReviewItem.objects.filter(lead=lead, status__in=OPEN_STATUSES)),
        )
        .values_list(
            "message",
            "message_n",
            "sent",
            "delivered",
            "read",
            "failed",
            "triaged",
            "transition",
            "note",
            "note_n",
            "review_n",
            "stage",
            "requires_human_review",
            "taken_over_by",
        )
        .first()
    )
    return _digest(row)
