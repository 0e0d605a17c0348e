"""Recording a lawful basis in a real browser: under a workspace policy that requires one for
email, the lead page says the first email waits; an operator records the consent with its
evidence and date, and the page shows it with who recorded it. No Content-Security-Policy
complaint. Screenshots land in var/screenshots/."""

from __future__ import annotations

import pytest

from cerniq.models import Tenant
from outreach.models import ContactBasis
from tests.browser.test_csp_ui import Violations
from tests.browser.test_operator_ui import SHOTS, browser_page, log_in  # noqa: F401 (a fixture)
from tests.factories import make_lead, make_tenant, make_user


@pytest.mark.django_db(transaction=True)
def test_an_operator_records_consent_and_the_held_first_email_can_go(
    live_server,
    browser_page,  # noqa: F811 (the fixture)
):
    tenant = make_tenant(name="Agro Browser SRL")
    Tenant.objects.filter(pk=tenant.pk).update(basis_policy={"email": {"RO": "require"}})
    make_user(tenant, username="ion", first_name="Ion", last_name="Pop")
    lead = make_lead(tenant, name="Ferma Dunării SRL", email="office@fermadunarii.ro")
    page = browser_page
    seen = Violations(page)
    base = live_server.url
    log_in(page, base, "ion")
    page.goto(f"{base}/outreach/leads/{lead.pk}/")
    block = page.locator("#lawful-basis")
    email = block.locator("[data-basis='email']")
    assert "None recorded" in email.inner_text()
    assert email.locator("[data-basis-held]").is_visible()
    seen.check("the lead")

    form = block.locator("#record-basis")
    form.get_by_text("Record a basis…").click()
    form.get_by_label("Channel").select_option("email")
    form.get_by_label("Basis").select_option("consent")
    form.get_by_label("Evidence").fill("Signed the newsletter form at Agraria 2026, stand 12")
    form.get_by_label("Given on (optional)").fill("2026-11-20")
    page.screenshot(path=str(SHOTS / "lawful_basis_form.png"), full_page=True)
    form.get_by_role("button", name="Record the basis").click()
    page.wait_for_selector("[data-basis='email'][data-basis-value='consent']")

    email = page.locator("#lawful-basis [data-basis='email']")
    text = email.inner_text()
    assert "Consent" in text and "Signed the newsletter form" in text and "ion" in text
    assert email.locator("[data-basis-held]").count() == 0
    whatsapp = page.locator("#lawful-basis [data-basis='whatsapp']")
    assert "None recorded" in whatsapp.inner_text()  # only the channel chosen
    assert ContactBasis.objects.get(lead=lead).recorded_by.username == "ion"
    page.locator("#lawful-basis").screenshot(path=str(SHOTS / "lawful_basis_recorded.png"))
    seen.check("after recording")
