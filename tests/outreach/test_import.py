"""Lead import: validation, dedupe, idempotent re-import, tenant isolation, the command."""

from __future__ import annotations

import csv
import dataclasses
import io
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import translation
from stdnum.ro import cui as ro_cui

from cerniq.models import Tenant
from outreach import importing
from outreach.importing import (
    ImportFileError,
    ImportReport,
    RowError,
    import_csv,
    import_rows,
    normalise_header,
    writing,
)
from outreach.models import Journey, Lead, Stage
from tests.factories import make_lead

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "import"
HEADER = [
    "company name",
    "CUI",
    "county",
    "locality",
    "contact name",
    "phone",
    "phone reachable",
    "email",
    "email status",
    "Suprafață ha",
]

pytestmark = pytest.mark.django_db


# --- helpers ------------------------------------------------------------------------------


def make_cui(base: int) -> str:
    """A valid Romanian CUI: `base` followed by its check digit."""
    digits = str(base)
    number = digits + ro_cui.calc_check_digit(digits)
    assert ro_cui.is_valid(number)
    return number


def bad_cui(base: int) -> str:
    """A CUI whose check digit is wrong."""
    number = make_cui(base)
    wrong = number[:-1] + str((int(number[-1]) + 1) % 10)
    assert not ro_cui.is_valid(wrong)
    return wrong


def e164(n: int) -> str:
    return f"+40722{n:06d}"


def good(n: int, **cells: str) -> dict[str, str]:
    """A valid row for company n (unique CUI, phone and email), with cells overridden."""
    row = {
        "company name": f"Agro {n} SRL",
        "CUI": make_cui(1_000_000 + n),
        "county": "Iași",
        "locality": "Pașcani",
        "contact name": "Ion Popescu",
        "phone": f"0722 {n:06d}",
        "phone reachable": "da",
        "email": f"Office@Agro{n}.ro",
        "email status": "valid",
        "Suprafață ha": "120",
    }
    return {**row, **cells}


def csv_text(rows: list[dict[str, str] | str], header: list[str] = HEADER) -> str:
    """A comma-separated file; a str row is written verbatim (for malformed lines)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    for row in rows:
        if isinstance(row, str):
            out.write(row + "\n")
        else:
            writer.writerow([row.get(column, "") for column in header])
    return out.getvalue()


def run(tenant: Tenant, text: str, **kw: Any) -> ImportReport:
    return import_csv(tenant, io.StringIO(text), **kw)


def shown(rejected: list[RowError]) -> list[tuple[int, str]]:
    """Rejected rows as (line, reason in the active language, English in tests)."""
    return [(error.line, error.text) for error in rejected]


def snapshot(tenant: Tenant) -> list[tuple[Any, ...]]:
    """Everything an import could change, to prove that it did not."""
    return list(
        Lead.objects.filter(tenant=tenant)
        .order_by("pk")
        .values_list("pk", *importing.IMPORT_FIELDS, "custom_fields", "source", "updated_at")
    )


# --- creating -----------------------------------------------------------------------------


def test_good_rows_create_leads_with_cold_journeys(tenant):
    rows = [good(1, CUI=f"RO {make_cui(1_000_001)}"), good(2, **{"phone reachable": ""})]
    report = run(tenant, csv_text(rows))

    assert report == ImportReport(created=2, updated=0, unchanged=0, rejected=[], dry_run=False)
    lead = Lead.objects.get(tenant=tenant, name="Agro 1 SRL")
    assert lead.cui == make_cui(1_000_001)
    assert lead.phone == "+40722000001"
    assert lead.email == "office@agro1.ro"
    assert (lead.county, lead.locality, lead.contact_name) == ("Iași", "Pașcani", "Ion Popescu")
    assert lead.phone_reachable is True
    assert lead.email_status == Lead.EmailStatus.VALID
    assert lead.custom_fields == {"suprafata_ha": "120"}
    assert lead.source == "csv"
    # no value: nobody has checked the number (the contact policy decides, not the import)
    assert Lead.objects.get(name="Agro 2 SRL").phone_reachable is None
    journeys = Journey.objects.filter(lead__tenant=tenant)
    assert sorted(journeys.values_list("lead__name", "stage", "tenant")) == [
        ("Agro 1 SRL", Stage.COLD, tenant.pk),
        ("Agro 2 SRL", Stage.COLD, tenant.pk),
    ]


def test_import_rows_takes_mappings_source_and_first_line(tenant):
    rows = [
        {"Denumire": "Ferma Bio SRL", "Telefon": "0745 000 111", "Activ": True},
        {"Denumire": "Ferma Fără Contact SRL", "Telefon": "", "Activ": False},
    ]
    report = import_rows(tenant, rows, first_line=10, source="demo")

    assert report.created == 1
    assert shown(report.rejected) == [(11, "no phone or email to contact")]
    lead = Lead.objects.get(tenant=tenant)
    assert (lead.phone, lead.source, lead.custom_fields) == (
        "+40745000111",
        "demo",
        {"activ": "True"},
    )


def test_catch_all_maps_to_risky_and_unknown_is_the_default(tenant):
    rows = [good(1, **{"email status": "Catch-All"}), good(2, **{"email status": ""})]
    run(tenant, csv_text(rows))

    statuses = dict(Lead.objects.values_list("name", "email_status"))
    assert statuses == {"Agro 1 SRL": "risky", "Agro 2 SRL": "unknown"}


def test_same_phone_with_different_cuis_in_one_file_is_two_companies(tenant):
    shared = {"phone": "0722 999 999", "email": ""}
    report = run(tenant, csv_text([good(1, **shared), good(2, **shared)]))

    assert (report.created, report.rejected) == (2, [])
    assert Lead.objects.filter(phone="+40722999999").count() == 2


# --- rejecting rows -----------------------------------------------------------------------

BAD_ROWS = [
    pytest.param({"company name": "  "}, "empty company name", id="empty-name"),
    pytest.param(
        {"company name": "A" * 256}, "company name longer than 255 characters", id="long-name"
    ),
    pytest.param(
        {"CUI": bad_cui(1_000_002)},
        f"invalid CUI '{bad_cui(1_000_002)}': the check digit is wrong",
        id="cui-checksum",
    ),
    pytest.param(
        {"CUI": "12AB"}, "invalid CUI '12AB': only digits, optionally after RO", id="cui-format"
    ),
    pytest.param(
        {"phone": "call me"},
        "invalid phone 'call me': not a phone number",
        id="phone-unparseable",
    ),
    pytest.param(
        {"phone": "0722 12"}, "invalid phone '0722 12': not a valid number", id="phone-invalid"
    ),
    pytest.param({"email": "office@@agro"}, "invalid email 'office@@agro'", id="email"),
    pytest.param(
        {"phone reachable": "maybe"},
        "unknown phone reachable value 'maybe' (use true/false, da/nu)",
        id="phone-reachable",
    ),
    pytest.param(
        {"email status": "bounced"},
        "unknown email status 'bounced' (use valid, invalid, risky, catch-all, unknown)",
        id="email-status",
    ),
    pytest.param({"phone": "", "email": ""}, "no phone or email to contact", id="no-contact"),
    pytest.param(
        {"company name": "", "phone": "x1"},
        "empty company name; invalid phone 'x1': not a phone number",
        id="several-problems",
    ),
    pytest.param("Agro 2 SRL,,Iași", "expected 10 fields, found 3", id="field-count"),
    # The same CUI is the same company; the same person in it (here: both rows are "Ion
    # Popescu") is a repeat. Another person of it is a second contact (test_company_import).
    pytest.param(
        {"CUI": f"RO{make_cui(1_000_001)}"},
        "duplicate of line 2 (same contact name)",
        id="dup-cui-same-person",
    ),
    pytest.param(
        {"CUI": "", "phone": "+40 722 000 001"}, "duplicate of line 2 (same phone)", id="dup-phone"
    ),
    pytest.param(
        {"CUI": "", "phone": "", "email": "OFFICE@agro1.ro"},
        "duplicate of line 2 (same email)",
        id="dup-email",
    ),
]


@pytest.mark.parametrize(("bad", "reason"), BAD_ROWS)
def test_bad_row_is_reported_and_skipped_and_the_rest_kept(tenant, bad, reason):
    bad_row = bad if isinstance(bad, str) else good(2, **bad)
    report = run(tenant, csv_text([good(1), bad_row, good(3)]))

    assert shown(report.rejected) == [(3, reason)]
    assert (report.created, report.updated, report.unchanged) == (2, 0, 0)
    assert sorted(Lead.objects.values_list("name", flat=True)) == ["Agro 1 SRL", "Agro 3 SRL"]
    assert Journey.objects.count() == 2


def test_line_numbers_are_physical_lines(tenant):
    text = csv_text(
        [good(1, locality="Sat Nou\nComuna Ciurea"), good(2, phone="x"), "", good(3, CUI="1")]
    )
    report = run(tenant, text)

    assert [error.line for error in report.rejected] == [4, 6]  # row 1 spans lines 2-3
    assert Lead.objects.get().locality == "Sat Nou\nComuna Ciurea"


def test_dictreader_rows_with_missing_or_extra_cells_are_rejected(tenant):
    text = "name,phone\nAgro 1 SRL,0722000001\nAgro 2 SRL\nAgro 3 SRL,0722000003,extra\n"
    report = import_rows(tenant, csv.DictReader(io.StringIO(text)))

    assert report.created == 1
    assert shown(report.rejected) == [
        (3, "fewer fields than the header"),
        (4, "more fields than the header"),
    ]


# --- dedupe and updates -------------------------------------------------------------------


def test_cui_finds_the_company_and_phone_then_email_the_person(tenant):
    """A row with a known CUI is a contact of that company: a new one when its person is
    none of the company's (it used to be merged into the CUI's lead); phone and email
    held by another company's contacts are flagged, never merged across companies."""
    lead_a = make_lead(tenant, cui=make_cui(2_000_001), phone=e164(101))
    lead_b = make_lead(tenant, phone=e164(102), email="b@agro.ro")
    lead_c = make_lead(tenant, phone=e164(103))
    lead_d = make_lead(tenant, email="d@agro.ro")
    before = snapshot(tenant)
    rows = [
        {"name": "A nou SRL", "cui": make_cui(2_000_001), "phone": e164(102), "email": "b@agro.ro"},
        {"name": "C nou SRL", "cui": "", "phone": e164(103), "email": "d@agro.ro"},
    ]
    report = import_rows(tenant, rows)

    assert (report.created, report.updated, report.rejected) == (1, 1, [])
    assert [(flag.line, flag.text) for flag in report.flagged] == [
        (2, f"imported; its phone is also a contact's of {lead_b.name}"),
        (2, f"imported; its email is also a contact's of {lead_b.name}"),
        (3, f"imported; its email is also a contact's of {lead_d.name}"),
    ]
    new = Lead.objects.get(phone=e164(102), company=lead_a.company)
    lead_a.refresh_from_db()
    lead_c.refresh_from_db()
    assert (new.name, new.email) == ("A nou SRL", "b@agro.ro")
    assert (lead_a.name, lead_a.phone, lead_a.email) == ("A nou SRL", e164(101), "")
    assert (lead_c.name, lead_c.email) == ("C nou SRL", "d@agro.ro")
    after = snapshot(tenant)
    assert (after[1], after[3]) == (before[1], before[3])
    assert (lead_b.pk, lead_d.pk) == (after[1][0], after[3][0])


def test_phone_match_with_a_different_cui_creates_a_new_lead(tenant):
    existing = make_lead(tenant, cui=make_cui(2_000_002), phone=e164(201))
    before = snapshot(tenant)
    row = {"name": "Alta Firma SRL", "cui": make_cui(2_000_003), "phone": e164(201)}
    report = import_rows(tenant, [row])

    assert (report.created, report.updated) == (1, 0)
    assert snapshot(tenant)[0] == before[0]
    new = Lead.objects.exclude(pk=existing.pk).get()
    assert (new.cui, new.phone) == (make_cui(2_000_003), e164(201))


def test_phone_match_to_a_lead_without_cui_updates_it_and_fills_the_cui(tenant):
    existing = make_lead(tenant, phone=e164(301))
    row = {"name": "X SRL", "cui": make_cui(2_000_005), "telefon": e164(301)}
    report = import_rows(tenant, [row])

    assert (report.created, report.updated) == (0, 1)
    existing.refresh_from_db()
    assert (existing.name, existing.cui) == ("X SRL", make_cui(2_000_005))


def test_updates_write_each_lead_its_own_values_in_batches(tenant, monkeypatch):
    monkeypatch.setattr(writing, "BATCH_SIZE", 2)
    leads = [make_lead(tenant, cui=make_cui(4_000_000 + n), phone=e164(500 + n)) for n in range(5)]
    rows = [
        {
            "name": f"Ferma {n}",
            "cui": lead.cui,
            "phone": lead.phone,
            "phone_reachable": "da" if n % 2 else "nu",
            "email_status": "valid" if n < 3 else "invalid",
            "cod_caen": f"01{n}",
        }
        for n, lead in enumerate(leads)
    ]
    with CaptureQueriesContext(connection) as queries:
        report = import_rows(tenant, rows)

    assert (report.updated, report.unchanged) == (5, 0)
    stored = Lead.objects.filter(tenant=tenant).order_by("cui")
    assert [
        (lead.name, lead.phone_reachable, lead.email_status, lead.custom_fields) for lead in stored
    ] == [
        (f"Ferma {n}", bool(n % 2), "valid" if n < 3 else "invalid", {"cod_caen": f"01{n}"})
        for n in range(5)
    ]
    updates = [q["sql"] for q in queries if q["sql"].lstrip().upper().startswith("UPDATE")]
    # The people's changes: 5 leads in batches of 2. The names are their companies': one
    # UPDATE of the companies, one copying them to the contacts (outreach.companies).
    assert len([sql for sql in updates if sql.startswith('UPDATE "outreach_lead" SET "upd')]) == 3
    assert len([sql for sql in updates if sql.startswith('UPDATE "outreach_company"')]) == 1
    assert len([sql for sql in updates if sql.startswith('UPDATE "outreach_lead" SET "name"')]) == 1


def test_reimport_changes_nothing(tenant):
    text = csv_text([good(1), good(2), good(3, CUI="")])
    assert run(tenant, text).created == 3
    before = snapshot(tenant)

    with CaptureQueriesContext(connection) as queries:
        report = run(tenant, text)

    assert report == ImportReport(created=0, updated=0, unchanged=3, rejected=[], dry_run=False)
    assert snapshot(tenant) == before
    writes = [q["sql"] for q in queries if q["sql"].lstrip().upper().startswith(("INSERT", "UPD"))]
    assert writes == []


def test_empty_cells_do_not_blank_stored_data_and_custom_fields_merge(tenant):
    lead = make_lead(
        tenant,
        cui=make_cui(3_000_001),
        county="Iași",
        locality="Pașcani",
        contact_name="Maria Ionescu",
        phone=e164(401),
        phone_reachable=True,
        email="maria@agro.ro",
        email_status=Lead.EmailStatus.VALID,
        custom_fields={"cod_caen": "0111", "suprafata_ha": "10"},
        source="manual",
    )
    blank = dict.fromkeys(HEADER, "")
    row = {**blank, "company name": "Nume Nou SRL", "CUI": f"RO{make_cui(3_000_001)}"}
    row["phone"] = "0722 000 401"  # a row needs a phone or an email; this one is unchanged
    report = run(tenant, csv_text([{**row, "Suprafață ha": "50"}]))

    assert (report.updated, report.created) == (1, 0)
    lead.refresh_from_db()
    assert lead.name == "Nume Nou SRL"
    assert (lead.county, lead.locality, lead.contact_name) == ("Iași", "Pașcani", "Maria Ionescu")
    assert (lead.phone, lead.phone_reachable) == (e164(401), True)
    assert (lead.email, lead.email_status) == ("maria@agro.ro", "valid")
    assert lead.custom_fields == {"cod_caen": "0111", "suprafata_ha": "50"}
    assert lead.source == "manual"


def test_dry_run_writes_nothing_and_reports_the_same(tenant):
    make_lead(tenant, cui=make_cui(1_000_001), phone=e164(1))
    text = csv_text([good(1), good(2), good(2), good(3, phone="bad")])
    before = (snapshot(tenant), Journey.objects.count())

    dry = run(tenant, text, dry_run=True)

    assert (snapshot(tenant), Journey.objects.count()) == before
    assert (dry.created, dry.updated, dry.unchanged, len(dry.rejected)) == (1, 1, 0, 2)
    assert dry.dry_run is True
    real = run(tenant, text)
    assert dataclasses.replace(dry, dry_run=False) == real
    assert Lead.objects.count() == 2


def test_another_tenants_identical_lead_is_not_matched_or_touched(tenant, other_tenant):
    make_lead(
        other_tenant,
        name="Agro 1 SRL",
        cui=make_cui(1_000_001),
        phone=e164(1),
        email="office@agro1.ro",
    )
    before = snapshot(other_tenant)
    report = run(tenant, csv_text([good(1, **{"company name": "Agro 1 Redenumit SRL"})]))

    assert (report.created, report.updated, report.unchanged) == (1, 0, 0)
    assert snapshot(other_tenant) == before
    lead = Lead.objects.get(tenant=tenant)
    assert lead.journey.tenant == tenant


def test_crash_while_writing_rolls_everything_back(tenant, monkeypatch):
    make_lead(tenant, cui=make_cui(1_000_001), phone=e164(1))
    before = (snapshot(tenant), Journey.objects.count())

    def boom(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("database went away")

    monkeypatch.setattr(writing, "_update", boom)  # runs after the new leads are inserted
    with pytest.raises(RuntimeError):
        run(tenant, csv_text([good(1, county="Vaslui"), good(2)]))

    assert (snapshot(tenant), Journey.objects.count()) == before


# --- files --------------------------------------------------------------------------------


def test_semicolon_file_with_bom_and_romanian_headers(tenant):
    text = (
        "denumire;cui;judet;localitate;telefon;email\r\n"
        f"Agro Câmpia Română SRL;RO {make_cui(1_854_729)};Ilfov;Otopeni;0722 123 456;"
        "Office@Campia.ro\r\n"
    )
    report = import_csv(tenant, io.BytesIO(("\ufeff" + text).encode("utf-8")))

    assert (report.created, report.rejected) == (1, [])
    lead = Lead.objects.get()
    assert (lead.name, lead.cui, lead.county, lead.locality) == (
        "Agro Câmpia Română SRL",
        "18547290",
        "Ilfov",
        "Otopeni",
    )
    assert (lead.phone, lead.email, lead.custom_fields) == ("+40722123456", "office@campia.ro", {})


def test_excel_export_fixture_with_diacritic_headers(tenant):
    with (FIXTURES / "romanian_excel.csv").open("rb") as fileobj:
        report = import_csv(tenant, fileobj)

    assert report.summary() == "created 4, updated 0, unchanged 0, rejected 1"
    assert shown(report.rejected) == [(5, "invalid phone '0722 12': not a valid number")]
    assert all(ro_cui.is_valid(cui) for cui in Lead.objects.values_list("cui", flat=True))
    lead = Lead.objects.get(cui="18547290")
    assert (lead.county, lead.email, lead.custom_fields) == (
        "Ilfov",
        "office@campiaromana.ro",
        {"cod_caen": "0111"},
    )
    assert Lead.objects.filter(name="Viticola Dealu Mare; Ceptura SRL").exists()


def test_tab_separated_file(tenant):
    text = "Company\tPhone Number\tE-mail\nFerma Tab SRL\t0745 000 222\tferma@tab.ro\n"
    assert run(tenant, text).created == 1
    assert Lead.objects.get().phone == "+40745000222"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        pytest.param(b"", "the file is empty", id="empty"),
        pytest.param(b"\r\n  \n", "the file is empty", id="blank-lines"),
        pytest.param(b",,\nA,B,C\n", "line 1: no header", id="no-header"),
        pytest.param(
            b"cui,phone\n18547290,0722123456\n",
            "missing the company name column .*columns found: cui, phone",
            id="no-name-column",
        ),
        pytest.param(
            b"name,phone,Telefon\n", "columns 'phone' and 'Telefon' both mean 'phone'", id="dup"
        ),
        pytest.param(
            b"name,phone\nA,0722123456\nFerm\xe9 SRL,0722000002\n",
            r"line 3: not valid UTF-8 \(byte 0xe9",
            id="undecodable",
        ),
    ],
)
def test_whole_file_problems_raise_import_file_error(tenant, content, message):
    with pytest.raises(ImportFileError, match=message):
        import_csv(tenant, io.BytesIO(content))
    assert Lead.objects.count() == 0


def test_import_rows_without_a_name_column_is_a_file_error(tenant):
    with pytest.raises(ImportFileError, match="missing the company name column"):
        import_rows(tenant, [{"phone": "0722123456"}])


def test_header_normalisation():
    assert normalise_header(" Județ ") == "judet"
    assert normalise_header("JUDEŢ") == "judet"  # cedilla variant
    assert normalise_header("Persoană  contact") == "persoana_contact"
    assert normalise_header("E-mail") == "e_mail"
    assert normalise_header("Oraș / Înființare") == "oras_/_infiintare"


# --- scale --------------------------------------------------------------------------------


def _rows(count: int, start: int) -> list[dict[str, str]]:
    return [good(n) for n in range(start, start + count)]


def _queries(tenant: Tenant, rows: list[dict[str, str]]) -> int:
    with CaptureQueriesContext(connection) as queries:
        report = import_rows(tenant, rows)
    assert report.rejected == []
    return len(queries)


def test_query_count_does_not_grow_with_the_number_of_rows(tenant, other_tenant):
    # SQLite caps a bulk INSERT at 999 parameters, so 100 rows take a few more batches there.
    slack = 0 if connection.vendor == "postgresql" else 4
    small, big = _rows(10, 1), _rows(100, 1000)

    created_small, created_big = _queries(tenant, small), _queries(other_tenant, big)
    assert created_small <= created_big <= created_small + slack

    changed = [{**row, "county": "Vaslui"} for row in small]
    changed_big = [{**row, "county": "Vaslui"} for row in big]
    assert _queries(tenant, changed) == _queries(other_tenant, changed_big)
    assert Lead.objects.filter(county="Vaslui").count() == 110


def test_progress_reports_every_500_rows_and_at_the_end(tenant):
    calls: list[int] = []
    report = import_rows(tenant, _rows(1100, 1), progress=calls.append)

    assert calls == [500, 1000, 1100]
    assert report.created == 1100


# --- the command --------------------------------------------------------------------------


def _command(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("import_leads", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_command_prints_rejected_lines_and_summary(tenant):
    with translation.override("ro"):  # the command speaks English whatever is active
        out, err = _command(str(FIXTURES / "romanian_excel.csv"), "--tenant", tenant.slug)

    assert out == "created 4, updated 0, unchanged 0, rejected 1\n"
    assert err == "line 5: invalid phone '0722 12': not a valid number\n"
    assert Lead.objects.filter(tenant=tenant).count() == 4


def test_command_dry_run_writes_nothing(tenant):
    out, _ = _command(str(FIXTURES / "romanian_excel.csv"), "--tenant", tenant.slug, "--dry-run")

    assert out == "DRY RUN — nothing written. created 4, updated 0, unchanged 0, rejected 1\n"
    assert Lead.objects.count() == 0


def test_command_unknown_tenant_fails(tenant):
    with pytest.raises(CommandError, match="unknown tenant 'nope'"):
        _command(str(FIXTURES / "romanian_excel.csv"), "--tenant", "nope")


def test_command_missing_file_fails(tenant, tmp_path):
    with pytest.raises(CommandError, match="cannot read .*missing.csv: No such file"):
        _command(str(tmp_path / "missing.csv"), "--tenant", tenant.slug)


def test_command_bad_file_fails(tenant, tmp_path):
    path = tmp_path / "no_name.csv"
    path.write_text("cui;telefon\n18547290;0722123456\n", encoding="utf-8")
    with pytest.raises(CommandError, match="missing the company name column"):
        _command(str(path), "--tenant", tenant.slug)
