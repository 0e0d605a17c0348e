"""Hostile values in every form of the pages (the forms found on the pages themselves: every
`<form method="post">` a tenant admin is shown, so a new form or field is covered without
a new test): oversize text, control characters and NUL, bytes that are not UTF-8, huge
numbers, wrong types.

Each field gets a fixed set of values hostile whatever the field, then hypothesis draws
more. The property: never a 5xx; a 4xx changes nothing; a hostile value is never stored,
whatever the answer (a page refuses it with a 400 or its form's errors, or ignores a field
it does not use: a return address, a tab name).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from html.parser import HTMLParser
from typing import Any
from urllib.parse import quote, quote_from_bytes

import pytest
from django.urls import resolve
from hypothesis import strategies as st

from outreach.suppression_list import add_entry
from tests.factories import make_user
from tests.hostile import (
    CONTROL,
    Hostile,
    control,
    errors_logged,
    failed,
    fuzz,
    hostile_text,
    huge_number,
    not_utf8,
    one_of_everything,
    oversize,
    run_case,
    snapshot,
    wrong_types,
)

pytestmark = pytest.mark.django_db

EXAMPLES = 8  # drawn per form, after the fixed values of each field
WRONG_TYPES = ["", "-1", "0", "1.5", "abc", "on", "null"]
CHOICES = ("number", "select", "radio")  # a long number is hostile here; in text it is text


def fixed_values(kind: str) -> list[Hostile]:
    """What every field of this input type must never store."""
    values = [oversize(as_json=False), control("\x1b", as_json=False), not_utf8(as_json=False)]
    if kind in CHOICES:
        values.append(huge_number(4_000, must_refuse=True))
    return values


def drawn_values(kind: str) -> st.SearchStrategy[Hostile]:
    return st.one_of(
        hostile_text(as_json=False),
        st.sampled_from(CONTROL).map(lambda c: control(c, as_json=False)),
        st.integers(20, 4_000).map(lambda n: huge_number(n, must_refuse=kind in CHOICES)),
        wrong_types(WRONG_TYPES),
    )


@dataclass
class Form:
    page: str
    action: str
    fields: dict[str, str]  # name -> the value the page filled in
    kinds: dict[str, str]  # name -> input type (text, number, select, textarea, hidden, ...)
    multipart: bool


class FormsOnPage(HTMLParser):
    """Every <form method="post"> of a page, with its fields and their values."""

    def __init__(self, page: str) -> None:
        super().__init__()
        self.page = page
        self.forms: list[Form] = []
        self.form: Form | None = None
        self.select: str | None = None
        self.textarea: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form" and a.get("method", "get").lower() == "post":
            enctype = a.get("enctype", "")
            self.form = Form(
                self.page, a.get("action") or self.page, {}, {}, "multipart" in enctype
            )
        elif self.form is None or "name" not in a and tag != "option":
            return
        elif tag == "input" and a.get("type", "text") not in ("submit", "button", "file", "image"):
            kind = a.get("type", "text")
            if kind in ("checkbox", "radio") and "checked" not in a:
                self.form.kinds.setdefault(a["name"], kind)
                return
            self.form.fields[a["name"]] = a.get("value", "on" if kind == "checkbox" else "")
            self.form.kinds[a["name"]] = kind
        elif tag == "textarea":
            self.textarea = a["name"]
            self.form.fields[a["name"]] = ""
            self.form.kinds[a["name"]] = "textarea"
        elif tag == "select":
            self.select = a["name"]
            self.form.kinds[a["name"]] = "select"
            self.form.fields.setdefault(a["name"], "")
        elif (
            tag == "option"
            and self.select
            and ("selected" in a or not self.form.fields[self.select])
        ):
            self.form.fields[self.select] = a.get("value", "")

    def handle_data(self, data: str) -> None:
        if self.form is not None and self.textarea:
            self.form.fields[self.textarea] += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "form" and self.form is not None:
            self.forms.append(self.form)
            self.form = None
        elif tag == "select":
            self.select = None
        elif tag == "textarea":
            self.textarea = None


def page_paths(rows: dict[str, Any]) -> list[str]:
    lead, sequence, template = rows["lead"], rows["sequence"], rows["template"]
    return [
        "/outreach/dashboard/",
        "/outreach/leads/",
        f"/outreach/leads/{lead.pk}/",
        "/outreach/phones/",
        "/outreach/phones/add/",
        "/outreach/review/",
        "/outreach/sequences/new/",
        f"/outreach/sequences/{sequence.pk}/",
        "/outreach/templates/new/",
        f"/outreach/templates/{template.pk}/",
        "/outreach/campaigns/",
        "/outreach/alerts/",
        "/outreach/alerts/channels/",
        "/outreach/webhooks/",
        "/outreach/api-keys/",
        "/outreach/settings/sending/",
        "/outreach/settings/review/",
        "/outreach/settings/do-not-contact/",
        "/outreach/settings/lead-rules/new/",
        "/outreach/settings/meta/",
        "/outreach/settings/mailchimp/",
        "/outreach/leads/add/",
        "/outreach/templates/brochures/",
        "/outreach/dead-letters/",
        f"/outreach/leads/import/{rows['import_job'].pk}/",
        "/outreach/queues/",
        "/login/",
    ]


def forms_of(client: Any, paths: list[str]) -> list[Form]:
    found, seen = [], set()
    for path in paths:
        response = client.get(path, HTTP_ACCEPT_LANGUAGE="en")
        if response.status_code != 200:
            continue
        parser = FormsOnPage(path)
        parser.feed(response.content.decode())
        for form in parser.forms:
            fillable = [n for n in form.kinds if n != "csrfmiddlewaretoken"]
            view = resolve(form.action.split("?")[0].split("#")[0]).func
            key = (view, tuple(sorted(fillable)))
            if fillable and key not in seen:
                seen.add(key)
                found.append(form)
    return found


def form_body(fields: dict[str, str], name: str, raw: bytes) -> bytes:
    pairs = [(quote(k), quote(v)) for k, v in fields.items() if k != name]
    pairs.append((quote(name), quote_from_bytes(raw)))
    return "&".join(f"{k}={v}" for k, v in pairs).encode()


def bound(check: Any, form: Form) -> Any:
    def run(case: tuple[str, Hostile]) -> None:
        check(form, *case)

    return run


def test_every_page_form_refuses_hostile_values(tenant, client):
    rows, _ = one_of_everything(tenant)
    # A person's do-not-contact entry: the list's page then shows the form taking one off.
    add_entry(tenant, kind="domain", value="hostile-forms.ro", reason="listed for the forms")
    client.force_login(make_user(tenant, role="ADMIN"))
    client.raise_request_exception = False  # a 5xx shows as a status, to be asserted
    forms = forms_of(client, page_paths(rows))
    before = snapshot()
    failures: list[str] = []
    tried = 0
    with errors_logged() as last:

        def check(form: Form, name: str, hostile: Hostile) -> None:
            where = f"{form.page} -> {form.action} {name}={hostile.kind}"
            response, outcome = run_case(
                before,
                lambda: client.generic(
                    "POST",
                    form.action,
                    form_body(form.fields, name, hostile.raw),
                    content_type="application/x-www-form-urlencoded",
                    HTTP_ACCEPT_LANGUAGE="en",
                ),
            )
            assert response.status_code < 500, (where, response.content[:300], last.text)
            if response.status_code >= 400:
                assert not outcome.changed(), (where, outcome.changed())
            if hostile.must_refuse:
                assert not outcome.stored(hostile.marker), (where, response.status_code)

        for form in forms:
            names = sorted(n for n in form.kinds if n != "csrfmiddlewaretoken")
            for name in names:
                for hostile in fixed_values(form.kinds[name]):
                    failures += failed(partial(check, form, name, hostile))
                    tried += 1
            drawn = st.sampled_from(names).flatmap(
                lambda name, form=form: st.tuples(st.just(name), drawn_values(form.kinds[name]))
            )
            failures += failed(fuzz(drawn, EXAMPLES)(bound(check, form)))
    assert not failures, "\n".join(failures)
    assert len(forms) >= 20, [form.action for form in forms]
    assert tried > 300
