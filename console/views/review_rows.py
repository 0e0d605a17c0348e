"""The review queue's items, ready to print (docs/page-rendering.md).

What every item shows is worked out here, once per page where it does not depend on the
item: the fixed words (console.views.review.item_labels), the choice labels (a dict, not
`get_FOO_display`, which rebuilds and hashes its choices at every call), the links (one
reversed URL), the teammate options (once per distinct assignee), the resolve options, the
readiness badges (the markup of `outreach/_readiness_badges.html`, once per distinct
readiness of a channel), an item's actions (`hitl/_review_actions.html`, once per state).
`hitl/_review_rows.jinja` then prints plain fields in one loop, with no include,
`{% translate %}` or `{% url %}` per item: rendering 25 items through a per-item include
with model lookups, filters and translations cost ~60 ms of CPU a page.

The words with a name in them ("Assigned to Ana", "Select Ferma Nord") are the template's
former `{% blocktranslate %}` messages, filled the way that tag fills them: the name
escaped, the translation as is. Dates use the locale's formats, as the `|date:` filter
prints them (`Dates`).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable, Sequence
from html import escape

from django.contrib.auth.models import User
from django.template.defaultfilters import linebreaksbr
from django.template.loader import get_template
from django.urls import reverse
from django.utils.html import conditional_escape, format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe
from django.utils.text import Truncator
from django.utils.translation import gettext as _

from console.rows import Dates, render_rows
from console.views.lead_rows import DASH, badge_class, pk_url
from hitl.models import ReviewItem
from hitl.review_queue import QueueEntry, Sentiment, ThreadMessage
from outreach.models import Channel, Journey, Message, Stage
from outreach.readiness import EMAIL, WHATSAPP, ChannelReadiness, Readiness

BODY_CHARS = 240  # an earlier message of the thread is cut to this (`|truncatechars:240`)


def truncated(text: str, length: int = BODY_CHARS) -> str:
    """`{{ text|truncatechars:length }}` without its character-by-character walk when the
    text is short enough anyway (the filter returns the NFC-normalised text then)."""
    normal = unicodedata.normalize("NFC", text)
    if len(normal) <= length:
        return normal
    return Truncator(text).chars(length)


def named(message: str, **names: str) -> SafeString:
    """A `{% blocktranslate with name=… %}` message, filled as that tag fills it: the
    translation (`message`) as is, the names escaped."""
    return mark_safe(message % {key: conditional_escape(value) for key, value in names.items()})  # noqa: S308


def person(user: User) -> str:
    """`{{ user.get_full_name|default:user.get_username }}`."""
    return user.get_full_name() or user.get_username()


class _TeammateOptions:
    """The teammate select's options (every member but the operator), the item's assignee
    selected: rendered once per distinct assignee on the page."""

    def __init__(self, teammates: Sequence[User], me: int | None) -> None:
        self.people = [(user.pk, person(user)) for user in teammates if user.pk != me]
        self.known: dict[int | None, SafeString] = {}

    def __call__(self, assignee_id: int | None) -> SafeString:
        found = self.known.get(assignee_id)
        if found is None:
            found = self.known[assignee_id] = format_html_join(
                "",
                '<option value="{}"{}>{}</option>',
                (
                    (pk, mark_safe(" selected") if pk == assignee_id else "", name)
                    for pk, name in self.people
                ),
            )
        return found


# One channel's line of `outreach/_readiness_badges.html`, which the page prints the same
# (tests/hitl/test_review_queue.py compares them).
_READINESS_LINE = (
    '<span class="readiness-line" data-channel="{}" data-state="{}" title="{}">'
    '<span class="badge {}">{}</span> {}</span>'
)


class _Badges:
    """The readiness badges: each channel's line built once per distinct readiness of that
    channel on the page (its colour as on the leads list, console.views.lead_rows)."""

    def __init__(self) -> None:
        self.names = {WHATSAPP: _("WhatsApp"), EMAIL: _("Email")}
        self.known: dict[ChannelReadiness, SafeString] = {}

    def line(self, channel: ChannelReadiness) -> SafeString:
        found = self.known.get(channel)
        if found is None:
            name = self.names[channel.channel]
            found = self.known[channel] = format_html(
                _READINESS_LINE,
                channel.channel,
                channel.state,
                f"{name}: {channel.text}",
                badge_class(channel),
                name,
                channel.short,
            )
        return found

    def __call__(self, ready: Readiness | None) -> SafeString | str:
        if ready is None:
            return ""
        return format_html("{}<br>{}", self.line(ready.whatsapp), self.line(ready.email))


def _sentiment(found: Sentiment | None, scale: str) -> dict | None:
    if found is None:
        return None
    return {
        "tone": found.tone,
        "title": f"{scale}: {found.text}",
        "score": str(found.score),
        "bar_x": str(found.bar_x),
        "bar_width": str(found.bar_width),
        "shown": found.shown,
        "label": found.label,
    }


# One message of an item's thread, its texts escaped (`html.escape`, which Django's `escape`
# is, without its wrapper for lazy strings: ~2 µs a call); the reply the item is about is marked.
_MESSAGE = (
    '<li class="review-thread__msg review-thread__msg--{side}{trigger_css}"{trigger_attr}>\n'
    '          <span class="review-thread__meta">{who} · {channel} · '
    '<time datetime="{iso}">{when}</time>'
    "{this_reply}</span>\n"
    '          <span class="review-thread__body">{subject}{body}</span>\n'
    "        </li>"
)

# Stand for an item's id and draft in its actions rendered once per state (`RowMaker.actions`):
# no id, label or stored text holds a NUL (PostgreSQL text cannot).
_PK, _DRAFT = "\x00pk\x00", "\x00draft\x00"


class RowMaker:
    """Turns a page's QueueEntry objects into the dicts `hitl/_review_rows.jinja` prints.
    `context`: what the page's template needs besides the rows (the labels escaped once)."""

    def __init__(
        self,
        *,
        labels: dict[str, str],
        teammates: Sequence[User],
        me: int | None,
        csrf_token: str,
        tab: str,
        resolve_choices: Iterable[str],
    ) -> None:
        self.labels = labels
        self.teammates = teammates
        self.me = me
        self.review_url = reverse("hitl:review")
        self.kinds = {value: str(label) for value, label in ReviewItem.Kind.choices}
        self.stages = {value: str(label) for value, label in Stage.choices}
        self.channels = {value: str(label) for value, label in Channel.choices}
        self.lead_url: Callable[[int], str] = pk_url("outreach:lead")
        self.thread_url: Callable[[int], str] = pk_url("outreach:inbox_thread")
        self.teammate_options = _TeammateOptions(teammates, me)
        self.badges = _Badges()
        self.dates = Dates()
        self.select = _("Select %(lead)s")
        self.assigned = _("Assigned to %(name)s")
        self.taken_over = _("Taken over by %(name)s")
        # the thread's words, escaped once for its 150 messages
        self.they_wrote, self.we_wrote = escape(labels["they_wrote"]), escape(labels["we_wrote"])
        self.channel_html = {value: escape(label) for value, label in self.channels.items()}
        self.this_reply = f" · <strong>{escape(labels['this_reply'])}</strong>"
        self.context = {
            "tab": tab,
            "labels": {key: conditional_escape(text) for key, text in labels.items()},
            "show_teammates": len(teammates) > 1,
            "resolve_options": format_html_join(
                "",
                '<option value="{}">{}</option>',
                ((code, Stage(code).label) for code in resolve_choices),
            ),
            # every form of an item posts the CSRF token and the tab the operator is on
            "form_hidden": format_html(
                '<input type="hidden" name="csrfmiddlewaretoken" value="{}">'
                '<input type="hidden" name="tab" value="{}">',
                csrf_token,
                tab,
            ),
        }
        self.actions_template = get_template("hitl/_review_actions.html")
        self.known_actions: dict[tuple, str] = {}

    def actions(self, item: ReviewItem, taken_over: bool) -> SafeString:
        """`hitl/_review_actions.html` for the item: rendered once for each state on the page
        (a draft or none, the assignee, taken over or not; ~100 µs) with stand-ins for the
        item's id and draft, which are put in per item (their escaped text)."""
        key = (bool(item.ai_draft), item.assignee_id, taken_over)
        found = self.known_actions.get(key)
        if found is None:
            found = self.known_actions[key] = self.actions_template.render(
                {
                    **self.context,
                    "pk": _PK,
                    "actions": f"{self.review_url}{_PK}/",
                    "draft": _DRAFT if item.ai_draft else "",
                    "assigned_to_me": item.assignee_id == self.me,
                    "teammate_options": self.teammate_options(item.assignee_id),
                    "taken_over_already": taken_over,
                }
            )
        return mark_safe(  # noqa: S308 - a rendered template; the id is digits, the draft escaped
            found.replace(_PK, str(item.pk)).replace(_DRAFT, conditional_escape(item.ai_draft))
        )

    def thread(self, messages: Sequence[ThreadMessage], trigger_id: int | None) -> SafeString:
        """The thread's messages as list items (`_MESSAGE`): a page shows 150, put together
        here rather than by a template loop (a third of the page's template time), every
        text escaped as the template would."""
        dates, shown = self.dates, []
        for m in messages:
            inbound = m.direction == Message.Direction.INBOUND
            trigger = m.pk == trigger_id
            shown.append(
                _MESSAGE.format(
                    side="in" if inbound else "out",
                    trigger_css=" review-thread__msg--trigger" if trigger else "",
                    trigger_attr=" data-trigger" if trigger else "",
                    who=self.they_wrote if inbound else self.we_wrote,
                    channel=self.channel_html.get(m.channel) or escape(m.channel),
                    iso=escape(dates.iso(m.created_at)),
                    when=escape(dates.short_datetime(m.created_at)),
                    this_reply=self.this_reply if trigger else "",
                    subject=f"<strong>{escape(m.subject)}</strong> " if m.subject else "",
                    body=(
                        linebreaksbr(m.body, autoescape=True)
                        if trigger
                        else escape(truncated(m.body))
                    ),
                )
            )
        return mark_safe("\n        ".join(shown))  # noqa: S308 - every text in it escaped

    def row(self, entry: QueueEntry) -> dict:
        item, labels = entry.item, self.labels
        lead = item.lead
        try:
            journey: Journey | None = lead.journey
        except Journey.DoesNotExist:
            journey = None
        pk = str(item.pk)
        css = f"review-item review-item--{item.priority.lower()}"
        message = item.message
        message_shown = message is not None and not entry.trigger_in_thread
        contact = lead.contact_name or DASH
        if lead.phone:
            contact = f"{contact} · {lead.phone}"
        if lead.email:
            contact = f"{contact} · {lead.email}"
        taken_over_by = journey.taken_over_by if journey is not None else None
        stage = journey.stage if journey is not None else ""
        return {
            "pk": pk,
            "css": f"{css} review-item--overdue" if entry.sla_overdue else css,
            "select": named(self.select, lead=lead.name),
            "lead_name": lead.name,
            "lead_url": self.lead_url(lead.pk),
            "thread_url": self.thread_url(lead.pk),
            "kind": self.kinds.get(item.kind, item.kind),
            "sla_css": "sla sla--overdue" if entry.sla_overdue else "sla",
            "sla_due": self.dates.iso(item.sla_due_at),
            "sla_minutes": str(entry.sla_minutes),
            "sla_until": (
                format_html(' data-sla-until="{}"', self.dates.iso(entry.sla_until))
                if entry.sla_ticking
                else ""
            ),
            "sla_title": (
                f"{labels['due']} {self.dates.datetime(item.sla_due_at)} ({labels['working_time']})"
            ),
            "sla_text": entry.sla_text,
            "assignee": (
                named(self.assigned, name=person(item.assignee))
                if item.assignee
                else conditional_escape(labels["unassigned"])
            ),
            "taken_over": named(self.taken_over, name=person(taken_over_by))
            if taken_over_by
            else "",
            "thread": self.thread(entry.thread, item.message_id),
            # the item's message, when the thread does not hold it already
            "message_shown": message_shown,
            "message": linebreaksbr(message.body, autoescape=True)
            if message is not None and message_shown
            else "",
            "no_message": message is None,
            "priority_reason": entry.priority_reason or DASH,
            "intent": entry.intent_text or DASH,
            "sentiment": _sentiment(entry.sentiment, labels["sentiment_scale"]),
            "keywords": entry.keywords,
            "contact": contact,
            "stage": stage,
            "stage_label": self.stages.get(stage, stage) or DASH,
            "sequence": entry.sequence_text or DASH,
            "readiness": self.badges(entry.ready),
            "actions": self.actions(item, bool(journey is not None and journey.taken_over_by_id)),
        }

    def rows(self, entries: Iterable[QueueEntry]) -> list[dict]:
        return [self.row(entry) for entry in entries]

    def html(self, entries: Iterable[QueueEntry]) -> SafeString:
        """The items printed by the compiled rows template (console.rows); "" for none."""
        return render_rows(
            "hitl/_review_rows.jinja", rows=self.rows(entries), labels=self.context["labels"]
        )
