"""The journey's copy of the intent of the lead's latest reply (`Journey.last_reply_intent`).

The inbox's "Hot" view and its unread count ask, for each conversation, what the lead's
latest reply wanted (hitl.routing.HOT_INTENTS). Read from the message log that is a lookup
of the latest reply per conversation, hundreds of them for one count; kept on the journey it
is a column beside `last_reply_at`, read in the same pass (docs/inbox.md, "Counts").

Two moments change it, both in hitl.replies: a reply is stored (no intent yet: "" until its
triage) and a reply's triage is recorded (its intent, when it is still the lead's latest
reply: a triage that finishes after a newer reply arrived leaves the newer one's place).
"""

from __future__ import annotations

from django.db.models import Exists, OuterRef, Q, QuerySet, Subquery, Value
from django.db.models.fields.json import KT
from django.db.models.functions import Coalesce

from outreach.models import Journey, Message


def _newer_replies(lead_id: int, message: Message) -> QuerySet[Message]:
    """Replies of the lead stored after `message` (by created_at, then id)."""
    return Message.objects.filter(lead_id=lead_id, direction=Message.Direction.INBOUND).filter(
        Q(created_at__gt=message.created_at) | Q(created_at=message.created_at, pk__gt=message.pk)
    )


def triaged(message: Message, intent: str) -> None:
    """The triage of `message` (a reply) read `intent`: the journey's copy, when no newer
    reply of the lead exists (a message of no lead: nothing)."""
    lead_id = message.lead_id
    if lead_id is None:
        return
    journeys = Journey.objects.filter(lead_id=lead_id)
    journeys.exclude(Exists(_newer_replies(lead_id, message))).update(
        last_reply_intent=intent or ""
    )


def refresh(journeys: QuerySet[Journey]) -> int:
    """Work the copy out again from the message log for `journeys` (a fill made outside the
    reply path, a repair): the latest reply's intent, "" when it has none. Returns how many
    journeys were written."""
    latest = (
        Message.objects.filter(lead=OuterRef("lead_id"), direction=Message.Direction.INBOUND)
        .order_by("-created_at", "-pk")
        .annotate(intent=KT("analysis__triage__intent"))
        .values("intent")[:1]
    )
    return journeys.update(last_reply_intent=Coalesce(Subquery(latest), Value("")))
