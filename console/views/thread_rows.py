"""The inbox thread's rows, ready to print (docs/page-rendering.md).

`hitl.inbox_thread` reads a page of the thread as plain values; this turns each entry into a
dict of what its bubble, stage line or note shows. Choice labels (channel, status, stage,
who changed a stage) and the fixed words are translated once per page and stored reasons
rendered once per distinct reason, so the template's loop prints plain fields: rendering
fifty bubbles through `get_FOO_display`, `{% with %}`, `{% blocktranslate %}` and filters
cost ~30 ms of CPU a page.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from django.template.defaultfilters import filesizeformat, linebreaksbr
from django.utils.safestring import SafeString
from django.utils.translation import gettext, gettext_noop

from cerniq import reasons
from console.rows import Dates, blocktranslate, render_rows
from console.views.lead_rows import pk_url
from console.views.media import media_item
from hitl.inbox_thread import Entry
from outreach.models import Channel, Message, Stage, StageTransition

FAILED = frozenset({Message.Status.FAILED, Message.Status.BOUNCED, Message.Status.DEAD_LETTER})
WAITING = frozenset({Message.Status.QUEUED, Message.Status.SENDING})
DELIVERED = frozenset({Message.Status.DELIVERED, Message.Status.READ})


class _Reasons(dict):
    """Stored reasons rendered in the reader's language, once per distinct reason."""

    def __missing__(self, stored: str) -> str:
        found = self[stored] = reasons.render(stored)
        return found


class _Labels:
    """The page's choice labels and fixed words, translated once."""

    def __init__(self) -> None:
        self.channel = {value: str(label) for value, label in Channel.choices}
        self.channel[Channel.WHATSAPP] = "WhatsApp"  # the brand, in every language
        self.status = {value: str(label) for value, label in Message.Status.choices}
        self.stage = {value: str(label) for value, label in Stage.choices}
        self.actor = {value: str(label) for value, label in StageTransition.SYSTEM_ACTORS.items()}
        self.sent_from = gettext("Sent from")
        self.received_on = gettext("Received on")
        self.came_from = gettext("From")
        self.reasons = _Reasons()
        self.tones: dict[str, SafeString] = {}
        self.dates = Dates()
        self.file_url = pk_url("outreach:attachment")
        self.media_url = pk_url("outreach:media_file")

    def moment(self, row: dict[str, Any], at: datetime) -> None:
        """The entry's time as `|date:'c'` and `|date:"SHORT_DATETIME_FORMAT"` print it."""
        row["at_iso"] = self.dates.iso(at)
        row["at_text"] = self.dates.short_datetime(at)

    def tone(self, tone: str) -> SafeString:
        found = self.tones.get(tone)
        if found is None:
            found = self.tones[tone] = blocktranslate(gettext_noop("%(tone)s tone"), tone=tone)
        return found


def _tick(status: str, label: str) -> str:
    if status in WAITING:
        return "◷"
    if status == Message.Status.SENT:
        return "✓"
    if status in DELIVERED:
        return "✓✓"
    if status == Message.Status.CANCELLED:
        return f"⊘ {label}"
    return f"⚠ {label}"


def _message(entry: Entry, labels: _Labels) -> dict[str, Any]:
    m = entry.item
    channel, direction, status = m["channel"], m["direction"], m["status"]
    outbound = direction == Message.Direction.OUTBOUND
    whatsapp = channel == Channel.WHATSAPP
    row: dict[str, Any] = {
        "kind": "message",
        "pk": entry.pk,
        "direction": direction,
        "side": "is-in" if direction == Message.Direction.INBOUND else "is-out",
        "failed": status in FAILED,
        "subject": m["subject"],
        "body": linebreaksbr(m["body"]),
        "files": [
            (f["filename"], filesizeformat(f["size"]), labels.file_url(f["pk"])) for f in m["files"]
        ],
        "media": media_item(
            labels.media_url,
            m["media_id"],
            m["media__filename"],
            m["media__size"],
            m["media__content_type"],
        ),
        "error": labels.reasons[m["error"]] if m["error"] else "",
        "channel_css": channel.lower(),
        "channel": labels.channel.get(channel, channel),
        "via": entry.via,
        "via_title": (
            labels.sent_from if outbound else labels.received_on if whatsapp else labels.came_from
        ),
        "via_icon": "☎" if whatsapp else "@",
        "sender": None,
        "template": "",
        "tick": None,
        "analysis": None,
        # Fetched afterwards with the chat's earlier messages (hitl.whatsapp_history).
        "history": bool(m.get("is_history")),
    }
    if m["is_manual"] and m["sent_by_id"] is not None:
        row["sender"] = m["sent_by__username"]
    elif m["template_version_id"] is not None:
        row["template"] = (
            f"{m['template_version__template__name']} v{m['template_version__version']}"
        )
    if outbound:
        label = labels.status.get(status, status)
        row["tick"] = {
            "css": status.lower(),
            "status": status,
            "label": label,
            "text": _tick(status, label),
        }
    found = entry.analysis
    if found:
        row["analysis"] = {
            "pending": found["pending"],
            "intent": found["intent"],
            "tone": labels.tone(found["tone"]) if found["tone"] else "",
            "certainty": found["certainty"],
            "decision": labels.reasons[found["decision"]] if found["decision"] else "",
        }
    return row


def _stage(entry: Entry, labels: _Labels) -> dict[str, Any]:
    t = entry.item
    user = t["by_user__username"]
    return {
        "kind": "stage",
        "pk": entry.pk,
        "text": blocktranslate(
            gettext_noop("Stage %(from)s → %(to)s"),
            **{
                "from": labels.stage.get(t["from_stage"], t["from_stage"]),
                "to": labels.stage.get(t["to_stage"], t["to_stage"]),
            },
        ),
        "who": user if user is not None else labels.actor.get(t["by_system"], t["by_system"]),
        "reason": labels.reasons[t["reason"]] if t["reason"] else "",
    }


def _note(entry: Entry) -> dict[str, Any]:
    n = entry.item
    return {
        "kind": "note",
        "pk": entry.pk,
        "author": n["author__username"],
        "body": linebreaksbr(n["body"]),
    }


def thread_rows(entries: Iterable[Entry]) -> list[dict[str, Any]]:
    """One dict per thread entry with what the page prints for it (no query)."""
    labels = _Labels()
    rows = []
    for entry in entries:
        if entry.kind == "message":
            row = _message(entry, labels)
        elif entry.kind == "stage":
            row = _stage(entry, labels)
        else:
            row = _note(entry)
        labels.moment(row, entry.at)
        rows.append(row)
    return rows


def thread_html(entries: Iterable[Entry]) -> SafeString:
    """The entries printed by the compiled rows template (console.rows); "" for none."""
    words = {
        "template": gettext("Template"),
        "analysing": gettext("Being analysed…"),
        "ai": gettext("AI reads it as"),
        "happened": gettext("What happened"),
        "note": gettext("Team note"),
        "someone": gettext("someone"),
        "history": gettext("history"),
        "history_title": gettext(
            "Written before the chat was known here; fetched afterwards, nothing ran for it"
        ),
    }
    return render_rows("outreach/inbox/_entries.jinja", entries=thread_rows(entries), words=words)
