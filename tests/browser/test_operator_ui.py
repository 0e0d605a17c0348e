"""The operator pages in a real browser (Debian's chromium driven by Playwright).

Screenshots of each page land in var/screenshots/ for a person to look at.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from hitl import review
from hitl.models import ReviewItem
from outreach.models import Message
from tests.factories import make_lead, make_message, make_phone, make_tenant, make_user

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
SHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"

if not os.path.exists(CHROMIUM) and not os.environ.get("CI"):
    pytest.skip("chromium is not installed (CI installs it)", allow_module_level=True)


@pytest.fixture
def browser_page(monkeypatch):
    from playwright.sync_api import sync_playwright

    # Playwright's sync API runs an event loop in this thread; the ORM calls of the test
    # itself are still synchronous.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        page = browser.new_page(viewport={"width": 1366, "height": 768}, locale="en-US")
        yield page
        browser.close()


@pytest.mark.django_db(transaction=True)
def test_operator_logs_in_sees_the_quota_grid_approves_a_draft_and_switches_language(
    live_server, browser_page
):
    tenant = make_tenant(name="Agro Browser SRL")
    user = make_user(tenant, username="ana")
    phones = [make_phone(tenant, label=f"Telefon {n}") for n in range(1, 4)]
    lead = make_lead(tenant, name="Ferma Verde SRL", contact_name="Ion Pop")
    inbound = make_message(
        lead,
        direction="IN",
        status="RECEIVED",
        idempotency_key=None,
        body="Da, sunt interesat. Putem vorbi mâine?",
    )
    review.open_item(
        lead,
        reason="sentiment 80, intent meeting_request: needs approval",
        priority="MEDIUM",
        message=inbound,
        kind=ReviewItem.Kind.APPROVAL,
        sentiment=80,
        intent="meeting_request",
        draft="Bună ziua, Ion Pop! Sigur, vă sun mâine la 10.",
    )
    page = browser_page

    page.goto(f"{live_server.url}/outreach/dashboard/")
    assert "/login/" in page.url  # anonymous users are sent to log in
    page.fill("input[name=username]", "ana")
    page.fill("input[name=password]", "pw-for-tests-1")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url("**/outreach/dashboard/")
    for phone in phones:
        assert page.get_by_text(phone.number).first.is_visible()
    page.screenshot(path=str(SHOTS / "dashboard.png"), full_page=True)

    page.goto(f"{live_server.url}/outreach/phones/")
    page.screenshot(path=str(SHOTS / "phones.png"), full_page=True)

    page.goto(f"{live_server.url}/outreach/review/")
    assert page.get_by_text("Da, sunt interesat. Putem vorbi mâine?").is_visible()
    page.screenshot(path=str(SHOTS / "review.png"), full_page=True)
    page.get_by_role("button", name="Approve draft").click()
    page.wait_for_load_state()
    sent = Message.objects.get(lead=lead, direction="OUT")
    assert sent.body == "Bună ziua, Ion Pop! Sigur, vă sun mâine la 10."
    assert sent.status == "QUEUED" and sent.is_manual and sent.sent_by == user
    assert ReviewItem.objects.get().status == "RESOLVED"

    page.get_by_role("button", name="Română").click()
    page.wait_for_load_state()
    assert page.get_by_role("link", name="Telefoane").is_visible()
    page.screenshot(path=str(SHOTS / "review_ro.png"), full_page=True)
