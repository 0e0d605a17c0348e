"""The leads search in a real browser: a company found by its name typed without
diacritics, and by a contact and a phone written the way people write them, in English
and in Romanian. Screenshots land in var/screenshots/."""

from __future__ import annotations

import pytest

from tests.browser.test_operator_ui import SHOTS, browser_page, log_in  # noqa: F401
from tests.factories import make_lead, make_tenant, make_user


@pytest.mark.django_db(transaction=True)
def test_operator_finds_a_company_however_its_name_is_typed(live_server, browser_page):  # noqa: F811
    tenant = make_tenant(name="Agro Browser SRL")
    make_user(tenant, username="elena")
    make_lead(
        tenant,
        name="AGROINDUSTRIALĂ ȘTIRBEI SRL",
        contact_name="Ion Țurcanu",
        phone="+40722345678",
        cui="22732040",
    )
    make_lead(tenant, name="Ferma Sud SRL", contact_name="Maria Popa", phone="+40744123456")
    page = browser_page
    log_in(page, live_server.url, "elena")
    page.goto(f"{live_server.url}/outreach/leads/")

    search = page.get_by_role("searchbox", name="Search")
    assert search.get_attribute("placeholder") == "Company, contact, CUI, phone or email"
    search.fill("Agroindustriala Stirbei")
    search.press("Enter")
    page.wait_for_url("**/outreach/leads/?*")
    rows = page.locator("tr[data-lead]")
    assert rows.count() == 1
    assert "AGROINDUSTRIALĂ ȘTIRBEI SRL" in rows.first.inner_text()
    assert "Stirbei" not in page.url  # the search stays out of the address
    page.screenshot(path=str(SHOTS / "leads_search.png"), full_page=True)

    page.get_by_role("button", name="Română").click()
    page.wait_for_load_state()
    search = page.get_by_role("searchbox", name="Caută")
    assert search.get_attribute("placeholder") == "Firmă, contact, CUI, telefon sau email"
    for typed in ("ţurcanu", "0722 345 678", "RO 22732040"):
        search.fill(typed)
        search.press("Enter")
        page.wait_for_load_state()
        rows = page.locator("tr[data-lead]")
        assert rows.count() == 1, typed
        assert "ȘTIRBEI" in rows.first.inner_text()
        search = page.get_by_role("searchbox", name="Caută")
    page.screenshot(path=str(SHOTS / "leads_search_ro.png"), full_page=True)

    page.goto(f"{live_server.url}/outreach/leads/")
    search = page.get_by_role("searchbox", name="Caută")
    # The hint fits: typed into the box, it would not scroll.
    fits = search.evaluate(
        "box => { box.value = box.placeholder; const fits = box.scrollWidth <= box.clientWidth;"
        " box.value = ''; return fits; }"
    )
    assert fits, "the search box cuts its hint"
    page.screenshot(path=str(SHOTS / "leads_search_empty_ro.png"), full_page=True)
