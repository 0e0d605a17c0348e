"""outreach.companies, the one writer of the firm's fields: finding and making companies,
contacts with their copies, a change copied to every contact (search text too), an erased
person left alone, the checks of typed input (outreach.company_entry)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from outreach import companies, company_entry
from outreach.companies import CompanyRefused
from outreach.company_models import Company
from outreach.lead_filters import filter_leads
from outreach.models import Lead
from tests.factories import make_company, make_lead

pytestmark = pytest.mark.django_db
CUI = "18547290"


def _finds(tenant, text: str) -> set[int]:
    return set(
        filter_leads(Lead.objects.filter(tenant=tenant), {"q": text}).values_list("pk", flat=True)
    )


def test_find_or_create_finds_by_cui_and_makes_one_per_call_without(tenant, other_tenant):
    made, new = companies.find_or_create(tenant, {"name": "Agro SRL", "cui": CUI})
    found, again = companies.find_or_create(tenant, {"name": "Alt Nume", "cui": CUI})
    theirs, _ = companies.find_or_create(other_tenant, {"name": "Agro SRL", "cui": CUI})
    one, _ = companies.find_or_create(tenant, {"name": "Fără CUI SRL"})
    two, _ = companies.find_or_create(tenant, {"name": "Fără CUI SRL"})

    assert (new, again, found.pk, found.name) == (True, False, made.pk, "Agro SRL")
    assert theirs.pk != made.pk and one.pk != two.pk


def test_a_company_needs_a_name(tenant):
    with pytest.raises(CompanyRefused) as refused:
        companies.find_or_create(tenant, {"cui": CUI})
    assert list(refused.value.fields) == ["name"]


def test_a_contact_copies_the_firm_and_keeps_the_persons_own_fields(tenant):
    firm = make_company(tenant, name="Ştirbei SRL", cui=CUI, county="Olt", locality="Slatina")
    lead = companies.contact(
        firm, contact_name="Ana", phone="+40722000001", custom_fields={"a": "1"}
    )
    lead.save()

    assert (lead.name, lead.cui, lead.county, lead.locality) == (
        "Ştirbei SRL",
        CUI,
        "Olt",
        "Slatina",
    )
    assert lead.custom_fields == {"a": "1"} and firm.custom_fields == {}
    assert _finds(tenant, "stirbei ana") == {lead.pk}
    with pytest.raises(ValueError, match="company's fields"):
        companies.contact(firm, name="Alt Nume")


def test_a_change_is_copied_to_every_contact_in_one_update(tenant):
    firm = make_company(tenant, name="Vechi SRL", county="Iași")
    contacts = [make_lead(tenant, company=firm) for _ in range(3)]
    other = make_lead(tenant, name="Vechi SRL")

    with CaptureQueriesContext(connection) as queries:
        companies.update_company(firm, {"name": "Ţarina Nouă SRL", "county": "Vaslui"})

    copies = [q["sql"] for q in queries if q["sql"].startswith('UPDATE "outreach_lead" SET "name"')]
    assert len(copies) == 1
    for lead in contacts:
        lead.refresh_from_db()
        assert (lead.name, lead.county) == ("Ţarina Nouă SRL", "Vaslui")
    other.refresh_from_db()
    assert other.name == "Vechi SRL"
    assert _finds(tenant, "tarina noua") == {lead.pk for lead in contacts}


def test_update_refuses_a_cui_another_company_has_and_an_empty_name(tenant):
    make_company(tenant, cui=CUI)
    firm = make_company(tenant)
    with pytest.raises(CompanyRefused, match="cui"):
        companies.update_company(firm, {"cui": CUI})
    with pytest.raises(CompanyRefused, match="name"):
        companies.update_company(firm, {"name": ""})


def test_an_erased_person_keeps_blank_copies(tenant):
    firm = make_company(tenant, name="Agro SRL")
    kept = make_lead(tenant, company=firm)
    erased = make_lead(tenant, company=firm)
    Lead.objects.filter(pk=erased.pk).update(name="[erased]", erased_at=erased.created_at)

    companies.update_company(firm, {"name": "Agro Nou SRL"})

    kept.refresh_from_db()
    erased.refresh_from_db()
    assert (kept.name, erased.name) == ("Agro Nou SRL", "[erased]")


def test_attach_moves_a_lead_with_its_copies_within_its_tenant(tenant, other_tenant):
    lead = make_lead(tenant, name="Vechi SRL")
    target = make_company(tenant, name="Nou SRL", cui=CUI)

    companies.attach(lead, target)

    lead.refresh_from_db()
    assert (lead.company_id, lead.name, lead.cui) == (target.pk, "Nou SRL", CUI)
    with pytest.raises(ValueError):
        companies.attach(lead, make_company(other_tenant))


def test_update_companies_writes_many_in_bulk_and_copies_each_its_own(tenant):
    firms = [make_company(tenant, name=f"F{n} SRL") for n in range(3)]
    leads = [make_lead(tenant, company=firm) for firm in firms]

    companies.update_companies(
        tenant, {firm.pk: {"locality": f"L{n}"} for n, firm in enumerate(firms)}
    )

    assert [Lead.objects.get(pk=lead.pk).locality for lead in leads] == ["L0", "L1", "L2"]


def test_the_erasure_blanks_a_company_nobody_else_works_at(tenant):
    alone = make_lead(tenant, name="Ana Pop PFA")
    shared = make_company(tenant, name="Agro SRL")
    make_lead(tenant, company=shared)
    gone = make_lead(tenant, company=shared)
    Lead.objects.filter(pk__in=[alone.pk, gone.pk]).update(erased_at=alone.created_at)

    companies.scrub_erased(Company.objects.filter(pk__in=[alone.company_id, shared.pk]), "[x]")

    assert Company.objects.get(pk=alone.company_id).name == "[x]"
    assert Company.objects.get(pk=shared.pk).name == "Agro SRL"


# --- typed input (outreach.company_entry) --------------------------------------------------


def test_typed_fields_are_cleaned_by_the_imports_rules(tenant):
    firm = company_entry.create_company(tenant, {"name": " Agro SRL ", "cui": "RO 18547290"})
    assert (firm.name, firm.cui) == ("Agro SRL", CUI)
    with pytest.raises(CompanyRefused) as refused:
        company_entry.create_company(tenant, {"name": "", "cui": "1234567", "custom_fields": 3})
    assert set(refused.value.fields) == {"name", "cui", "custom_fields"}


def test_a_typed_change_clears_merges_and_refuses_a_taken_cui(tenant):
    make_company(tenant, name="Deținător SRL", cui=CUI)
    firm = make_company(tenant, name="Agro SRL", locality="Dej", custom_fields={"a": "1"})
    lead = make_lead(tenant, company=firm)

    company_entry.change_company(firm, {"locality": "", "custom_fields": {"b": "2"}})

    lead.refresh_from_db()
    assert (firm.locality, lead.locality, firm.custom_fields) == ("", "", {"a": "1", "b": "2"})
    with pytest.raises(CompanyRefused, match="Deținător SRL"):
        company_entry.change_company(firm, {"cui": CUI})
