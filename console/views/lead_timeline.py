"""The lead page's conversation, ready to print (docs/page-rendering.md).

Labels and classes are worked out here, each distinct label translated once, and the rows
printed by the compiled rows template `outreach/_lead_timeline.jinja` (console.rows): fifty
messages through Django's engine, with an include per outbound message for who wrote it,
cost ~9 ms of CPU a page.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.template.defaultfilters import filesizeformat, linebreaksbr
from django.utils import formats
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext, gettext_noop

from cerniq import reasons
from console.rows import Dates, blocktranslate, render_rows
from console.views.lead_rows import pk_url
from console.views.media import media_item
from hitl.analysis import analysis_of
from outreach.models import Channel, Message

_AI = '<small class="message-origin message-origin--ai" data-origin="{}">{}</small>'
_MANUAL = '<small class="message-origin" data-origin="manual">{}</small>'


def origin(m: Message) -> SafeString | str:
    """Who wrote an outbound message: an AI draft approved (or edited) by a person, an AI
    reply sent automatically, or a person's own message; "" for an inbound one."""
    if m.direction == Message.Direction.INBOUND:
        return ""
    if m.sent_by is not None:
        who = m.sent_by.get_full_name() or m.sent_by.get_username()
        if m.ai_drafted and m.ai_draft_edited:
            said = blocktranslate(gettext_noop("AI draft, edited by %(who)s"), who=who)
            return format_html(_AI, "ai-edited", said)
        if m.ai_drafted:
            said = blocktranslate(gettext_noop("AI draft · approved by %(who)s"), who=who)
            return format_html(_AI, "ai-approved", said)
        if m.is_manual:
            return format_html(_MANUAL, format_html("{} · {}", gettext("manual"), who))
        return ""
    if m.ai_drafted:
        return format_html(_AI, "ai-auto", gettext("AI reply · sent automatically"))
    if m.is_manual:
        return format_html(_MANUAL, gettext("manual"))
    return ""


def _analysis(m: Message) -> dict[str, Any] | None:
    found = analysis_of(m)
    if found is None:
        return None
    # As `{{ value }}` prints a number: in the reader's language (0,85 in Romanian).
    for key in ("sentiment", "confidence"):
        if found[key] is not None:
            found[key] = formats.localize(found[key])
    found["decision"] = reasons.render(found["decision"]) if found["decision"] else ""
    return found


def _media(m: Message, url_of: Callable[[int], str]) -> dict[str, Any] | None:
    media = m.media  # read with the page's messages (lead_detail)
    if media is None:
        return None
    return media_item(url_of, media.pk, media.filename, media.size, media.content_type)


def timeline_items(latest: list[Message]) -> list[dict]:
    """The conversation's rows (`latest`: oldest first)."""
    channels = {value: str(label) for value, label in Channel.choices}
    statuses = {value: str(label) for value, label in Message.Status.choices}
    file_url, analysing_url = pk_url("outreach:attachment"), pk_url("hitl:analysing_one")
    media_url = pk_url("outreach:media_file")
    dates = Dates()
    items = []
    for m in latest:
        version = m.template_version
        items.append(
            {
                "pk": m.pk,
                "when": dates.short_datetime(m.created_at),
                "inbound": m.direction == Message.Direction.INBOUND,
                "origin": origin(m),
                "channel": channels.get(m.channel, m.channel),
                "status": statuses.get(m.status, m.status),
                "status_css": f"s-{m.status.lower()}",
                "phone": (m.phone.number if m.phone else "") or "—",
                "template": f"{version.template.name} v{version.version}" if version else "",
                "variant": (m.variant_hash or "")[:8],
                "subject": m.subject,
                "body": linebreaksbr(m.body),
                "attachments": [
                    {"filename": a.filename, "size": filesizeformat(a.size), "url": file_url(a.pk)}
                    for a in m.attachments.all()
                ],
                "media": _media(m, media_url),
                "error": reasons.render(m.error) if m.error else "",
                "basis_missing": m.basis == "missing",
                "analysis": _analysis(m),
                "analysing_url": analysing_url(m.pk),
                # Fetched afterwards with the chat (hitl.whatsapp_history): the page's query
                # annotates it (outreach.past_messages.history_flag).
                "history": bool(getattr(m, "is_history", False)),
            }
        )
    return items


def timeline_html(items: list[dict]) -> SafeString:
    """The rows printed by the compiled rows template; "" for none."""
    words = {
        "in": gettext("in"),
        "out": gettext("out"),
        "variant": gettext("Variant"),
        "ai_analysis": gettext("AI analysis"),
        "analysing": gettext("Being analysed…"),
        "decision": gettext("decision"),
        "intent": gettext("intent"),
        "sentiment": gettext("sentiment"),
        "confidence": gettext("confidence"),
        "basis_missing": gettext("first message sent without a recorded lawful basis"),
        "history": gettext("history"),
        "history_title": gettext(
            "Written before the chat was known here; fetched afterwards, nothing ran for it"
        ),
    }
    return render_rows("outreach/_lead_timeline.jinja", timeline=items, words=words)
