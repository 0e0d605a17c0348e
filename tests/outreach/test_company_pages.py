"""The company pages: a company's page (its fields, its contacts linking to their lead
pages, a form whose change every contact shows), "Add a contact", the lead form's choice of
an existing company, the lead page's link, the leads list's contact count; tenant
isolation, login and CSRF as the other pages. And the admin's companies."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from outreach.company_models import Company
from outreach.models import Journey, Lead, Stage
from tests.factories import make_company, make_lead

pytestmark = pytest.mark.django_db
CUI = "18547290"


def page(company: Company) -> str:
    return f"/outreach/companies/{company.pk}/"


@pytest.fixture
def logged_in(client, operator):
    client.force_login(operator)
    return client


@pytest.fixture
def firm(tenant) -> Company:
    firm = make_company(tenant, name="Agro Doi SRL", cui=CUI, county="Cluj", locality="Dej")
    make_lead(tenant, company=firm, contact_name="Ana Pop", phone="+40722000001")
    ion = make_lead(tenant, company=firm, contact_name="Ion Rusu", phone="+40722000002")
    Journey.objects.filter(lead=ion).update(stage=Stage.WARM_REPLY)
    return firm


def test_the_page_shows_the_firm_and_each_contact_linking_to_its_lead(logged_in, firm):
    html = logged_in.get(page(firm)).content.decode()

    assert "Agro Doi SRL" in html and CUI in html and "Dej" in html
    for lead in firm.contacts.all():
        assert f'href="/outreach/leads/{lead.pk}/"' in html
        assert lead.contact_name in html
    assert "Warm reply" in html and 'data-contact-count="2"' in html
    assert f'href="/outreach/leads/add/?company={firm.pk}"' in html


def test_a_change_on_the_page_is_every_contacts(logged_in, firm):
    response = logged_in.post(
        page(firm), {"name": "Agro Trei SRL", "cui": f"RO {CUI}", "county": "Alba"}
    )
    assert response.status_code == 302
    assert set(firm.contacts.values_list("name", "county", "locality")) == {
        ("Agro Trei SRL", "Alba", "")
    }


def test_a_bad_change_is_400_naming_the_field_and_saves_nothing(logged_in, tenant, firm):
    make_company(tenant, name="Deținător SRL", cui="22732040")
    response = logged_in.post(page(firm), {"name": "Agro SRL", "cui": "22732040"})
    assert response.status_code == 400
    assert "Deținător SRL" in response.content.decode()
    firm.refresh_from_db()
    assert (firm.name, firm.cui) == ("Agro Doi SRL", CUI)


def test_another_tenants_company_is_404(logged_in, other_tenant):
    theirs = make_company(other_tenant, name="Străin SRL")
    assert logged_in.get(page(theirs)).status_code == 404
    assert logged_in.post(page(theirs), {"name": "Al meu"}).status_code == 404
    assert logged_in.get(f"/outreach/leads/add/?company={theirs.pk}").status_code == 404
    assert Company.objects.get(pk=theirs.pk).name == "Străin SRL"


def test_login_and_csrf_are_required(client, operator, firm):
    response = client.get(page(firm))
    assert response.status_code == 302 and response["Location"].startswith("/login/")
    strict = Client(enforce_csrf_checks=True, HTTP_ACCEPT_LANGUAGE="en")
    strict.force_login(operator)
    assert strict.post(page(firm), {"name": "Fără token"}).status_code == 403
    firm.refresh_from_db()
    assert firm.name == "Agro Doi SRL"


def test_add_a_contact_makes_the_person_a_contact_of_the_company(logged_in, firm):
    form = logged_in.get(f"/outreach/leads/add/?company={firm.pk}").content.decode()
    assert "Add a contact" in form and 'name="name"' not in form

    response = logged_in.post(
        "/outreach/leads/add/",
        {"company": firm.pk, "contact_name": "Maria", "phone": "0722 000 003"},
    )

    assert response.status_code == 302
    maria = Lead.objects.get(contact_name="Maria")
    assert (maria.company_id, maria.name, maria.cui) == (firm.pk, "Agro Doi SRL", CUI)


def test_the_lead_form_takes_an_existing_company_by_cui_or_makes_one(logged_in, tenant, firm):
    joined = logged_in.post(
        "/outreach/leads/add/", {"existing_cui": f"RO{CUI}", "phone": "0722000004"}
    )
    made = logged_in.post(
        "/outreach/leads/add/", {"name": "Nouă SRL", "cui": "22732040", "phone": "0722000005"}
    )
    unknown = logged_in.post(
        "/outreach/leads/add/", {"existing_cui": "14399840", "phone": "0722000006"}
    )

    assert joined.status_code == made.status_code == 302
    assert Lead.objects.get(phone="+40722000004").company_id == firm.pk
    assert Lead.objects.get(phone="+40722000005").company.name == "Nouă SRL"
    assert unknown.status_code == 400
    assert "No company of yours has this CUI." in unknown.content.decode()


def test_the_lead_page_links_its_company_with_the_contact_count(logged_in, firm):
    lead = firm.contacts.first()
    html = logged_in.get(f"/outreach/leads/{lead.pk}/").content.decode()
    link = html.split("data-company-link>")[1].split("</dd>")[0]
    assert f'href="{page(firm)}"' in link and "Agro Doi SRL" in link and "2 contacts" in link


def test_the_leads_list_counts_a_companys_contacts_at_constant_queries(logged_in, tenant, firm):
    make_lead(tenant, name="Singur SRL")

    def listed() -> tuple[str, int]:
        with CaptureQueriesContext(connection) as queries:
            html = logged_in.get("/outreach/leads/").content.decode()
        return html, len(queries)

    html, few = listed()
    for _ in range(5):
        make_lead(tenant, company=firm)
    more_html, more = listed()

    assert html.count("data-company-contacts") == 2  # each of the firm's two rows
    assert f'href="{page(firm)}" data-company-contacts>2 contacts' in html
    assert more_html.count("7 contacts") == 7
    assert more == few


def test_the_leads_list_shows_one_companys_contacts(logged_in, tenant, firm):
    other = make_lead(tenant, name="Singur SRL")
    assert (
        f'href="/outreach/leads/?company={firm.pk}"' in logged_in.get(page(firm)).content.decode()
    )
    html = logged_in.get(f"/outreach/leads/?company={firm.pk}").content.decode()
    shown = {int(pk) for pk in re.findall(r'<tr data-lead="(\d+)"', html)}
    assert shown == set(firm.contacts.values_list("pk", flat=True))
    assert other.pk not in shown


# --- admin --------------------------------------------------------------------------------


@pytest.fixture
def admin_logged_in(superuser) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(superuser)
    return client


@pytest.mark.parametrize("term", ["agro doi", CUI])
def test_the_admin_finds_a_company_by_name_or_cui(admin_logged_in, tenant, firm, term):
    make_company(tenant, name="Alta SRL")
    response = admin_logged_in.get(reverse("admin:outreach_company_changelist"), {"q": term})
    assert [c.pk for c in response.context["cl"].result_list] == [firm.pk]


def test_the_admin_company_lists_its_contacts_and_copies_a_change(admin_logged_in, firm):
    url = reverse("admin:outreach_company_change", args=[firm.pk])
    html = admin_logged_in.get(url).content.decode()
    assert "Ana Pop" in html and "Ion Rusu" in html
    response = admin_logged_in.post(
        url,
        {
            "name": "Agro Admin SRL",
            "cui": CUI,
            "county": "Cluj",
            "locality": "Dej",
            "custom_fields": "{}",
            "contacts-TOTAL_FORMS": "2",
            "contacts-INITIAL_FORMS": "2",
            "contacts-MIN_NUM_FORMS": "0",
            "contacts-MAX_NUM_FORMS": "1000",
            **{
                f"contacts-{n}-id": str(lead.pk)
                for n, lead in enumerate(firm.contacts.order_by("pk"))
            },
            **{f"contacts-{n}-company": str(firm.pk) for n in range(2)},
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    assert set(firm.contacts.values_list("name", flat=True)) == {"Agro Admin SRL"}


def test_the_admin_lead_shows_its_company_and_takes_the_companys_fields(
    admin_logged_in, tenant, firm
):
    lead = firm.contacts.first()
    url = reverse("admin:outreach_lead_change", args=[lead.pk])
    html = admin_logged_in.get(url).content.decode()
    assert "Agro Doi SRL" in html and 'name="company"' in html and 'name="name"' not in html
    listed = admin_logged_in.get(reverse("admin:outreach_lead_changelist")).content.decode()
    assert "Agro Doi SRL" in listed
