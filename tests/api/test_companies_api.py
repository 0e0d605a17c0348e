"""/api/v1/companies/ and the company on the lead endpoints: tenant-scoped, a 400 naming
the field, a change copied to every contact, a second contact added by naming the company,
the lead's old fields and ids unchanged beside the new `company` and `company_name`."""

from __future__ import annotations

import pytest

from outreach.company_models import Company
from outreach.models import Lead
from tests.factories import make_company, make_lead

COMPANIES = "/api/v1/companies/"
LEADS = "/api/v1/leads/"
VALID_CUI = "18547290"
OTHER_CUI = "22732040"


def test_list_and_retrieve_are_the_tenants_with_their_contact_counts(api, tenant, other_tenant):
    firm = make_company(tenant, name="Agro Doi SRL", cui=VALID_CUI)
    make_lead(tenant, company=firm)
    make_lead(tenant, company=firm)
    make_company(other_tenant, name="Străin SRL")

    listed = api.get(COMPANIES).json()["results"]
    assert [(row["name"], row["contact_count"]) for row in listed] == [("Agro Doi SRL", 2)]
    one = api.get(f"{COMPANIES}{firm.pk}/").json()
    assert (one["cui"], one["county"], one["contact_count"]) == (VALID_CUI, "Iași", 2)


@pytest.mark.parametrize("method", ["get", "patch"])
def test_another_tenants_company_is_404(api, other_tenant, method):
    theirs = make_company(other_tenant)
    response = getattr(api, method)(f"{COMPANIES}{theirs.pk}/", {"name": "X"}, format="json")
    assert response.status_code == 404
    assert Company.objects.get(pk=theirs.pk).name == theirs.name


def test_create_cleans_like_the_import_and_refuses_a_taken_cui_naming_the_field(api, tenant):
    made = api.post(COMPANIES, {"name": "Nou SRL", "cui": f"RO{VALID_CUI}"}, format="json")
    assert made.status_code == 201, made.json()
    assert (made.json()["cui"], made.json()["contact_count"]) == (VALID_CUI, 0)

    again = api.post(COMPANIES, {"name": "Copie SRL", "cui": VALID_CUI}, format="json")
    bad = api.post(COMPANIES, {"name": "", "cui": "1234567"}, format="json")

    assert again.status_code == 400
    assert "Nou SRL" in again.json()["error"]["fields"]["cui"][0]
    assert bad.status_code == 400 and set(bad.json()["error"]["fields"]) == {"name", "cui"}
    assert Company.objects.filter(tenant=tenant).count() == 1


def test_patch_copies_the_firms_fields_to_every_contact(api, tenant):
    firm = make_company(tenant, name="Vechi SRL")
    ana, ion = make_lead(tenant, company=firm), make_lead(tenant, company=firm)
    response = api.patch(
        f"{COMPANIES}{firm.pk}/",
        {"name": "Nou SRL", "county": "Cluj", "custom_fields": {"ha": "300"}},
        format="json",
    )
    assert response.status_code == 200
    assert (response.json()["name"], response.json()["custom_fields"]) == ("Nou SRL", {"ha": "300"})
    for lead in (ana, ion):
        lead.refresh_from_db()
        assert (lead.name, lead.county) == ("Nou SRL", "Cluj")
        assert "nou srl" in lead.search_text
    finds = api.get(LEADS, {"search": "nou srl"}).json()["results"]
    assert {row["id"] for row in finds} == {ana.pk, ion.pk}


def test_a_read_key_cannot_write(read_api, tenant):
    assert read_api.post(COMPANIES, {"name": "X SRL"}, format="json").status_code == 403


# --- the company on the lead endpoints ----------------------------------------------------


def test_a_lead_shows_its_company_beside_its_old_fields(api, tenant):
    lead = make_lead(tenant, name="Agro SRL", cui=VALID_CUI, county="Cluj", locality="Dej")
    body = api.get(f"{LEADS}{lead.pk}/").json()
    assert (body["company"], body["company_name"]) == (lead.company_id, "Agro SRL")
    assert (body["id"], body["name"], body["cui"], body["county"], body["locality"]) == (
        lead.pk,
        "Agro SRL",
        VALID_CUI,
        "Cluj",
        "Dej",
    )
    listed = api.get(LEADS, {"company": lead.company_id}).json()["results"]
    assert [row["company"] for row in listed] == [lead.company_id]


def test_a_lead_created_naming_a_company_is_its_second_contact(api, tenant):
    first = make_lead(tenant, name="Agro SRL", cui=VALID_CUI, phone="+40722000001")
    response = api.post(
        LEADS,
        {"company": first.company_id, "contact_name": "Ion", "phone": "0722 000 002"},
        format="json",
    )
    assert response.status_code == 201, response.json()
    body = response.json()
    assert (body["company"], body["name"], body["cui"]) == (first.company_id, "Agro SRL", VALID_CUI)
    assert Lead.objects.filter(company=first.company).count() == 2

    same_person = api.post(
        LEADS, {"company": first.company_id, "phone": "0722000001"}, format="json"
    )
    assert same_person.status_code == 409
    assert same_person.json()["error"]["lead_id"] == first.pk


def test_old_fields_find_a_company_by_cui_or_make_one(api, tenant):
    empty = make_company(tenant, name="Fără Contacte SRL", cui=OTHER_CUI)
    joined = api.post(LEADS, {"name": "Oricum", "cui": OTHER_CUI, "phone": "0722000003"})
    made = api.post(LEADS, {"name": "Nouă SRL", "cui": VALID_CUI, "phone": "0722000004"})

    assert joined.status_code == made.status_code == 201
    assert (joined.json()["company"], joined.json()["name"]) == (empty.pk, "Fără Contacte SRL")
    assert Company.objects.get(pk=made.json()["company"]).name == "Nouă SRL"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"company": 999999, "phone": "0722000005"}, "company"),
        ({"company": "x", "phone": "0722000005"}, "company"),
        ({"company": "{own}", "name": "Alt Nume SRL", "phone": "0722000005"}, "name"),
    ],
)
def test_a_bad_company_on_a_lead_is_400_naming_the_field(api, tenant, body, field):
    own = make_lead(tenant)
    body = {k: own.company_id if v == "{own}" else v for k, v in body.items()}
    response = api.post(LEADS, body, format="json")
    assert response.status_code == 400
    assert field in response.json()["error"]["fields"]
    assert Lead.objects.count() == 1


def test_another_tenants_company_cannot_be_named_on_a_lead(api, tenant, other_tenant):
    theirs = make_company(other_tenant)
    response = api.post(LEADS, {"company": theirs.pk, "phone": "0722000006"}, format="json")
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["company"]


def test_patching_a_leads_firm_field_changes_its_company_for_every_contact(api, tenant):
    firm = make_company(tenant, name="Agro SRL")
    ana, ion = make_lead(tenant, company=firm), make_lead(tenant, company=firm)
    response = api.patch(f"{LEADS}{ana.pk}/", {"locality": "Turda"}, format="json")
    assert response.status_code == 200
    ion.refresh_from_db()
    firm.refresh_from_db()
    assert (firm.locality, ion.locality) == ("Turda", "Turda")


def test_patch_moves_a_lead_to_another_company(api, tenant):
    lead = make_lead(tenant, name="Vechi SRL")
    target = make_company(tenant, name="Nou SRL", cui=VALID_CUI)
    response = api.patch(f"{LEADS}{lead.pk}/", {"company": target.pk}, format="json")
    assert response.status_code == 200
    assert (response.json()["company"], response.json()["name"]) == (target.pk, "Nou SRL")
    assert response.json()["cui"] == VALID_CUI


def test_a_colleagues_cui_is_no_duplicate_when_patching_the_phone(api, tenant):
    """Two contacts share their company's CUI: a PATCH of one's phone is no 409."""
    firm = make_company(tenant, cui=VALID_CUI)
    ana = make_lead(tenant, company=firm)
    make_lead(tenant, company=firm)
    response = api.patch(f"{LEADS}{ana.pk}/", {"phone": "0722 111 999"}, format="json")
    assert response.status_code == 200, response.json()
