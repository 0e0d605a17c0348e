"""First human response to a reply, recorded when it happens (docs/response-times.md).

A reply is the first inbound message of a lead since the last human response: messages the
lead writes while one is waiting join it. It is answered by the first message a person
writes or approves (`Message.is_manual`), or closed by a person who resolves or rejects a
review item of the lead without writing. Automatic messages (AI answers, opt-out
confirmations, sequence steps) never count. The wait is measured in working time (the
tenant's SendingWindow: hours, working days, Romanian public holidays).

Hooks: `reply_received` from hitl.replies.process_reply (not for opt-outs), `answered` from
a post_save of Message (hitl.apps: manual messages are created in outreach, which cannot
call up into hitl), `handled` from hitl.review when a person closes an item, `not_awaiting`
for an out-of-office answer or a reply the AI answered itself (the triage's decision).
`rebuild` recomputes a tenant's rows from its messages and
review items (the backfill command).
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import Q

from cerniq import reasons
from cerniq.models import Tenant
from hitl import reasons as why
from hitl import sla
from hitl.models import ReplyResponse, ReviewItem
from outreach import optout
from outreach.hours import SendingWindow
from outreach.models import Message, Priority
from outreach.past_messages import NOT_HISTORY
from outreach.recording import ECHO_MARK

CLOSED_BY_PERSON = (ReviewItem.Status.RESOLVED, ReviewItem.Status.DISMISSED)


def reply_received(message: Message) -> ReplyResponse | None:
    """Open a waiting reply for this inbound message, unless the lead has one waiting
    already (the message joins it). Returns the row opened, None when it joined."""
    if message.direction != Message.Direction.INBOUND or message.lead_id is None:
        return None
    if ReplyResponse.objects.filter(lead_id=message.lead_id, responded_at__isnull=True).exists():
        return None
    window = SendingWindow.for_tenant(message.tenant)
    try:
        with transaction.atomic():  # a savepoint: a concurrent reply may have opened one
            return ReplyResponse.objects.create(
                tenant_id=message.tenant_id,
                lead_id=message.lead_id,
                reply=message,
                channel=message.channel,
                received_at=message.created_at,
                local_day=window.local_date(message.created_at),
            )
    except IntegrityError:
        return None


def by_a_person(message: Message) -> bool:
    """A message a person wrote or approved. A provider's echo of a send we have no row for
    is manual too: typed in the phone's app it is a person's answer; sent through an API
    (ours, not recorded yet, maybe an automatic answer; or another tool's) it is not
    counted."""
    if not message.is_manual or message.direction != Message.Direction.OUTBOUND:
        return False
    raw = message.raw_response if isinstance(message.raw_response, dict) else {}
    if raw.get(ECHO_MARK):
        return "api" not in str(raw.get("origin") or "").lower()
    return True


def on_message_saved(sender: Any, instance: Message, created: bool, **kwargs: Any) -> None:
    """post_save of Message: a new message a person wrote or approved answers the reply."""
    if created and by_a_person(instance):
        answered(instance)


def answered(message: Message) -> ReplyResponse | None:
    """The lead's waiting reply, answered by this manual message (None: nothing waited)."""
    if message.lead_id is None:
        return None
    return _respond(
        message.lead_id,
        at=message.created_at,
        kind=ReplyResponse.Kind.ANSWERED,
        responder_id=message.sent_by_id,
        answer_id=message.pk,
    )


def handled(item: ReviewItem, user: User) -> ReplyResponse | None:
    """A person closed a review item of the lead without writing: the waiting reply is
    handled (counted apart from answered ones)."""
    if item.status not in CLOSED_BY_PERSON or item.resolved_at is None:
        return None
    return _respond(
        item.lead_id,
        at=item.resolved_at,
        kind=ReplyResponse.Kind.HANDLED,
        responder_id=user.pk,
        answer_id=None,
    )


# Replies that need nobody, as the triage decided (the inbound message's analysis): an
# out-of-office answer, or a reply the AI answered itself. `not_awaiting` forgets them when
# it happens; `rebuild` skips them.
NEEDS_NOBODY = frozenset(
    {why.DECISION_OUT_OF_OFFICE, why.DECISION_OUT_OF_OFFICE_UNTIL, why.DECISION_AUTO_REPLY}
)


def needs_nobody(message: Message) -> bool:
    parsed = reasons.parse(str((message.analysis or {}).get("decision") or ""))
    return parsed is not None and parsed[0] in NEEDS_NOBODY


def not_awaiting(message: Message) -> None:
    """An out-of-office answer, or a reply the AI answered as the triage decided, needs
    nobody: forget the waiting reply it opened."""
    ReplyResponse.objects.filter(reply=message, responded_at__isnull=True).delete()


def _respond(
    lead_id: int, *, at: datetime, kind: str, responder_id: int | None, answer_id: int | None
) -> ReplyResponse | None:
    row = (
        ReplyResponse.objects.select_for_update()
        .select_related("tenant")
        .filter(lead_id=lead_id, responded_at__isnull=True)
        .first()
    )
    if row is None:
        return None
    window = SendingWindow.for_tenant(row.tenant)
    items = ReviewItem.objects.filter(
        lead_id=lead_id, created_at__gte=row.received_at, created_at__lte=at
    ).values_list("priority", flat=True)
    _close(row, window, sla.deadlines(row.tenant).minutes, set(items), at, kind)
    row.responder_id, row.answer_id = responder_id, answer_id
    row.save(
        update_fields=[
            "kind",
            "responded_at",
            "working_seconds",
            "sla_seconds",
            "responder",
            "answer",
        ]
    )
    return row


def _close(
    row: ReplyResponse,
    window: SendingWindow,
    minutes: dict[str, int],
    priorities: set[str],
    at: datetime,
    kind: str,
) -> None:
    """The figures of a response: working time waited, and the deadline it had (the most
    urgent review item opened meanwhile, else MEDIUM's)."""
    row.kind, row.responded_at = kind, at
    row.working_seconds = int(window.working_time(row.received_at, at).total_seconds())
    due = min((minutes[p] for p in priorities if p in minutes), default=None)
    row.sla_seconds = 60 * (due if due is not None else minutes[Priority.MEDIUM])


@transaction.atomic
def rebuild(tenant: Tenant) -> int:
    """Recompute the tenant's rows from its messages and the review items people closed
    (the backfill; running it twice gives the same rows). Returns how many."""
    window = SendingWindow.for_tenant(tenant)
    minutes = sla.deadlines(tenant).minutes
    # (when, rank, what, row): at one instant a reply comes before the item it opened, and
    # both before the answer, as they happened.
    events: dict[int, list[tuple[datetime, int, str, Any]]] = defaultdict(list)
    messages = (
        Message.objects.filter(tenant=tenant)
        .filter(
            Q(direction=Message.Direction.INBOUND)
            | Q(direction=Message.Direction.OUTBOUND, is_manual=True)
        )
        .filter(NOT_HISTORY)  # a chat's earlier messages, fetched later: no reply waited
    )
    for message in messages.only(
        "pk",
        "lead_id",
        "direction",
        "is_manual",
        "channel",
        "body",
        "raw_response",
        "created_at",
        "sent_by_id",
        "analysis",
    ).iterator(chunk_size=2000):
        inbound = message.direction == Message.Direction.INBOUND
        if message.lead_id is None or not (inbound or by_a_person(message)):
            continue
        what = "in" if message.direction == Message.Direction.INBOUND else "answer"
        rank = 0 if what == "in" else 2
        events[message.lead_id].append((message.created_at, rank, what, message))
    items = ReviewItem.objects.filter(tenant=tenant).only(
        "pk", "lead_id", "status", "priority", "created_at", "resolved_at", "resolved_by_id"
    )
    for item in items.iterator(chunk_size=2000):
        events[item.lead_id].append((item.created_at, 1, "item", item))
        if item.status in CLOSED_BY_PERSON and item.resolved_by_id and item.resolved_at:
            events[item.lead_id].append((item.resolved_at, 3, "closed", item))
    rows: list[ReplyResponse] = []
    for lead_id, stream in events.items():
        rows.extend(_replay(tenant, lead_id, sorted(stream, key=_order), window, minutes))
    ReplyResponse.objects.filter(tenant=tenant).delete()
    ReplyResponse.objects.bulk_create(rows)
    return len(rows)


def _order(event: tuple[datetime, int, str, Any]) -> tuple[datetime, int, int]:
    return event[0], event[1], event[3].pk


def _replay(
    tenant: Tenant,
    lead_id: int,
    stream: list[tuple[datetime, int, str, Any]],
    window: SendingWindow,
    minutes: dict[str, int],
) -> list[ReplyResponse]:
    """One lead's rows, replaying its events in time order as the hooks would have."""
    rows: list[ReplyResponse] = []
    waiting: ReplyResponse | None = None
    priorities: set[str] = set()
    for at, _rank, what, obj in stream:
        if (
            what == "in"
            and waiting is None
            and not optout.is_opt_out(obj.body)
            and not needs_nobody(obj)
        ):
            waiting = ReplyResponse(
                tenant=tenant,
                lead_id=lead_id,
                reply=obj,
                channel=obj.channel,
                received_at=at,
                local_day=window.local_date(at),
            )
            priorities = set()
            rows.append(waiting)
        elif what == "item" and waiting is not None:
            priorities.add(obj.priority)
        elif what in ("answer", "closed") and waiting is not None:
            kind = ReplyResponse.Kind.ANSWERED if what == "answer" else ReplyResponse.Kind.HANDLED
            _close(waiting, window, minutes, priorities, at, kind)
            waiting.responder_id = obj.sent_by_id if what == "answer" else obj.resolved_by_id
            waiting.answer_id = obj.pk if what == "answer" else None
            waiting = None
    return rows
