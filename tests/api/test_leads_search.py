"""The API's leads list searches as the leads page does (`?search=`): Romanian spellings,
contacts, a CUI or a phone however written; and a lead changed through the API is found by
its new data, not its old."""

from __future__ import annotations

import pytest

from tests.factories import make_lead

LEADS = "/api/v1/leads/"

pytestmark = pytest.mark.django_db


def _ids(response) -> list[int]:
    assert response.status_code == 200, response.content
    return [row["id"] for row in response.json()["results"]]


@pytest.fixture
def stirbei(tenant):
    return make_lead(
        tenant,
        name="Agroindustriala Știrbei SRL",
        cui="22732040",
        contact_name="Ion Țurcanu",
        phone="+40722345678",
        email="office@agrostirbei.ro",
    )


@pytest.mark.parametrize(
    "search",
    [
        "Agroindustriala Stirbei",
        "Ştirbei",
        "AGROINDUSTRIALĂ ŞTIRBEI",
        "Ion Turcanu",
        "ţurcanu",
        "RO22732040",
        "ro 22732040",
        "0722 345 678",
        "+40 722 345 678",
        "0040722345678",
        "0722.345.678",
    ],
)
def test_search_finds_the_company_however_it_is_written(api, tenant, other_tenant, stirbei, search):
    make_lead(tenant, name="Ferma Sud SRL", cui="227320409", phone="+40722345670")
    make_lead(other_tenant, name="Agroindustriala Stirbei", cui="22732040", phone="+40722345678")
    assert _ids(api.get(LEADS, {"search": search})) == [stirbei.pk]


def test_a_lead_renamed_through_the_api_is_found_by_its_new_name_only(api, tenant, stirbei):
    response = api.patch(
        f"{LEADS}{stirbei.pk}/",
        {"name": "Cereale Bărăgan SRL", "contact_name": "Maria Popa", "phone": "0744 111 222"},
        format="json",
    )
    assert response.status_code == 200, response.content
    assert _ids(api.get(LEADS, {"search": "Cereale Baragan"})) == [stirbei.pk]
    assert _ids(api.get(LEADS, {"search": "maria"})) == [stirbei.pk]
    assert _ids(api.get(LEADS, {"search": "0744 111 222"})) == [stirbei.pk]
    for old in ("Agroindustriala", "Turcanu", "0722 345 678"):
        assert _ids(api.get(LEADS, {"search": old})) == []


def test_a_lead_created_through_the_api_is_found_by_its_contact(api, tenant):
    response = api.post(
        LEADS,
        {"name": "Livada Nouă SRL", "contact_name": "Ştefan Ţăranu", "email": "a@livada.ro"},
        format="json",
    )
    assert response.status_code == 201, response.content
    assert _ids(api.get(LEADS, {"search": "stefan taranu"})) == [response.json()["id"]]
