"""Erasing a person in a real browser: an admin opens the lead, finds "Erase this person…",
is stopped until the box is ticked, erases, and sees the audit row, the blanked record and
the receipt of our own queues; the do-not-contact list then shows the hashes. No
Content-Security-Policy complaint. Screenshots land in var/screenshots/."""

from __future__ import annotations

import pytest

from outreach.models import Lead, Suppression
from tests.browser.test_csp_ui import Violations
from tests.browser.test_operator_ui import SHOTS, browser_page, log_in  # noqa: F401 (a fixture)
from tests.factories import make_lead, make_tenant, make_user

REASON = "She emailed on 20.11 asking to delete all her data"


@pytest.mark.django_db(transaction=True)
def test_an_admin_erases_a_person_and_sees_the_audit_row(
    live_server,
    browser_page,  # noqa: F811 (the fixture)
    settings,
):
    settings.PROVIDERS = {
        **settings.PROVIDERS,
        "email.instantly": {"BACKEND": "integrations.sandbox.email.SandboxEmail"},
    }
    tenant = make_tenant(name="Agro Browser SRL")
    make_user(tenant, username="ana", role="ADMIN", first_name="Ana", last_name="Pop")
    lead = make_lead(
        tenant,
        name="Ferma Vlădescu PFA",
        contact_name="Maria Vlădescu",
        phone="+40722111333",
        email="maria@vladescu-example.ro",
    )
    page = browser_page
    seen = Violations(page)
    base = live_server.url
    log_in(page, base, "ana")
    page.goto(f"{base}/outreach/leads/{lead.pk}/")
    seen.check("the lead")

    form = page.locator("#erase-person")
    form.get_by_text("Erase this person…").click()
    form.get_by_label("Why").fill(REASON)
    button = form.get_by_role("button", name="Erase for good")
    button.click()
    # The browser asks for the box first: nothing is sent, nothing changes.
    assert page.url.endswith(f"/outreach/leads/{lead.pk}/")
    assert Lead.objects.get(pk=lead.pk).erased_at is None
    form.get_by_label("I understand an erasure cannot be undone.").check()
    page.screenshot(path=str(SHOTS / "erase_person_form.png"), full_page=True)
    button.click()
    page.wait_for_selector("[data-erased]")

    banner = page.locator("[data-erased]").inner_text()
    assert "This person was erased on request." in banner and REASON in banner
    assert "ana" in banner
    assert page.locator("h1").inner_text() == "[erased]"
    body = page.locator("main").inner_text()
    assert "Vlădescu" not in body and "+40722111333" not in body
    receipt = page.locator("#receipts tr[data-receipt='done']")
    assert "Our queues" in receipt.inner_text() and "Applied" in receipt.inner_text()
    assert page.locator("#erase-person").count() == 0
    page.screenshot(path=str(SHOTS / "erase_person_done.png"), full_page=True)
    seen.check("after the erasure")

    page.goto(f"{base}/outreach/settings/do-not-contact/?kind=erased")
    rows = page.locator("tr[data-kind='erased']")
    assert rows.count() == 2 == Suppression.objects.filter(source="erasure").count()
    assert "An erased person: never taken off." in rows.first.inner_text()
    seen.check("the list")
