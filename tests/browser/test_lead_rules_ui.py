"""Lead rules in a real browser: an admin opens an automation rule, types a form id without
the Lead Ads source (refused on its field, nothing saved), previews the rule on the recent
leads, saves it, moves it to the top and sees the list say that the first match wins; a
Lead Ads lead then shows on its page what the rule did. No Content-Security-Policy
complaint. Screenshots land in var/screenshots/."""

from __future__ import annotations

import pytest

from outreach.lead_entry import create_lead
from outreach.models import LeadRule
from tests.browser.test_csp_ui import Violations
from tests.browser.test_operator_ui import SHOTS, browser_page, log_in  # noqa: F401 (a fixture)
from tests.factories import make_lead, make_phone, make_sequence, make_tenant, make_user


@pytest.mark.django_db(transaction=True)
def test_an_admin_edits_an_automation_rule(
    live_server,
    browser_page,  # noqa: F811 (the fixture)
):
    tenant = make_tenant(name="Agro Browser SRL")
    make_user(tenant, username="ion", role="ADMIN")
    make_user(tenant, username="ana", first_name="Ana", last_name="Pop")
    sequence = make_sequence(tenant, name="Formular Lead Ads")
    make_phone(tenant, label="Vânzări Iași")
    LeadRule.objects.create(tenant=tenant, name="Importuri Vaslui", position=1, county="Vaslui")
    rule = LeadRule.objects.create(tenant=tenant, name="Formular", position=2)
    for name, county in (("Ferma Prutului SRL", "Iași"), ("Agro Bârlad SRL", "Vaslui")):
        make_lead(tenant, name=name, county=county, source="lead_ads")
    page = browser_page
    seen = Violations(page)
    base = live_server.url
    log_in(page, base, "ion")

    page.goto(f"{base}/outreach/settings/lead-rules/")
    page.get_by_role("link", name="Formular").click()
    form = page.locator("[data-lead-rule-form]")
    form.get_by_label("Came in through").select_option("api")
    form.get_by_label("Lead Ads form id").fill("1234567890")
    form.get_by_label("Enroll in the sequence").select_option(label="Formular Lead Ads")
    form.get_by_label("Give to the colleague").select_option(label="Ana Pop")
    form.get_by_role("button", name="Save").click()
    error = page.locator("[data-error='form_id']")
    assert "only comes with leads from Meta Lead Ads" in error.inner_text()
    assert LeadRule.objects.get(pk=rule.pk).sequence is None  # nothing saved
    page.screenshot(path=str(SHOTS / "lead_rules_error.png"), full_page=True)
    seen.check("the refused save")

    form = page.locator("[data-lead-rule-form]")
    form.get_by_label("Came in through").select_option("lead_ads")
    assert form.get_by_label("Lead Ads form id").input_value() == "1234567890"  # kept
    form.get_by_label("Lead Ads form id").fill("")
    form.get_by_label("Assign the WhatsApp number").select_option(label="Vânzări Iași")
    form.get_by_label("Add the tags").fill("formular, iasi")
    form.get_by_role("button", name="Preview on recent leads").click()
    preview = page.locator("[data-preview-rows]")
    preview.wait_for()
    assert "takes it" in preview.locator("tr", has_text="Ferma Prutului SRL").inner_text()
    earlier = preview.locator("tr", has_text="Agro Bârlad SRL").inner_text()
    assert "Importuri Vaslui takes it first" in earlier
    page.screenshot(path=str(SHOTS / "lead_rules_preview.png"), full_page=True)

    page.get_by_role("button", name="Save").click()
    page.wait_for_url(f"{base}/outreach/settings/lead-rules/")
    rule.refresh_from_db()
    assert (rule.source, rule.sequence, rule.operator.username) == ("lead_ads", sequence, "ana")
    assert rule.add_tags == ["formular", "iasi"] and rule.phone.label == "Vânzări Iași"

    page.get_by_role("button", name="Move Formular up").click()
    page.wait_for_load_state("networkidle")
    rows = page.locator("[data-lead-rules] tbody tr")
    assert "Formular" in rows.nth(0).inner_text()
    assert "enroll in Formular Lead Ads" in rows.nth(0).inner_text()
    assert page.locator("[data-first-match]").is_visible()
    page.screenshot(path=str(SHOTS / "lead_rules_list.png"), full_page=True)
    seen.check("the list")

    # A Lead Ads lead that asked to be called: the rule's firing on its page.
    lead = create_lead(
        tenant,
        {"name": "Ferma Siretului SRL", "county": "Iași", "phone": "0722 555 101"},
        source="lead_ads",
        form_id="1234567890",
        requested_contact=True,
    )
    page.goto(f"{base}/outreach/leads/{lead.pk}/")
    firing = page.locator("#lead-rules")
    text = firing.inner_text()
    assert "Formular" in text and "enrolled in the sequence Formular Lead Ads" in text
    assert "given to Ana Pop" in text and "the person asked to be contacted" in text
    firing.screenshot(path=str(SHOTS / "lead_rules_firing.png"))
    seen.check("the lead page")
