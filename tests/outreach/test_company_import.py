"""The import with companies (outreach.importing.matching): a known CUI and another person
is a new contact of that company, the same person (phone, email or name within it) is
updated, a phone or email of another company's contact is imported and flagged with the
company's name, and the flags reach the import job."""

from __future__ import annotations

import pytest

from outreach.import_jobs import run_import, start_import
from outreach.importing import import_rows
from outreach.models import ImportJob, Journey, Lead
from tests.factories import make_company, make_lead

pytestmark = pytest.mark.django_db
CUI = "18547290"
OTHER_CUI = "22732040"


def flags(report) -> list[tuple[int, str]]:
    return [(flag.line, flag.text) for flag in report.flagged]


def test_another_person_of_a_known_cui_is_a_new_contact_of_its_company(tenant):
    ana = make_lead(
        tenant, name="Agro SRL", cui=CUI, contact_name="Ana Pop", phone="+40722000001", email=""
    )
    row = {
        "name": "Agro SRL",
        "cui": f"RO{CUI}",
        "contact_name": "Ion Rusu",
        "phone": "0722000002",
        "email": "ion@agro.ro",
    }
    report = import_rows(tenant, [row])

    assert (report.created, report.updated, report.rejected, report.flagged) == (1, 0, [], [])
    ion = Lead.objects.exclude(pk=ana.pk).get()
    assert (ion.company_id, ion.cui, ion.contact_name) == (ana.company_id, CUI, "Ion Rusu")
    assert Journey.objects.filter(lead=ion).exists()
    ana.refresh_from_db()
    assert (ana.contact_name, ana.phone) == ("Ana Pop", "+40722000001")


@pytest.mark.parametrize(
    "same",
    [
        {"phone": "0722 000 001", "email": "nou@agro.ro", "contact_name": "Altcineva"},
        {"phone": "0722000009", "email": "ana@agro.ro", "contact_name": ""},
        {"phone": "0722000009", "email": "", "contact_name": "ANA  Pop"},
    ],
    ids=["phone", "email", "contact-name"],
)
def test_the_same_person_of_the_company_is_updated(tenant, same):
    ana = make_lead(
        tenant, cui=CUI, contact_name="Ana Pop", phone="+40722000001", email="ana@agro.ro"
    )
    make_lead(tenant, cui=CUI, contact_name="Ion", phone="+40722000005", email="")  # colleague
    report = import_rows(tenant, [{"name": "Agro SRL", "cui": CUI, **same}])

    assert (report.created, report.updated) == (0, 1)
    assert Lead.objects.filter(company=ana.company).count() == 2
    ana.refresh_from_db()
    assert ana.name == "Agro SRL"  # the company's new name, on both contacts
    assert set(Lead.objects.values_list("name", flat=True)) == {"Agro SRL"}


def test_a_phone_or_email_of_another_companys_contact_is_flagged_and_imported(tenant):
    holder = make_lead(
        tenant, name="Contabil SRL", cui=OTHER_CUI, phone="+40722000001", email="x@contabil.ro"
    )
    agro = make_lead(tenant, name="Agro SRL", cui=CUI, phone="+40722000007", email="")
    rows = [
        # Agro's new contact, with the accountant's phone.
        {"name": "Agro SRL", "cui": CUI, "phone": "0722000001", "contact_name": "Ana"},
        # Agro's contact found by phone, given the accountant's address.
        {"name": "Agro SRL", "phone": "0722000007", "email": "X@contabil.ro"},
    ]
    report = import_rows(tenant, rows)

    assert (report.created, report.updated, report.rejected) == (1, 1, [])
    assert flags(report) == [
        (2, "imported; its phone is also a contact's of Contabil SRL"),
        (3, "imported; its email is also a contact's of Contabil SRL"),
    ]
    assert holder.company.contacts.count() == 1  # never merged into the holder's company
    assert agro.company.contacts.count() == 2
    assert Lead.objects.filter(phone="+40722000001").count() == 2
    agro.refresh_from_db()
    assert agro.email == "x@contabil.ro"


def test_rows_of_one_new_cui_share_one_new_company(tenant):
    rows = [
        {"name": "Ferma Nouă SRL", "cui": CUI, "contact_name": "Ana", "phone": "0722000001"},
        {"name": "Ferma Nouă SRL", "cui": CUI, "contact_name": "Ion", "phone": "0722000002"},
        {"name": "Fără CUI SRL", "phone": "0722000003"},
        {"name": "Fără CUI SRL", "phone": "0722000004"},
    ]
    report = import_rows(tenant, rows)

    assert (report.created, report.rejected) == (4, [])
    companies = Lead.objects.order_by("pk").values_list("company_id", flat=True)
    assert companies[0] == companies[1] and len(set(companies)) == 3


def test_the_same_person_twice_in_a_file_is_a_duplicate(tenant):
    rows = [
        {"name": "Agro SRL", "cui": CUI, "contact_name": "Ana", "phone": "0722000001"},
        {"name": "Agro SRL", "cui": CUI, "contact_name": "Ana", "phone": "0722000002"},
    ]
    report = import_rows(tenant, rows)
    assert [(e.line, e.text) for e in report.rejected] == [
        (3, "duplicate of line 2 (same contact name)")
    ]


def test_a_row_changes_its_companys_fields_for_every_contact(tenant):
    firm = make_company(tenant, name="Agro SRL", cui=CUI, county="Iași")
    ana = make_lead(tenant, company=firm, phone="+40722000001")
    ion = make_lead(tenant, company=firm, phone="+40722000002")
    report = import_rows(
        tenant, [{"name": "Agro SRL", "cui": CUI, "county": "Vaslui", "phone": ana.phone}]
    )

    assert (report.updated, report.unchanged) == (1, 0)
    assert {Lead.objects.get(pk=lead.pk).county for lead in (ana, ion)} == {"Vaslui"}
    assert (
        import_rows(tenant, [{"name": "Agro SRL", "cui": CUI, "phone": ion.phone}]).unchanged == 1
    )


def test_create_only_leaves_known_companies_and_contacts_alone(tenant):
    firm = make_company(tenant, name="Agro SRL", cui=CUI)
    ana = make_lead(tenant, company=firm, phone="+40722000001")
    rows = [
        {"name": "Redenumit SRL", "cui": CUI, "phone": ana.phone, "contact_name": "Ana"},
        {"name": "Redenumit SRL", "cui": CUI, "phone": "0722000002", "contact_name": "Ion"},
    ]
    report = import_rows(tenant, rows, create_only=True)

    assert (report.created, report.unchanged) == (1, 1)
    firm.refresh_from_db()
    assert firm.name == "Agro SRL"
    assert set(Lead.objects.values_list("name", flat=True)) == {"Agro SRL"}


def test_a_dry_run_flags_the_same_and_writes_nothing(tenant):
    make_lead(tenant, name="Contabil SRL", cui=OTHER_CUI, phone="+40722000001")
    rows = [{"name": "Agro SRL", "cui": CUI, "phone": "0722000001"}]
    dry = import_rows(tenant, rows, dry_run=True)
    assert (dry.created, len(dry.flagged), Lead.objects.count()) == (1, 1, 1)


def test_the_import_job_keeps_the_flagged_rows_and_its_page_lists_them(tenant, client, operator):
    make_lead(tenant, name="Contabil SRL", cui=OTHER_CUI, phone="+40722000001")
    content = f"name,cui,phone\nAgro SRL,{CUI},0722000001\n".encode()
    job = start_import(tenant, file_name="x.csv", content=content)

    run_import(job.pk)

    job = ImportJob.objects.get(pk=job.pk)
    assert (job.created, job.rejected) == (1, [])
    assert [flag["line"] for flag in job.flagged] == [2]
    assert job.flagged[0]["reason"].startswith("import.held_by_another_company")
    client.force_login(operator)
    html = client.get(f"/outreach/leads/import/{job.pk}/status/").content.decode()
    flagged = html.split('data-flagged-line="2">')[1].split("</tr>")[0]
    assert "its phone is also a contact&#x27;s of Contabil SRL" in flagged
