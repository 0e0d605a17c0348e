"""What the review page shows of each item so an operator decides without opening the lead,
and the bulk actions over a page of items.

Facts about an item are read here for a whole page at once, in a fixed number of queries
whatever the number of items: the recent messages of every lead on the page in one query
(a window function numbers each lead's messages newest first, `THREAD_SIZE` kept), the
sequence's step count as a subquery of the items' query, readiness through
`outreach.readiness.readiness_many` (the suppression list once). The rules themselves stay
where they live: readiness in outreach.readiness, the intent's words in hitl.triage.base,
the priority's reason in what hitl.routing stored, each action in hitl.review.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import NamedTuple

from django.contrib.auth.models import User
from django.db import connection
from django.db.models import Count, F, OuterRef, QuerySet, Subquery, Window
from django.db.models.functions import RowNumber
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from cerniq import reasons
from cerniq.models import Tenant
from hitl import review
from hitl.models import ReviewItem
from hitl.review import ReviewError
from hitl.triage.base import intent_label
from outreach.hours import SendingWindow
from outreach.models import Message, Priority, SequenceStep
from outreach.readiness import ContactPolicy, Readiness, readiness_many

THREAD_SIZE = 6  # the last messages of the conversation shown with an item
NEUTRAL_BAND = 20  # |sentiment| below this reads as neutral
BULK_LIMIT = 100  # items one bulk action takes (a page holds 25)


# --- reading a page ------------------------------------------------------------------


def _columns(path: str, names: str) -> tuple[str, ...]:
    return tuple(f"{path}{name}" for name in names.split())


_PERSON = "id username first_name last_name"  # what names a teammate
# The columns a page of items reads (the joined rows are wide: a message's raw provider
# payloads, a lead's search text, two users' passwords...): loading only these takes the
# query's Python work from ~6 ms to ~2 ms for 25 items. A column read but not listed costs
# one more query per item (tests/hitl count a page's queries for 3 and 25 items).
ITEM_COLUMNS = (
    *_columns(
        "",
        "id tenant lead message kind reason priority status sla_due_at sla_breached_at"
        " assignee sentiment_score intent ai_analysis ai_draft",
    ),
    *_columns("lead__", "id tenant name cui contact_name phone phone_reachable email email_status"),
    *_columns(
        "lead__journey__",
        "id tenant lead stage current_sequence sequence_step taken_over_by"
        " whatsapp_opted_out email_opted_out",
    ),
    *_columns("lead__journey__taken_over_by__", _PERSON),
    *_columns("lead__journey__current_sequence__", "id name version"),
    *_columns("message__", "id body"),
    *_columns("assignee__", _PERSON),
)


def queue_items(items: QuerySet[ReviewItem]) -> QuerySet[ReviewItem]:
    """The items' query with what an item shows joined in: the lead, its journey and
    sequence, the assignee, and the number of steps of the lead's current sequence; only
    the columns the page reads (`ITEM_COLUMNS`)."""
    steps = (
        SequenceStep.objects.filter(
            sequence_id=OuterRef("lead__journey__current_sequence_id"),
            sequence_version=OuterRef("lead__journey__current_sequence__version"),
        )
        .order_by()
        .values("sequence_id")
        .annotate(total=Count("pk"))
        .values("total")
    )
    return (
        items.select_related(
            "lead",
            "lead__journey",
            "lead__journey__taken_over_by",
            "lead__journey__current_sequence",
            "message",
            "assignee",
        )
        .only(*ITEM_COLUMNS)
        .annotate(step_total=Subquery(steps))
    )


class ThreadMessage(NamedTuple):
    """A message of an item's thread, as the page shows it (a tuple: no model instance)."""

    pk: int
    lead_id: int
    direction: str
    channel: str
    status: str
    subject: str
    body: str
    created_at: datetime


def recent_messages(
    lead_ids: Iterable[int], size: int = THREAD_SIZE
) -> dict[int, list[ThreadMessage]]:
    """The last `size` messages of each lead, oldest first: one query for all the leads.
    On PostgreSQL each lead's newest messages are read from the conversation index, `size`
    rows a lead (`_LATEST_SQL`); elsewhere a window function numbers all their messages."""
    ids = sorted(set(lead_ids))
    if not ids:
        return {}
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(_LATEST_SQL, [ids, size])
            rows: Iterable[tuple] = cursor.fetchall()
    else:
        rows = _latest(ids, size)
    found: dict[int, list[ThreadMessage]] = defaultdict(list)
    for row in rows:
        message = ThreadMessage(*row)
        found[message.lead_id].append(message)
    return dict(found)


def _latest(ids: list[int], size: int) -> Iterable[tuple]:
    newest_first = [F("created_at").desc(), F("pk").desc()]
    return (
        Message.objects.filter(lead_id__in=ids)
        .annotate(rank=Window(RowNumber(), partition_by=[F("lead_id")], order_by=newest_first))
        .filter(rank__lte=size)
        .order_by("lead_id", "created_at", "pk")
        .values_list(*ThreadMessage._fields)
    )


# `_latest` in PostgreSQL's words: the same rows in the same order, but `size` entries of
# message_conversation_idx read a lead instead of all its messages (0.3 ms rather than
# 1.5-5 ms for 25 leads of ~30 messages each; a long conversation costs nothing more).
_LATEST_SQL = """
SELECT m.* FROM unnest(%s::bigint[]) AS wanted(lead_id) CROSS JOIN LATERAL (
    SELECT id, lead_id, direction, channel, status, subject, body, created_at
    FROM outreach_message
    WHERE lead_id = wanted.lead_id
    ORDER BY created_at DESC, id DESC
    LIMIT %s
) AS m
ORDER BY m.lead_id, m.created_at, m.id
"""


@dataclass(frozen=True)
class Sentiment:
    """A sentiment score on its −100…100 scale, as a reader takes it in."""

    score: int
    tone: str  # "negative" | "neutral" | "positive": the colour
    label: str  # the tone in words

    @property
    def bar_x(self) -> int:
        """Where the bar starts on a −100…100 axis (an SVG's viewBox: no inline style)."""
        return min(self.score, 0)

    @property
    def bar_width(self) -> int:
        return max(abs(self.score), 1)  # a neutral 0 still shows a sliver

    @property
    def shown(self) -> str:
        """The score with a real minus sign: "−30"."""
        return f"−{-self.score}" if self.score < 0 else str(self.score)

    @property
    def text(self) -> str:
        """ "−30 (negative)", for screen readers and titles."""
        return _("%(score)s (%(tone)s)") % {"score": self.shown, "tone": self.label}


def sentiment(score: int | None) -> Sentiment | None:
    if score is None:
        return None
    if score <= -NEUTRAL_BAND:
        tone, label = "negative", _("negative")
    elif score >= NEUTRAL_BAND:
        tone, label = "positive", _("positive")
    else:
        tone, label = "neutral", _("neutral")
    return Sentiment(score, tone, label)


def priority_reason(item: ReviewItem) -> str:
    """Why the item has its priority, in words: the rules hitl.routing found (stored as the
    item's reason, the decisive one first) and, when the deadline was missed, the raise."""
    why = reasons.render(item.reason)
    if item.sla_breached_at is None:
        return why
    raised = _("raised after a missed deadline")
    if item.priority == Priority.URGENT:
        raised = _("urgent after a missed deadline")
    return f"{why} — {raised}" if why else raised


def sequence_text(item: ReviewItem) -> str:
    """ "Step 2 of 4 · Grain buyers", or "" when the lead is in no sequence."""
    journey = getattr(item.lead, "journey", None)
    if journey is None or journey.current_sequence is None:
        return ""
    name = journey.current_sequence.name
    total = getattr(item, "step_total", None)
    if total:
        return _("Step %(step)s of %(total)s · %(sequence)s") % {
            "step": journey.sequence_step,
            "total": total,
            "sequence": name,
        }
    return _("Step %(step)s · %(sequence)s") % {"step": journey.sequence_step, "sequence": name}


@dataclass(frozen=True)
class QueueEntry:
    """One item as the page shows it: the item and what an operator decides it by."""

    item: ReviewItem
    thread: list[ThreadMessage]  # the last THREAD_SIZE messages, oldest first
    trigger_in_thread: bool  # the item's own message is among them
    ready: Readiness | None
    sentiment: Sentiment | None
    intent_text: str
    priority_reason: str
    sequence_text: str
    keywords: str
    sla_overdue: bool
    sla_text: str
    sla_minutes: int  # working minutes left (negative: overdue by), as of the page
    sla_ticking: bool  # the window is open now: the countdown moves
    sla_until: datetime | None  # when it stops moving (the window closes)


def countdown_words() -> dict[str, str]:
    """The countdown's patterns in the reader's language: the server's labels below and the
    page's script (static/js/review.js, which refreshes them every minute) use these same
    ones, so a Romanian page keeps Romanian units when it ticks."""
    return {
        "days": _("%(d)sd %(h)sh"),
        "hours": _("%(h)sh %(m)02dm"),
        "minutes": _("%(m)sm"),
        "due_in": _("due in %(t)s"),
        "overdue_by": _("overdue by %(t)s"),
    }


def _duration(delta: timedelta, words: dict[str, str]) -> str:
    """'2d 3h', '1h 05m', '7m' (coarse on purpose: it is a countdown, not a clock)."""
    minutes = max(int(delta.total_seconds() // 60), 0)
    days, rest = divmod(minutes, 24 * 60)
    hours, mins = divmod(rest, 60)
    if days:
        return words["days"] % {"d": days, "h": hours}
    if hours:
        return words["hours"] % {"h": hours, "m": mins}
    return words["minutes"] % {"m": mins}


def sla_label(due: datetime, now: datetime) -> tuple[bool, str]:
    """(overdue?, 'due in 1h 05m' / 'overdue by 12m')."""
    words = countdown_words()
    if due <= now:
        return True, words["overdue_by"] % {"t": _duration(now - due, words)}
    return False, words["due_in"] % {"t": _duration(due - now, words)}


@dataclass(frozen=True)
class Countdown:
    overdue: bool
    text: str
    minutes: int
    ticking: bool
    until: datetime | None


@dataclass(frozen=True)
class Clock:
    """The window at one moment, shared by the countdowns of a page: open or not, and
    until when (looked up once, not for every item)."""

    window: SendingWindow
    now: datetime
    open: bool
    until: datetime | None

    @classmethod
    def at(cls, window: SendingWindow, now: datetime) -> Clock:
        is_open = window.is_open(now)
        return cls(window, now, is_open, window.closing_of(now) if is_open else None)

    def worked(self, due: datetime) -> timedelta:
        """Working time between `due` and now, whichever comes first."""
        if due <= self.now:
            return self.window.working_time(due, self.now)
        return self.window.working_time(self.now, due)

    def worked_many(self, dues: Iterable[datetime]) -> dict[datetime, timedelta]:
        """`worked` for many due times: each stretch of the calendar is walked once,
        outwards from now (working time adds up: from a to c is from a to b plus from b to
        c), not once per item: a page of items due weeks ago walks those weeks once."""
        found: dict[datetime, timedelta] = {}
        due_times = set(dues)
        for stretch in (
            sorted((due for due in due_times if due <= self.now), reverse=True),
            sorted(due for due in due_times if due > self.now),
        ):
            total, edge = timedelta(0), self.now
            for due in stretch:
                total += self.window.working_time(min(due, edge), max(due, edge))
                found[due], edge = total, due
        return found


def countdown(
    window: SendingWindow,
    due: datetime,
    now: datetime,
    *,
    clock: Clock | None = None,
    worked: timedelta | None = None,
    words: dict[str, str] | None = None,
) -> Countdown:
    """ "due in 1h 05m" / "overdue by 12m" in working time, as the SLA counts it: on a Friday
    evening an item due Monday 09:30 is due in 30m, not in 2d 15h. A page passes its `clock`
    and each item's `worked` time (Clock.worked_many), and the `countdown_words` once."""
    words = words if words is not None else countdown_words()
    clock = clock if clock is not None else Clock.at(window, now)
    worked = worked if worked is not None else clock.worked(due)
    minutes = int(worked.total_seconds() // 60)
    if due <= now:
        minutes = -minutes
        text = words["overdue_by"] % {"t": _duration(worked, words)}
    else:
        text = words["due_in"] % {"t": _duration(worked, words)}
        if minutes == 0 and not clock.open:
            # Due while the window is closed: no working time is left, but nothing is late
            # before the window opens again ("due in 0m" would alarm for nothing).
            opening = timezone.localtime(window.next_opening(now), window.tz)
            text = _("due when the window opens, %(moment)s") % {
                "moment": date_format(opening, "SHORT_DATETIME_FORMAT")
            }
    return Countdown(due <= now, text, minutes, clock.open, clock.until)


def describe(items: Sequence[ReviewItem], tenant: Tenant, now: datetime) -> list[QueueEntry]:
    """What the page shows of each item, in a constant number of queries for the page."""
    threads = recent_messages(item.lead_id for item in items)
    ready = readiness_many(
        {item.lead_id: item.lead for item in items}.values(), policy=ContactPolicy.of(tenant)
    )
    window = SendingWindow.for_tenant(tenant)
    page_clock = Clock.at(window, now)
    worked = page_clock.worked_many(item.sla_due_at for item in items)
    words = countdown_words()
    entries = []
    for item in items:
        thread = threads.get(item.lead_id, [])
        triage = (item.ai_analysis or {}).get("triage") or {}
        clock = countdown(
            window,
            item.sla_due_at,
            now,
            clock=page_clock,
            worked=worked[item.sla_due_at],
            words=words,
        )
        entries.append(
            QueueEntry(
                item=item,
                thread=thread,
                trigger_in_thread=any(m.pk == item.message_id for m in thread),
                ready=ready.get(item.lead_id),
                sentiment=sentiment(item.sentiment_score),
                intent_text=intent_label(item.intent) if item.intent else "",
                priority_reason=priority_reason(item),
                sequence_text=sequence_text(item),
                keywords=", ".join(str(k) for k in triage.get("keywords") or []),
                sla_overdue=clock.overdue,
                sla_text=clock.text,
                sla_minutes=clock.minutes,
                sla_ticking=clock.ticking,
                sla_until=clock.until,
            )
        )
    return entries


def teammates(tenant: Tenant) -> list[User]:
    """The people an item can be given to: the workspace's active members."""
    return list(
        User.objects.filter(memberships__tenant=tenant, is_active=True).order_by(
            "first_name", "last_name", "username"
        )
    )


def next_item(open_items: QuerySet[ReviewItem], priority: str, shown: Iterable[int]):
    """The first open item of the tab due after the last of `shown` (the items still on
    the operator's page) and not among them: what fills the place of an item just closed."""
    shown = set(shown)
    tab = open_items.filter(priority=priority)
    last = tab.filter(pk__in=shown).order_by("-sla_due_at", "-pk").first()
    following = tab.exclude(pk__in=shown)
    if last is not None:
        following = following.filter(sla_due_at__gte=last.sla_due_at).exclude(
            sla_due_at=last.sla_due_at, pk__lt=last.pk
        )
    return following.order_by("sla_due_at", "pk").first()


# --- bulk actions --------------------------------------------------------------------

ASSIGN, RESOLVE, REJECT = "assign", "resolve", "reject"
BULK_ACTIONS = (ASSIGN, RESOLVE, REJECT)


@dataclass(frozen=True)
class Refusal:
    id: int  # the review item's
    lead: str  # its lead's name ("" when not found)
    reason: str


@dataclass
class BulkResult:
    action: str
    done: list[ReviewItem] = field(default_factory=list)
    refused: list[Refusal] = field(default_factory=list)

    @property
    def summary(self) -> str:
        """ "3 resolved, 1 refused: Ferma Nord SRL: this review item is already resolved…"."""
        count = len(self.done)
        if self.action == ASSIGN:
            done = ngettext("%(count)s assigned", "%(count)s assigned", count)
        elif self.action == RESOLVE:
            done = ngettext("%(count)s resolved", "%(count)s resolved", count)
        else:
            done = ngettext("%(count)s rejected", "%(count)s rejected", count)
        text = done % {"count": count}
        if not self.refused:
            return text
        refused = ngettext("%(count)s refused", "%(count)s refused", len(self.refused)) % {
            "count": len(self.refused)
        }
        why = "; ".join(
            f"{refusal.lead}: {refusal.reason}" if refusal.lead else refusal.reason
            for refusal in self.refused
        )
        return f"{text}, {refused}: {why}"


def bulk(
    items: Sequence[ReviewItem],
    action: str,
    user: User,
    *,
    assignee: User | None = None,
    note: str = "",
    missing: Iterable[int] = (),
) -> BulkResult:
    """Apply one action to each item through hitl.review, one transaction per item (each
    service function is atomic): an item refused (closed meanwhile, assigned to someone
    else, no note) is reported and does not stop the others. `missing`: ids asked for that
    are not in the workspace's queue, reported as refused."""
    result = BulkResult(action)
    for pk in missing:
        result.refused.append(Refusal(pk, "", _("not found in this workspace")))
    for item in items:
        try:
            if action == ASSIGN:
                if assignee is None:
                    raise ReviewError(_("Choose the teammate to assign to."))
                review.assign_to(item, assignee, by=user)
            elif action == RESOLVE:
                review.resolve(item, user, note=note)
            elif action == REJECT:
                review.reject(item, user, note)
            else:
                raise ReviewError(_("Unknown action %(action)s.") % {"action": repr(action)})
        except ReviewError as refused:
            result.refused.append(Refusal(item.pk, item.lead.name, str(refused)))
        else:
            result.done.append(item)
    return result
