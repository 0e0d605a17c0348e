"""The inbox's thread: one lead's messages as a chat, with the stage changes and the team
notes between them by time (docs/inbox.md).

The latest THREAD_LATEST messages first; "show earlier" asks for the ones before the oldest
shown (a keyset on created_at, id). Whatever the thread's length, a page costs the same few
queries: the messages, their attachments, the stage changes and the notes of the span the
messages cover. Each is read as plain values (no model instances, and none of the message's
provider payloads): `console.views.thread_rows` turns them into the rows the page prints.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import Q
from django.db.models.fields.json import KeyTextTransform

from hitl.analysis import words
from hitl.inbox import Cursor
from hitl.models import Note
from outreach.models import Channel, Lead, Message, MessageAttachment, StageTransition
from outreach.past_messages import history_flag

THREAD_LATEST = 50
# A poll after "show earlier" re-renders everything from the oldest message shown, up to
# this many (a thread opened and scrolled back further starts again from the latest).
SINCE_LIMIT = 500

# What a bubble shows of a message (`sender`: the mailbox an email went out from).
MESSAGE_FIELDS = (
    "pk",
    "channel",
    "direction",
    "status",
    "subject",
    "body",
    "error",
    "is_manual",
    "analysis",
    "counterpart",
    "created_at",
    "phone_id",
    "phone__label",
    "phone__number",
    "sent_by_id",
    "sent_by__username",
    "template_version_id",
    "template_version__version",
    "template_version__template__name",
    "sender",
    "is_history",
    "media_id",
    "media__filename",
    "media__size",
    "media__content_type",
)


@dataclass(frozen=True)
class Entry:
    """One line of the thread: a message, a stage change or a note."""

    kind: str  # "message" | "stage" | "note"
    at: datetime
    pk: int
    item: dict[str, Any]  # the row's values (MESSAGE_FIELDS for a message)
    analysis: dict[str, Any] | None = None
    via: str = ""  # a message's phone or mailbox (`via`)

    @property
    def sort_key(self) -> tuple[datetime, int, int]:
        # At the same moment a message comes before the stage change it caused.
        return (self.at, {"message": 0, "stage": 1, "note": 2}[self.kind], self.pk)


@dataclass(frozen=True)
class Thread:
    entries: list[Entry]
    earlier: Cursor | None  # where "show earlier" starts, None when all is shown
    oldest: Cursor | None = None  # the oldest message shown (where a poll keeps showing from)


def via(message: dict[str, Any]) -> str:
    """The number or mailbox the message (its MESSAGE_FIELDS values) went through, as the
    thread names it."""
    if message["channel"] == Channel.WHATSAPP:
        if message["phone_id"] is None:
            return ""
        label, number = message["phone__label"], message["phone__number"]
        return f"{label} · {number}" if label else number
    if message["direction"] == Message.Direction.OUTBOUND:
        return message["sender"] or ""
    return message["counterpart"]


def _span(qs, field: str, lower: datetime | None, upper: datetime | None):
    if lower is not None:
        qs = qs.filter(**{f"{field}__gte": lower})
    if upper is not None:
        qs = qs.filter(**{f"{field}__lt": upper})
    return qs


def _older_than(cursor: Cursor) -> Q:
    return Q(created_at__lt=cursor.at) | Q(created_at=cursor.at, pk__lt=cursor.pk)


def thread(
    lead: Lead,
    *,
    before: Cursor | None = None,
    since: Cursor | None = None,
    limit: int = THREAD_LATEST,
) -> Thread:
    """The latest `limit` messages of the lead before `before` (None: the newest), or with
    `since` every message from that one on (at most SINCE_LIMIT: what the operator had
    loaded with "show earlier" stays on screen when the poll refreshes the thread), and the
    stage changes and notes of the same span, oldest first."""
    messages = Message.objects.filter(lead=lead)
    if before is not None:
        messages = messages.filter(_older_than(before))
    if since is not None:
        messages = messages.exclude(_older_than(since))
        limit = SINCE_LIMIT
    found = list(
        messages.annotate(
            sender=KeyTextTransform("sender", "raw_request"), is_history=history_flag()
        )
        .order_by("-created_at", "-pk")
        .values(*MESSAGE_FIELDS)[: limit + 1]
    )
    more = len(found) > limit
    found = found[:limit]
    if since is not None and not more and found:
        oldest_found = Cursor(found[-1]["created_at"], found[-1]["pk"])
        more = Message.objects.filter(lead=lead).filter(_older_than(oldest_found)).exists()
    # The span these messages cover: from the oldest shown (or the start, when nothing is
    # hidden) up to where the page starts (or now).
    lower = found[-1]["created_at"] if more else None
    upper = before.at if before is not None else None
    transitions = _span(
        StageTransition.objects.filter(journey__lead=lead), "created_at", lower, upper
    ).values(
        "pk", "created_at", "from_stage", "to_stage", "reason", "by_system", "by_user__username"
    )
    notes = _span(Note.objects.filter(lead=lead), "created_at", lower, upper).values(
        "pk", "created_at", "body", "author__username"
    )
    files: dict[int, list[dict[str, Any]]] = {}
    if found:
        for file in MessageAttachment.objects.filter(
            message_id__in=[m["pk"] for m in found]
        ).values("pk", "message_id", "filename", "size"):
            files.setdefault(file["message_id"], []).append(dict(file))
    inbound = Message.Direction.INBOUND
    entries = [
        Entry(
            "message",
            m["created_at"],
            m["pk"],
            {**m, "files": files.get(m["pk"], ())},
            words(m["analysis"]) if m["direction"] == inbound else None,
            via(m),
        )
        for m in found
    ]
    entries += [Entry("stage", t["created_at"], t["pk"], t) for t in transitions]
    entries += [Entry("note", n["created_at"], n["pk"], n) for n in notes]
    entries.sort(key=lambda e: e.sort_key)
    oldest = Cursor(found[-1]["created_at"], found[-1]["pk"]) if found else None
    return Thread(entries=entries, earlier=oldest if more else None, oldest=oldest)
