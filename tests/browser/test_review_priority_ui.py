"""Issue 19 §2 in a real browser: an interested reply is at the top of the review queue,
above a polite decline that arrived earlier; the decline waits, LOW, on its own tab; an admin
changes the review deadlines.

Screenshots land in var/screenshots/ (docs/screenshots/ keeps the copies looked at)."""

from __future__ import annotations

import pytest

from hitl.models import ReviewItem
from hitl.replies import process_reply
from outreach.models import Journey, Message, Stage
from tests.browser.test_operator_ui import SHOTS, TABLET, browser_page, log_in  # noqa: F401
from tests.drain import run_triage
from tests.factories import make_lead, make_message, make_tenant, make_user


def reply(lead, text: str) -> None:
    message = make_message(
        lead, direction=Message.Direction.INBOUND, status=Message.Status.RECEIVED, body=text
    )
    process_reply(lead, message)
    run_triage()  # the ai.triage workers


@pytest.mark.django_db(transaction=True)
def test_an_interested_reply_comes_before_an_earlier_decline(live_server, browser_page):  # noqa: F811
    tenant = make_tenant(name="Agro Browser SRL")
    make_user(tenant, username="elena")
    declining = make_lead(tenant, name="Ferma Refuz SRL")
    keen = make_lead(tenant, name="Ferma Interes SRL")
    Journey.objects.filter(lead__in=[declining, keen]).update(stage=Stage.CONTACTED_WA)
    reply(declining, "Mulțumim pentru ofertă, dar nu suntem interesați.")  # arrives first
    reply(keen, "Bună ziua, da, ne interesează. Când ne puteți suna?")
    page = browser_page
    log_in(page, live_server.url, "elena")

    page.goto(f"{live_server.url}/outreach/review/")
    first = page.locator(".review-item").first
    assert first.locator(".review-item__lead").inner_text() == "Ferma Interes SRL"
    reason = first.locator(".review-item__analysis dd").first.inner_text()
    assert "answer quickly" in reason, reason
    assert page.get_by_text("Ferma Refuz SRL").count() == 0  # not among the urgent ones
    tabs = page.locator(".tabs .tab")
    assert tabs.first.get_attribute("data-priority") == "URGENT"
    assert "tab--active" in tabs.first.get_attribute("class")
    page.screenshot(path=str(SHOTS / "review_priority.png"), full_page=True)

    page.locator("[data-priority=LOW]").click()
    page.wait_for_url("**tab=LOW")
    low = page.locator(".review-item").first
    assert low.locator(".review-item__lead").inner_text() == "Ferma Refuz SRL"
    assert low.get_by_text("Declines: confirm the lead is closed, or reopen it").is_visible()
    assert Journey.objects.get(lead=declining).stage == Stage.DEAD
    assert ReviewItem.objects.get(lead=declining).priority == "LOW"
    page.screenshot(path=str(SHOTS / "review_low_decline.png"), full_page=True)

    # The same queue in Romanian: the reasons read in the reader's language.
    page.goto(f"{live_server.url}/outreach/leads/{declining.pk}/")
    page.locator("form.lang button[value=ro]").click()
    page.wait_for_load_state()
    page.goto(f"{live_server.url}/outreach/review/?tab=LOW")
    assert page.get_by_text("Refuză: confirmă închiderea lead-ului sau redeschide-l").is_visible()
    page.goto(f"{live_server.url}/outreach/leads/{declining.pk}/")
    assert page.get_by_text("A refuzat pe WhatsApp").is_visible()
    page.screenshot(path=str(SHOTS / "lead_decline_ro.png"), full_page=True)


@pytest.mark.django_db(transaction=True)
def test_an_admin_changes_the_review_deadlines(live_server, browser_page):  # noqa: F811
    tenant = make_tenant(name="Agro Browser SRL")
    make_user(tenant, username="admin-ana", role="ADMIN")
    page = browser_page
    log_in(page, live_server.url, "admin-ana")
    page.locator("[data-settings-link]").click()  # the top bar's Settings: sending hours first
    page.wait_for_url("**/outreach/settings/sending/")
    page.locator("[data-settings-review]").click()  # then the settings tab
    page.wait_for_url("**/outreach/settings/review/")
    page.get_by_label("Urgent").fill("30")
    page.get_by_label("High").fill("20")
    page.get_by_role("button", name="Save").click()
    page.wait_for_load_state()
    assert page.locator("[data-error=HIGH]").is_visible()
    assert page.get_by_text("Nothing was saved").is_visible()
    page.screenshot(path=str(SHOTS / "review_deadlines_error.png"), full_page=True)
    page.get_by_label("High").fill("120")
    page.get_by_role("button", name="Save").click()
    page.wait_for_load_state()
    assert page.get_by_text("Review deadlines saved.").is_visible()
    row = page.locator("[data-deadlines] tr[data-priority=URGENT] [data-deadline-shown]")
    assert row.inner_text() == "30 min"
    page.screenshot(path=str(SHOTS / "review_deadlines.png"), full_page=True)
    page.set_viewport_size(TABLET)
    page.reload()
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the deadlines page is {overflow}px wider than a tablet screen"
    page.screenshot(path=str(SHOTS / "tablet_review_deadlines.png"), full_page=True)
