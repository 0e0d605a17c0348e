"""The leads list's controls, ready to print: the filter form, the bulk actions and the
sortable header (docs/page-rendering.md).

Through Django's engine their sixty-odd options, forty words and sort links cost ~5 ms of CPU
a page; here the options are worked out and the words translated in Python, and compiled
templates (console.rows) print them: `_lead_filters.jinja`, `_lead_bulk.jinja`,
`_lead_sort_head.jinja`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.urls import reverse
from django.utils.safestring import SafeString
from django.utils.translation import gettext, gettext_noop

from console.rows import render_rows
from outreach.models import Channel, Lead, OptOutRecord, Stage

Choices = Iterable[tuple[Any, Any]]


def _options(first: str, *more: Choices) -> list[tuple[str, str]]:
    """A select's options: the "any" option, then each choice (value, label) as text."""
    found = [("", first)]
    for choices in more:
        found += [(str(value), str(label)) for value, label in choices]
    return found


def filters_html(
    filters: Mapping[str, str],
    *,
    phones: Iterable[Mapping[str, Any]],
    sequences: Iterable[Mapping[str, Any]],
    sort: str,
    csrf_token: str,
) -> SafeString:
    """The filter form with `filters` (the query's values) chosen."""
    none = [("none", gettext("No phone"))]
    selects = [
        ("stage", gettext("Stage"), _options(gettext("Any stage"), Stage.choices)),
        ("channel", gettext("Last channel"), _options(gettext("Any channel"), Channel.choices)),
        (
            "phone",
            gettext("Assigned phone"),
            _options(gettext("Any phone"), none, [(p["pk"], p["number"]) for p in phones]),
        ),
        (
            "sequence",
            gettext("Sequence"),
            _options(
                gettext("Any sequence"),
                [("none", gettext("No sequence"))],
                [(s["pk"], s["name"]) for s in sequences],
            ),
        ),
        (
            "review",
            gettext("Needs review"),
            _options(
                gettext("Review: any"),
                [("1", gettext("Needs review")), ("0", gettext("No review needed"))],
            ),
        ),
        (
            "opted_out",
            gettext("Opted out"),
            _options(
                gettext("Opt-out: any"),
                [
                    ("any", gettext("Opted out (any channel)")),
                    ("whatsapp", gettext("Opted out of WhatsApp")),
                    ("email", gettext("Opted out of email")),
                    ("none", gettext("Not opted out")),
                ],
            ),
        ),
        (
            "email_status",
            gettext("Email status"),
            _options(gettext("Email: any"), Lead.EmailStatus.choices),
        ),
        (
            "contactable",
            gettext("Can we reach them?"),
            _options(
                gettext("Reachable: any"),
                [("true", gettext("Can be contacted")), ("false", gettext("Cannot be contacted"))],
            ),
        ),
        (
            "stalled",
            gettext("Stalled in a sequence"),
            _options(
                gettext("Stalled: any"),
                [("true", gettext("Stalled in its sequence")), ("false", gettext("Not stalled"))],
            ),
        ),
    ]
    words = {
        "search_placeholder": gettext("Company, contact, CUI, phone or email"),
        "search": gettext("Search"),
        "county": gettext("County"),
        "filter": gettext("Filter"),
        "clear": gettext("Clear"),
    }
    return render_rows(
        "outreach/_lead_filters.jinja",
        action=reverse("outreach:leads"),
        csrf_token=csrf_token,
        filters=filters,
        sort=sort,
        selects=[
            {"name": name, "label": label, "options": options, "chosen": filters.get(name, "")}
            for name, label, options in selects
        ],
        w=words,
    )


def bulk_html(sequences: Iterable[Mapping[str, Any]]) -> SafeString:
    """The bulk actions over the selected leads."""
    words = {
        "with_selected": gettext("With the selected leads:"),
        "pause": gettext("Pause"),
        "resume": gettext("Resume"),
        "sequence_to_enroll": gettext("Sequence to enroll in"),
        "choose_sequence": gettext("Choose a sequence…"),
        "enroll": gettext("Enroll"),
        "record_opt_out_more": gettext("Record opt-out…"),
        "opt_out_help": gettext(
            "For leads who asked us to stop where the app could not see it (a phone call, in "
            "person). Every channel stops for each of them: open sequences end, queued "
            "messages are cancelled. Where they asked and the reason are kept in each lead's "
            "history."
        ),
        "where_they_asked": gettext("Where they asked:"),
        "where_did_they_ask": gettext("Where did the leads ask?"),
        "why": gettext("Why"),
        "who_asked": gettext("Who asked, when and how"),
        "ask_opt_out": gettext(
            "Opt the selected leads out of every channel? Open sequences end and queued "
            "messages are cancelled."
        ),
        "record_opt_out": gettext("Record opt-out"),
    }
    return render_rows(
        "outreach/_lead_bulk.jinja",
        sequences=[(s["pk"], s["name"]) for s in sequences],
        opt_out_places=[(value, str(label)) for value, label in OptOutRecord.AskedOn.choices],
        w=words,
    )


SORT_COLUMNS = (  # the table's columns: the ?sort= key (None: not sortable) and the heading
    ("name", gettext_noop("Company")),
    ("cui", gettext_noop("CUI")),
    ("county", gettext_noop("County")),
    ("contact", gettext_noop("Contact")),
    (None, gettext_noop("Phone")),
    ("stage", gettext_noop("Stage")),
    ("phone", gettext_noop("Assigned phone")),
    ("last_contact", gettext_noop("Last contact")),
    (None, gettext_noop("Can we reach them?")),
    (None, gettext_noop("Needs review")),
)


def sort_head_html(sort: str, query_without_sort: str) -> SafeString:
    """The header row: a sortable column links to its sort, or to the reverse of the order
    the list is sorted by now (▲ ascending, ▼ descending)."""
    prefix = f"?{query_without_sort}&sort=" if query_without_sort else "?sort="
    columns = []
    for key, heading in SORT_COLUMNS:
        column = {"label": gettext(heading), "url": "", "arrow": ""}
        if key is not None:
            if sort == key:
                column.update(url=f"{prefix}-{key}", arrow=" ▲")
            elif sort == f"-{key}":
                column.update(url=f"{prefix}{key}", arrow=" ▼")
            else:
                column["url"] = f"{prefix}{key}"
        columns.append(column)
    return render_rows(
        "outreach/_lead_sort_head.jinja", columns=columns, select_word=gettext("Select")
    )
