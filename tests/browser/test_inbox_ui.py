"""The inbox in a real browser: the list and its views, a thread as a chat, j/k between
conversations, at a laptop's and a tablet's size, in English and Romanian. Screenshots land
in var/screenshots/inbox-*.png for a person to look at."""

from __future__ import annotations

import os
import shutil
from datetime import timedelta
from pathlib import Path

import pytest
from django.db import connections
from django.utils import timezone

from hitl import reply_intent
from hitl.models import Note, ReviewItem
from outreach.models import Channel, Journey, Message
from tests.factories import make_lead, make_message, make_phone, make_tenant, make_user

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
SHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
LAPTOP = {"width": 1366, "height": 768}
TABLET = {"width": 820, "height": 1180}


if not os.path.exists(CHROMIUM) and not os.environ.get("CI"):
    pytest.skip("chromium is not installed (CI installs it)", allow_module_level=True)


@pytest.fixture
def browser_page(monkeypatch):
    from playwright.sync_api import sync_playwright

    # Playwright's sync API runs an event loop in this thread; the test's ORM calls stay
    # synchronous.
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
        page = browser.new_page(viewport=LAPTOP, locale="en-US")
        yield page
        # Close the test's connections before the test database goes (see
        # tests/browser/test_operator_ui.py).
        connections.close_all()
        browser.close()


def log_in(page, base_url: str, username: str) -> None:
    page.goto(f"{base_url}/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", "pw-for-tests-1")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url("**/outreach/dashboard/")


def _world():
    tenant = make_tenant(name="Agro Inbox SRL")
    user = make_user(tenant, username="maria")
    phone = make_phone(tenant, label="Vânzări 1")
    now = timezone.now()
    leads = []
    for n, (name, contact, reply, intent) in enumerate(
        [
            ("Ferma Verde SRL", "Ion Pop", "Cât costă analiza pentru 120 ha?", "price_request"),
            (
                "Agroindustriala Știrbei",
                "Maria Ionescu",
                "Nu acum, reveniți în martie.",
                "not_interested",
            ),
            ("Cooperativa Câmpia Română", "Elena Ene", "", ""),
        ]
    ):
        lead = make_lead(tenant, name=name, contact_name=contact, email=f"office{n}@ferma.ro")
        Journey.objects.filter(lead=lead).update(
            assigned_phone=phone, last_contact_at=now - timedelta(hours=3 + n)
        )
        make_message(
            lead,
            phone=phone,
            status=Message.Status.READ,
            body=f"Bună ziua, {contact}! Vă scriu despre analiza de sol pentru {name}.",
        )
        if reply:
            answer = make_message(
                lead,
                phone=phone,
                direction=Message.Direction.INBOUND,
                status=Message.Status.RECEIVED,
                idempotency_key=None,
                body=reply,
                analysis={
                    "triage": {
                        "intent": intent,
                        "sentiment": 70 if n == 0 else -20,
                        "confidence": 0.88,
                    },
                    "decision": "",
                },
            )
            reply_intent.triaged(answer, intent)  # as the reply path keeps it
            Journey.objects.filter(lead=lead).update(last_reply_at=now - timedelta(minutes=10 + n))
        leads.append(lead)
    first = leads[0]
    # An open review item, with the journey's flag hitl.review keeps beside it.
    Journey.objects.filter(lead=first).update(requires_human_review=True, review_priority="HIGH")
    ReviewItem.objects.create(
        tenant=tenant,
        lead=first,
        reason="price asked",
        sla_due_at=now + timedelta(hours=4),
        status=ReviewItem.Status.ASSIGNED,
        assignee=user,
    )
    Note.objects.create(
        tenant=tenant, lead=first, author=user, body="Are 120 ha de grâu; sună-l mâine."
    )
    make_message(
        first,
        channel=Channel.EMAIL_WARM,
        status=Message.Status.FAILED,
        counterpart="office0@ferma.ro",
        subject="Oferta analiza de sol",
        body="Vă trimit oferta atașată.",
        error="mailbox full",
    )
    return tenant, leads


@pytest.mark.django_db(transaction=True)
def test_the_inbox_lists_filters_opens_and_moves_with_j_and_k(live_server, browser_page):
    _tenant, leads = _world()
    page = browser_page
    log_in(page, live_server.url, "maria")

    page.goto(f"{live_server.url}/outreach/inbox/")
    assert page.locator(".conv").count() == 3
    assert page.locator("[data-inbox-unread]").inner_text() == "2"
    page.screenshot(path=str(SHOTS / "inbox-list-en.png"))

    page.locator("[data-view=mine]").click()
    page.wait_for_url("**view=mine**")
    assert page.locator(".conv").count() == 1
    page.locator("[data-view=hot]").click()
    page.wait_for_url("**view=hot**")
    assert page.locator(".conv").count() == 1
    assert "Ferma Verde" in page.locator(".conv").inner_text()
    page.locator("[data-view=all]").click()
    page.wait_for_url("**/outreach/inbox/")

    # A conversation opens in the pane beside the list: the list is not loaded again.
    page.evaluate("document.getElementById('inbox-list').dataset.kept = 'yes'")
    refused = []  # what the page's CSP refused (an inline style carried by htmx's settling)
    page.on("console", lambda m: refused.append(m.text) if "Security Policy" in m.text else None)
    page.locator(".conv-link").first.click()
    page.locator(f".thread-head[data-lead='{leads[0].pk}']").wait_for()
    assert page.url.endswith(f"/outreach/inbox/{leads[0].pk}/")
    assert page.locator("#inbox-list[data-kept=yes]").count() == 1
    assert page.locator(f"[data-conversation='{leads[0].pk}'] [aria-current=true]").count() == 1
    assert "Ferma Verde" in page.title()
    assert page.get_by_text("Asks for a price").is_visible()
    assert page.get_by_text("mailbox full").is_visible()
    page.screenshot(path=str(SHOTS / "inbox-thread-en.png"))

    for key, lead in (("j", leads[1]), ("j", leads[2]), ("k", leads[1])):
        page.keyboard.press(key)
        page.locator(f".thread-head[data-lead='{lead.pk}']").wait_for()
        assert page.url.endswith(f"/outreach/inbox/{lead.pk}/")
    assert page.locator("#inbox-list[data-kept=yes]").count() == 1
    assert page.locator(".conv-link[aria-current=true]").count() == 1
    assert refused == []
    assert page.locator(f"[data-conversation='{leads[1].pk}'] [aria-current=true]").count() == 1
    # Typing is text, not shortcuts.
    page.keyboard.press("r")
    assert page.evaluate("document.activeElement.id") == "composer-text"
    page.keyboard.type("jjk")
    assert page.url.endswith(f"/outreach/inbox/{leads[1].pk}/")
    page.keyboard.press("Escape")
    page.keyboard.press("?")
    assert page.locator("#inbox-help").is_visible()
    page.screenshot(path=str(SHOTS / "inbox-help-en.png"))
    page.keyboard.press("Escape")

    page.get_by_role("button", name="Română").click()
    # The language switch comes back to the conversation open now.
    page.wait_for_url(f"**/outreach/inbox/{leads[1].pk}/")
    page.goto(f"{live_server.url}/outreach/inbox/{leads[0].pk}/")
    # Opened on a thread, the page shows it first and the list comes after it.
    page.locator("#inbox-list[data-stamp]").wait_for()
    assert page.locator(f"[data-conversation='{leads[0].pk}'] [aria-current=true]").count() == 1
    page.screenshot(path=str(SHOTS / "inbox-thread-ro.png"))
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0

    page.set_viewport_size(TABLET)
    page.goto(f"{live_server.url}/outreach/inbox/")
    page.screenshot(path=str(SHOTS / "inbox-list-tablet-ro.png"))
    assert page.locator(".inbox-main").is_hidden()
    page.locator(".conv-link").first.click()
    page.locator(f".thread-head[data-lead='{leads[0].pk}']").wait_for()
    assert page.locator(".inbox-side").is_hidden()
    assert page.locator(".thread-back").is_visible()
    page.screenshot(path=str(SHOTS / "inbox-thread-tablet-ro.png"))
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0

    page.get_by_role("button", name="English").click()
    page.wait_for_load_state()
    page.locator("#inbox-list[data-stamp]").wait_for(state="attached")
    page.screenshot(path=str(SHOTS / "inbox-thread-tablet-en.png"))
    page.set_viewport_size(LAPTOP)
    page.keyboard.press("e")  # close: on to the next conversation
    page.wait_for_url(f"**/outreach/inbox/{leads[1].pk}/")
    page.locator("#inbox-list[data-stamp]").wait_for(state="attached")
    assert page.locator(f"[data-conversation='{leads[1].pk}']").count() == 1
    assert page.locator(f"[data-conversation='{leads[0].pk}']").count() == 0


@pytest.mark.django_db(transaction=True)
def test_a_refresh_keeps_the_older_messages_and_the_place_being_read(live_server, browser_page):
    """An operator loads older messages and reads them; a reply arrives and the thread
    refreshes: the older messages stay, and the view stays where they were reading."""
    tenant = make_tenant(name="Agro Fir SRL")
    make_user(tenant, username="ana")
    lead = make_lead(tenant, name="Ferma Lungă", contact_name="Ion Pop")
    start = timezone.now() - timedelta(days=3)
    for n in range(80):
        message = make_message(
            lead,
            direction=Message.Direction.INBOUND if n % 2 else Message.Direction.OUTBOUND,
            status=Message.Status.RECEIVED if n % 2 else Message.Status.DELIVERED,
            idempotency_key=None if n % 2 else f"fir-{n}",
            body=f"mesajul {n}",
        )
        Message.objects.filter(pk=message.pk).update(created_at=start + timedelta(minutes=n))
    Journey.objects.filter(lead=lead).update(last_reply_at=start + timedelta(minutes=79))
    page = browser_page
    log_in(page, live_server.url, "ana")
    page.goto(f"{live_server.url}/outreach/inbox/{lead.pk}/")
    page.locator(".thread-earlier button").click()
    page.get_by_text("mesajul 5", exact=True).wait_for()
    assert page.locator("[data-message]").count() == 80
    page.get_by_text("mesajul 10", exact=True).scroll_into_view_if_needed()
    reading = page.evaluate("document.getElementById('inbox-thread').scrollTop")
    assert reading > 0

    make_message(
        lead,
        direction=Message.Direction.INBOUND,
        status=Message.Status.RECEIVED,
        idempotency_key=None,
        body="Răspuns nou",
    )
    with page.expect_response(lambda r: "/timeline/" in r.url and r.status == 200):
        page.evaluate("document.body.dispatchEvent(new Event('cerniq:sent'))")
    page.get_by_text("Răspuns nou", exact=True).wait_for(state="attached")
    assert page.locator("[data-message]").count() == 81  # the older ones stayed
    after = page.evaluate("document.getElementById('inbox-thread').scrollTop")
    assert abs(after - reading) < 5, (reading, after)  # still where they were reading
