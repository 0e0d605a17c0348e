"""A company with two contacts in a real browser: its page shows both people, each a link
to its lead page, and the lead page leads back to the company. Screenshots land in
var/screenshots/."""

from __future__ import annotations

import pytest

from tests.browser.test_operator_ui import SHOTS, browser_page, log_in  # noqa: F401
from tests.factories import make_company, make_lead, make_tenant, make_user


@pytest.mark.django_db(transaction=True)
def test_a_company_page_shows_both_contacts_each_linking_to_its_lead(live_server, browser_page):  # noqa: F811
    tenant = make_tenant(name="Agro Browser SRL")
    make_user(tenant, username="elena")
    firm = make_company(tenant, name="Agroindustriala Știrbei SRL", cui="22732040")
    ana = make_lead(tenant, company=firm, contact_name="Ana Pop", phone="+40722000001")
    ion = make_lead(tenant, company=firm, contact_name="Ion Țurcanu", phone="+40722000002")
    page = browser_page
    log_in(page, live_server.url, "elena")

    page.goto(f"{live_server.url}/outreach/leads/{ana.pk}/")
    company_link = page.locator("[data-company-link]")
    assert "2 contacts" in company_link.inner_text()
    company_link.get_by_role("link", name="Agroindustriala Știrbei SRL").click()
    page.wait_for_url(f"**/outreach/companies/{firm.pk}/")

    contacts = page.locator("[data-table=contacts] tr[data-contact]")
    assert contacts.count() == 2
    for lead in (ana, ion):
        link = page.get_by_role("link", name=lead.contact_name)
        assert link.get_attribute("href") == f"/outreach/leads/{lead.pk}/"
    page.screenshot(path=str(SHOTS / "company_two_contacts.png"), full_page=True)

    page.get_by_role("link", name="Ion Țurcanu").click()
    page.wait_for_url(f"**/outreach/leads/{ion.pk}/")
    assert page.locator("h1").inner_text() == "Agroindustriala Știrbei SRL"
