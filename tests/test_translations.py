"""The Romanian catalogue: complete, compiled, placeholders intact, and used by the pages.

locale/ro/LC_MESSAGES/django.po is refreshed with `make messages` (makemessages +
compilemessages). These tests fail when a string is left untranslated or fuzzy, when the
.mo was not recompiled after editing the .po, or when a translation drops or renames a
placeholder (which would raise KeyError at runtime, in Romanian only).
"""

from __future__ import annotations

import gettext
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from django.utils import translation

from hitl import review
from outreach import stages
from outreach.models import ImportJob, Priority, Stage
from tests.factories import make_lead, make_phone, make_sequence, make_template

LOCALE = Path(settings.BASE_DIR) / "locale" / "ro" / "LC_MESSAGES"
PO_PATH = LOCALE / "django.po"
MO_PATH = LOCALE / "django.mo"


# --- a small .po reader (stdlib only) ------------------------------------------------


@dataclass
class Entry:
    line: int
    msgid: str = ""
    msgid_plural: str | None = None
    msgctxt: str | None = None
    msgstr: dict[int, str] = field(default_factory=dict)
    flags: set[str] = field(default_factory=set)
    obsolete: bool = False

    @property
    def is_header(self) -> bool:
        return self.msgid == "" and self.msgctxt is None

    def where(self) -> str:
        return f"django.po:{self.line} {self.msgid!r}"


_KEYWORD = re.compile(r'^(msgctxt|msgid_plural|msgid|msgstr(?:\[(\d+)\])?)\s+(".*")\s*$')
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\"}


def _unquote(token: str) -> str:
    token = token.strip()
    assert token.startswith('"') and token.endswith('"'), token
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m[1], m[1]), token[1:-1])


def parse_po(text: str) -> list[Entry]:
    entries: list[Entry] = []
    current: Entry | None = None
    target: tuple[str, int | None] | None = None

    def start(number: int) -> Entry:
        entry = Entry(line=number)
        entries.append(entry)
        return entry

    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        obsolete = line.startswith("#~")
        if obsolete:
            line = line[2:].strip()
        if not line:
            current, target = None, None
            continue
        if line.startswith("#"):
            if current is not None and current.msgstr:
                current, target = None, None  # comments open the next entry
            if line.startswith("#,"):
                current = current or start(number)
                current.flags |= {f.strip() for f in line[2:].split(",") if f.strip()}
            continue
        match = _KEYWORD.match(line)
        if match:
            keyword, index, value = match[1], match[2], _unquote(match[3])
            if keyword in ("msgctxt", "msgid") and (current is None or current.msgstr):
                current = start(number)
            if current is None:
                current = start(number)
            current.obsolete = current.obsolete or obsolete
            if keyword.startswith("msgstr"):
                n = int(index) if index is not None else 0
                current.msgstr[n] = value
                target = ("msgstr", n)
            else:
                setattr(current, keyword, value)
                target = (keyword, None)
            continue
        assert line.startswith('"') and current is not None and target, f"line {number}: {raw}"
        value = _unquote(line)
        if target[0] == "msgstr":
            current.msgstr[target[1]] += value
        else:
            setattr(current, target[0], getattr(current, target[0]) + value)
    return entries


@pytest.fixture(scope="module")
def entries() -> list[Entry]:
    return parse_po(PO_PATH.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def messages(entries: list[Entry]) -> list[Entry]:
    return [e for e in entries if not e.is_header and not e.obsolete]


def test_the_reader_understands_the_po_format():
    parsed = parse_po(
        'msgid ""\nmsgstr ""\n"Language: ro\\n"\n\n'
        '#: a.py:1\n#, fuzzy, python-format\n#| msgid "old"\n'
        'msgid "%(n)s lead"\nmsgid_plural "%(n)s "\n"leads"\n'
        'msgstr[0] "%(n)s lead"\nmsgstr[1] "%(n)s lead-uri"\nmsgstr[2] ""\n\n'
        'msgctxt "menu"\nmsgid "Say \\"hi\\""\nmsgstr "Spune \\"salut\\""\n\n'
        '#~ msgid "gone"\n#~ msgstr "dus"\n'
    )
    header, plural, quoted, gone = parsed
    assert header.is_header and header.msgstr[0] == "Language: ro\n"
    assert plural.flags == {"fuzzy", "python-format"}
    assert plural.msgid_plural == "%(n)s leads" and plural.msgstr[2] == ""
    assert (quoted.msgctxt, quoted.msgid, quoted.msgstr[0]) == ("menu", 'Say "hi"', 'Spune "salut"')
    assert gone.obsolete and not plural.obsolete


# --- the catalogue ------------------------------------------------------------------


def test_catalogue_has_entries(messages):
    assert len(messages) > 300
    assert {"Leads", "Sequences", "Templates", "Cannot move a lead from %(from)s to %(to)s."} <= {
        e.msgid for e in messages
    }


def test_every_entry_is_translated_and_none_is_fuzzy(entries, messages):
    header = [e for e in entries if e.is_header]
    assert len(header) == 1 and "fuzzy" not in header[0].flags
    fuzzy = [e.where() for e in messages if "fuzzy" in e.flags]
    assert not fuzzy, f"fuzzy entries: {fuzzy}"
    untranslated = [e.where() for e in messages if not e.msgstr or not all(e.msgstr.values())]
    assert not untranslated, f"untranslated entries: {untranslated}"
    assert not [e.where() for e in entries if e.obsolete], "run makemessages --no-obsolete"


def test_plural_entries_fill_the_three_romanian_forms(entries, messages):
    header = next(e for e in entries if e.is_header).msgstr[0]
    assert "nplurals=3;" in header.replace(" ", "")
    for entry in messages:
        if entry.msgid_plural is not None:
            assert sorted(entry.msgstr) == [0, 1, 2], entry.where()
        else:
            assert sorted(entry.msgstr) == [0], entry.where()


NAMED = re.compile(r"%\((\w+)\)[-#0 +]*\d*(?:\.\d+)?[diouxXeEfFgGcrsa]")
POSITIONAL = re.compile(r"%(?!\()[-#0 +]*\d*(?:\.\d+)?[diouxXeEfFgGcrsa]")
TEMPLATE_VARS = re.compile(r"\{\{\s*[^}]*?\s*\}\}")


def _named(text: str) -> set[str]:
    return set(NAMED.findall(text))


def test_placeholders_match_the_english(messages):
    wrong = []
    for entry in messages:
        expected = _named(entry.msgid) | _named(entry.msgid_plural or "")
        for n, text in entry.msgstr.items():
            if entry.msgid_plural is not None and n == 0 and "python-format" in entry.flags:
                # The singular may leave out the count ("un lead"), never add a name.
                ok = _named(text) <= expected and _named(text) >= _named(entry.msgid) - {"counter"}
            else:
                ok = _named(text) == expected
            if "python-format" in entry.flags:
                ok = ok and len(POSITIONAL.findall(text)) == len(POSITIONAL.findall(entry.msgid))
            ok = ok and sorted(TEMPLATE_VARS.findall(text)) == sorted(
                TEMPLATE_VARS.findall(entry.msgid)
            )
            if not ok:
                wrong.append(f"{entry.where()} msgstr[{n}]={text!r}")
    assert not wrong, "placeholders differ:\n" + "\n".join(wrong)


def test_romanian_uses_comma_below_diacritics(messages):
    cedilla = [e.where() for e in messages for t in e.msgstr.values() if re.search("[şţŞŢ]", t)]
    assert not cedilla, f"use ș/ț (comma below), not ş/ţ (cedilla): {cedilla}"


def test_compiled_catalogue_matches_the_po(messages):
    with MO_PATH.open("rb") as fp:
        compiled = gettext.GNUTranslations(fp)
    expected: dict = {}
    for entry in messages:
        key = entry.msgid if entry.msgctxt is None else f"{entry.msgctxt}\x04{entry.msgid}"
        if entry.msgid_plural is None:
            expected[key] = entry.msgstr[0]
        else:
            for n, text in entry.msgstr.items():
                expected[(key, n)] = text
    catalog = {k: v for k, v in compiled._catalog.items() if k != ""}
    stale = {k: (catalog.get(k), v) for k, v in expected.items() if catalog.get(k) != v}
    extra = set(catalog) - set(expected)
    assert not stale and not extra, (
        "django.mo is out of date; run `make messages` "
        f"(differs: {sorted(map(str, stale))[:10]}, only in .mo: {sorted(map(str, extra))[:10]})"
    )
    plural = compiled.plural  # the header's Plural-Forms, as compiled
    assert [plural(n) for n in (0, 1, 2, 19, 20, 101, 119, 120)] == [1, 0, 1, 1, 2, 1, 1, 2]


# --- the pages in Romanian -----------------------------------------------------------


@pytest.fixture
def ro_client(operator) -> Client:
    """Signed in, asking for Romanian (the site default) as a Romanian browser does."""
    client = Client(HTTP_ACCEPT_LANGUAGE="ro")
    client.force_login(operator)
    return client


def _page(client: Client, url: str, **params) -> str:
    response = client.get(url, params)
    assert response.status_code == 200, url
    assert response["Content-Language"] == "ro"
    return response.content.decode()


def _assert_romanian(html: str, romanian: list[str], english: list[str]) -> None:
    missing = [text for text in romanian if text not in html]
    assert not missing, f"Romanian text missing: {missing}"
    leaked = [text for text in english if text in html]
    assert not leaked, f"English text in the Romanian page: {leaked}"


def test_leads_page_in_romanian(ro_client, tenant):
    make_lead(tenant, name="Agro Câmpia SRL")
    html = _page(ro_client, "/outreach/leads/")
    _assert_romanian(
        html,
        [
            "<h1>Lead-uri</h1>",
            "1 lead<",
            "Firmă, contact, CUI, telefon sau email",
            "Orice etapă",
            "Orice canal",
            "Orice telefon",
            "Orice secvență",
            "Revizuire: oricare",
            "Dezabonare: oricare",
            ">Filtrează<",
            ">Resetează<",
            "Importă lead-uri din CSV",
            "Simulare (doar verifică, nu salvează nimic)",
            "Cu lead-urile selectate:",
            ">Companie",
            ">Județ<",
            ">Etapă<",
            ">Rece<",  # the lead's stage
            "Secvențe",
            "Șabloane",
        ],
        [
            "<h1>Leads</h1>",
            "Company, contact, CUI, phone or email",
            "Any stage",
            "Any channel",
            "Review: any",
            ">Filter<",
            "Import leads from CSV",
            "With the selected leads:",
            ">Company",
            ">County<",
            ">Cold<",
        ],
    )
    assert _page(ro_client, "/outreach/leads/", q="nimic").count("Niciun lead nu corespunde") == 1


def test_many_leads_use_the_de_plural_form(ro_client, tenant):
    for _ in range(20):
        make_lead(tenant)
    assert "20 de lead-uri" in _page(ro_client, "/outreach/leads/")


def test_service_refusals_reach_the_page_in_romanian(ro_client, tenant):
    lead = make_lead(tenant)
    response = ro_client.post(
        "/outreach/leads/bulk/", {"action": "resume", "ids": [lead.pk]}, follow=True
    )
    html = response.content.decode()
    assert "Lead-uri reluate: 0." in html
    assert "Doar un lead în pauză poate fi reluat.: 1" in html
    assert "Only a paused lead can be resumed." not in html
    html = ro_client.post("/outreach/leads/bulk/", {"action": "pause"}, follow=True)
    assert "Selectează cel puțin un lead." in html.content.decode()


def test_service_errors_follow_the_active_language(tenant):
    lead = make_lead(tenant)
    with translation.override("ro"), pytest.raises(stages.IllegalTransition) as refused:
        stages.transition(lead.journey, Stage.CONVERTED, reason="test")
    assert str(refused.value) == "Un lead nu poate trece din etapa Rece în etapa Convertit."
    with pytest.raises(stages.IllegalTransition, match="Cannot move a lead from Cold"):
        stages.transition(lead.journey, Stage.CONVERTED, reason="test")  # English (conftest)


def test_lead_detail_in_romanian(ro_client, tenant):
    lead = make_lead(tenant, contact_name="Ion Popa")
    html = _page(ro_client, f"/outreach/leads/{lead.pk}/")
    _assert_romanian(
        html,
        [
            "Înapoi la lead-uri",
            "Companie și contact",
            "Localitate",
            "Parcurs",
            "Istoricul etapelor",
            "Nicio schimbare de etapă încă.",
            "Schimbă etapa",
            "Scrieți un mesaj…",
        ],
        ["Back to leads", "Company and contact", "Stage history", "Change stage"],
    )


def test_import_job_page_in_romanian(ro_client, tenant, operator):
    ImportJob.objects.create(tenant=tenant, file_name="vechi.csv", content=b"", dry_run=True)
    job = ImportJob.objects.create(
        tenant=tenant,
        created_by=operator,
        file_name="firme.csv",
        content=b"",
        status=ImportJob.Status.DONE,
        total_rows=4,
        processed_rows=4,
        created=3,
        rejected=[{"line": 5, "reason": "CUI invalid"}],
    )
    html = _page(ro_client, f"/outreach/leads/import/{job.pk}/")
    _assert_romanian(
        html,
        [
            "<h1>Import de lead-uri: firme.csv</h1>",
            "create 3, actualizate 0, neschimbate 0, respinse 1",
            ">Rând<",
            "Vezi lead-urile",
            "Importuri anterioare",
            "(simulare)",
            ">În coadă<",
        ],
        ["Lead import", "created 3", "See the leads", "Earlier imports", ">Queued<"],
    )


def test_sequence_editor_in_romanian(ro_client, tenant):
    sequence = make_sequence(tenant, name="Fermieri Iași")
    html = _page(ro_client, "/outreach/sequences/")
    _assert_romanian(
        html,
        ["<h1>Secvențe</h1>", "Secvență nouă", "Înscrieri active", "Fermieri Iași"],
        ["New sequence", "Active enrollments"],
    )
    html = _page(ro_client, f"/outreach/sequences/{sequence.pk}/")
    _assert_romanian(
        html,
        [
            "Toate secvențele",
            ">Pași<",
            "Secvență de rezervă",
            "Întârziere",
            "Unitate de întârziere",
            "Șablon",
            ">Salvează<",
        ],
        ["All sequences", "Fallback sequence", "Delay unit", ">Save<"],
    )


def test_template_editor_in_romanian(ro_client, tenant):
    template = make_template(tenant)
    html = _page(ro_client, "/outreach/templates/")
    _assert_romanian(
        html,
        ["<h1>Șabloane</h1>", "Șablon nou", ">Pondere<", "Răspunsuri pozitive"],
        ["New template", ">Weight<", "Positive replies"],
    )
    html = _page(ro_client, f"/outreach/templates/{template.pk}/")
    _assert_romanian(
        html,
        [
            "Toate șabloanele",
            "alege una dintre variante",
            "{{company_name}}",
            "Versiune nouă",
            "Previzualizarea apare pe măsură ce scrii.",
        ],
        ["All templates", "picks one alternative", "New version"],
    )
    preview = ro_client.post(
        "/outreach/templates/preview/", {"channel": "WHATSAPP", "body": "{Bună|Salut} ziua"}
    )
    assert "2 variante în total" in preview.content.decode()


def test_review_queue_in_romanian(ro_client, tenant):
    lead = make_lead(tenant)
    review.open_item(lead, reason="întrebare despre preț", priority=Priority.HIGH)
    html = _page(ro_client, "/outreach/review/", tab=Priority.HIGH)
    _assert_romanian(
        html,
        ["Coadă de revizuire", "Răspuns de revizuit", "Atribuie-mi", "scadent în"],
        ["Review queue", "Reply to review", "Assign to me"],
    )


def test_phones_and_dashboard_in_romanian(ro_client, tenant):
    make_phone(tenant)
    _assert_romanian(
        _page(ro_client, "/outreach/phones/"),
        ["<h1>Telefoane</h1>", "Contacte noi azi"],
        ["New contacts today"],
    )
    _assert_romanian(
        _page(ro_client, "/outreach/dashboard/"),
        ["Cota telefoanelor azi", "Activitate recentă"],
        ["Phone quota today", "Recent activity"],
    )


def test_analytics_page_in_romanian(ro_client):
    html = _page(ro_client, "/outreach/analytics/")
    _assert_romanian(
        html,
        ["<h1>Analize</h1>", "De la", "Arată"],
        ["<h1>Analytics</h1>", ">Show<"],
    )


def test_the_language_switch_names_each_language_in_itself(ro_client, client, operator):
    """Someone who reads only English must find "English" on a Romanian page, and back."""
    switch = 'lang="{code}">{name}</button>'
    html = _page(ro_client, "/outreach/leads/")
    assert switch.format(code="en", name="English") in html
    assert switch.format(code="ro", name="Română") in html
    client.force_login(operator)
    english = client.get("/outreach/leads/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert switch.format(code="ro", name="Română") in english
