"""Recording an opt-out on the lead page in a real browser, then seeing enrollment refused
with the reason (issue 19 §4). Screenshots land in var/screenshots/."""

from __future__ import annotations

import pytest

from outreach.models import Enrollment, Journey, OptOutRecord
from tests.browser.test_operator_ui import SHOTS, browser_page, log_in  # noqa: F401
from tests.factories import make_lead, make_sequence, make_tenant, make_user

REASON = "Called on 24.11 and asked not to be contacted again"


@pytest.mark.django_db(transaction=True)
def test_operator_records_an_opt_out_and_enrolling_is_then_refused(live_server, browser_page):  # noqa: F811
    tenant = make_tenant(name="Agro Browser SRL")
    user = make_user(tenant, username="dana")
    lead = make_lead(tenant, name="Ferma Deal SRL", email="office@ferma-deal.ro")
    sequence = make_sequence(tenant, name="Prima atingere")
    page = browser_page
    log_in(page, live_server.url, "dana")
    page.goto(f"{live_server.url}/outreach/leads/{lead.pk}/")

    page.get_by_text("Record an opt-out…").click()
    form = page.locator("#record-opt-out")
    assert form.get_by_text("Every channel stops, not only the one where they asked").is_visible()
    page.screenshot(path=str(SHOTS / "lead_record_opt_out.png"), full_page=True)

    # Too short a reason: the browser asks first, the page answers in the form.
    form.get_by_label("Another way (a phone call, in person)").check()
    form.get_by_label("Why").fill("he called")
    page.once("dialog", lambda dialog: dialog.accept())
    form.get_by_role("button", name="Record the opt-out").click()
    page.wait_for_load_state()
    error = page.locator('[data-errors="reason"]')
    assert "Say why the lead is opted out" in error.inner_text()
    assert page.locator("#record-opt-out").get_by_label("Why").input_value() == "he called"
    page.screenshot(path=str(SHOTS / "lead_record_opt_out_error.png"), full_page=True)
    assert not OptOutRecord.objects.exists()

    # Dismissing the confirmation sends nothing.
    form = page.locator("#record-opt-out")
    form.get_by_label("Why").fill(REASON)
    asked: list[str] = []
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    form.get_by_role("button", name="Record the opt-out").click()
    assert asked and "every channel" in asked[0]
    assert not OptOutRecord.objects.exists()

    page.once("dialog", lambda dialog: dialog.accept())
    form.get_by_role("button", name="Record the opt-out").click()
    page.wait_for_load_state()
    assert page.get_by_text("Ferma Deal SRL is opted out of every channel").is_visible()
    record = page.locator("[data-opt-out-record]")
    assert REASON in record.inner_text() and "dana" in record.inner_text()
    journey = Journey.objects.get(lead=lead)
    assert journey.whatsapp_opted_out and journey.email_opted_out
    assert OptOutRecord.objects.get().by_user == user

    page.get_by_label("Sequence", exact=True).select_option(label=sequence.name)
    page.get_by_role("button", name="Enroll", exact=True).click()
    page.wait_for_load_state()
    refusal = page.get_by_text("Cannot enroll Ferma Deal SRL")
    assert refusal.is_visible() and "opted out" in refusal.inner_text()
    assert not Enrollment.objects.exists()
    page.screenshot(path=str(SHOTS / "lead_opted_out_enroll_refused.png"), full_page=True)

    # The leads list offers the same, for the selected leads.
    other = make_lead(tenant, name="Livada Sud SRL")
    page.goto(f"{live_server.url}/outreach/leads/")
    page.locator(f'input[name=ids][value="{other.pk}"]').check()
    page.get_by_text("Record opt-out…").click()
    page.get_by_label("Where did the leads ask?").select_option("whatsapp")
    page.get_by_label("Why", exact=True).fill("Asked on WhatsApp to stop, 24.11")
    page.screenshot(path=str(SHOTS / "leads_bulk_opt_out.png"), full_page=True)
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Record opt-out", exact=True).click()
    page.wait_for_load_state()
    assert page.get_by_text("Opt-out recorded for 1 lead(s); 0 had already opted out.").is_visible()
    assert Journey.objects.get(lead=other).whatsapp_opted_out
