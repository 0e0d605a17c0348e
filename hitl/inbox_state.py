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


def mark_read(lead: Lead, user: User, now: datetime | None = None) -> datetime | None:
    """The user has seen the conversation as it is now. Returns when the user closed it
    (None: open), for the page that shows it. One statement: the user's row is inserted or
    updated (`INSERT … ON CONFLICT … DO UPDATE … RETURNING`, PostgreSQL and SQLite)."""
    adapt = connection.ops.adapt_datetimefield_value
    changed = timezone.now()
    params = [lead.tenant_id, user.pk, lead.pk, adapt(now or changed), adapt(changed)]
    state = next(iter(ConversationState.objects.raw(_MARK_READ, params)))
    return state.closed_at


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


def _mark_read_sql() -> str:
    table = ConversationState._meta.db_table
    return f"""
        INSERT INTO {table} (tenant_id, user_id, lead_id, last_read_at, closed_at, updated_at)
        VALUES (%s, %s, %s, %s, NULL, %s)
        ON CONFLICT (user_id, lead_id)
        DO UPDATE SET last_read_at = excluded.last_read_at, updated_at = excluded.updated_at
        RETURNING id, closed_at
    """  # noqa: S608 - a table name and placeholders only


_MARK_READ = _mark_read_sql()


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


def _thread_stamp_sql() -> str:
    # sent/delivered/read/failed: status moves written by UPDATEs that leave updated_at
    # alone. Each scalar subquery and the messages' aggregate use the lead's indexes.
    message, journey = Message._meta.db_table, Journey._meta.db_table
    triage, transition = ReplyTriage._meta.db_table, StageTransition._meta.db_table
    note, item = Note._meta.db_table, ReviewItem._meta.db_table
    statuses = ", ".join(f"%(open{i})s" for i in range(len(OPEN_STATUSES)))
    return f"""
        SELECT m.changed, m.n, m.sent, m.delivered, m.seen, m.failed,
            (SELECT MAX(triaged_at) FROM {triage} WHERE lead_id = %(lead)s),
            (SELECT MAX(created_at) FROM {transition} WHERE journey_id = j.id),
            (SELECT MAX(created_at) FROM {note} WHERE lead_id = %(lead)s),
            (SELECT COUNT(*) FROM {note} WHERE lead_id = %(lead)s),
            (SELECT COUNT(*) FROM {item} WHERE lead_id = %(lead)s AND status IN ({statuses})),
            j.stage, j.requires_human_review, j.taken_over_by_id
        FROM {journey} j,
            (SELECT MAX(updated_at) AS changed, COUNT(*) AS n, MAX(sent_at) AS sent,
                MAX(delivered_at) AS delivered, MAX(read_at) AS seen, MAX(failed_at) AS failed
             FROM {message} WHERE lead_id = %(lead)s) m
        WHERE j.lead_id = %(lead)s
    """  # noqa: S608 - table names and placeholders only


def thread_stamp(lead: Lead) -> str:
    """Changes when the thread may look different: a message stored or its status moved
    (sent, delivered, read, failed), a reply analysed, a stage change, a note, the journey's
    review or take-over. One query, written out: the lead's messages are read once for all
    their columns, and the ORM does not compile eleven subqueries on every poll."""
    with connection.cursor() as cursor:
        cursor.execute(_THREAD_STAMP, {"lead": lead.pk, **_OPEN})
        row = cursor.fetchone()
    return _digest(row)


_THREAD_STAMP = _thread_stamp_sql()
_OPEN = {f"open{i}": str(status) for i, status in enumerate(OPEN_STATUSES)}
