"""The operator pages in a real browser (Debian's chromium driven by Playwright).

Screenshots of each page land in var/screenshots/ for a person to look at.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from django.db import connections

from hitl import review
from hitl.models import ReviewItem
from outreach import stages
from outreach.models import Journey, Lead, Message, Stage
from tests.drain import running_workers
from tests.factories import (
    make_lead,
    make_message,
    make_phone,
    make_template,
    make_tenant,
    make_user,
)

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
        # While Playwright's event loop runs in this thread, Django keeps the test's database
        # connections apart from the thread's usual ones (asgiref's Local turns context-local):
        # close them here, or they outlive the test database (PostgreSQL refuses to drop it,
        # SQLite leaves its -wal/-shm files behind).
        connections.close_all()
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
    # htmx answers in place (no page load): wait for the outcome the queue announces.
    page.locator("#review-status").get_by_text("is queued").wait_for()
    sent = Message.objects.get(lead=lead, direction="OUT")
    assert sent.body == "Bună ziua, Ion Pop! Sigur, vă sun mâine la 10."
    assert sent.status == "QUEUED" and sent.is_manual and sent.sent_by == user
    assert ReviewItem.objects.get().status == "RESOLVED"

    page.get_by_role("button", name="Română").click()
    page.wait_for_load_state()
    assert page.get_by_role("link", name="Telefoane").is_visible()
    page.screenshot(path=str(SHOTS / "review_ro.png"), full_page=True)


def log_in(page, base_url: str, username: str) -> None:
    page.goto(f"{base_url}/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", "pw-for-tests-1")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url("**/outreach/dashboard/")


@pytest.mark.django_db(transaction=True)
def test_operator_filters_leads_takes_one_over_sends_and_edits_a_template(
    live_server, browser_page
):
    tenant = make_tenant(name="Agro Browser SRL")
    user = make_user(tenant, username="mihai")
    phone = make_phone(tenant, label="Telefon 1")
    warm = make_lead(tenant, name="Ferma Verde SRL", contact_name="Ion Pop", county="Iași")
    cold = make_lead(tenant, name="Agro Sud SRL", county="Dolj")
    stages.transition(warm.journey, Stage.WARM_REPLY, reason="replied", by_system="tests")
    Journey.objects.filter(lead=warm).update(assigned_phone=phone)
    make_message(
        warm,
        direction="IN",
        status="RECEIVED",
        idempotency_key=None,
        body="Bună ziua, cât costă analiza de sol?",
    )
    template = make_template(tenant, name="Prima atingere")
    page = browser_page
    log_in(page, live_server.url, "mihai")

    # Filter the leads by stage: only the lead that replied stays.
    page.goto(f"{live_server.url}/outreach/leads/")
    assert page.get_by_role("link", name="Agro Sud SRL").is_visible()
    page.screenshot(path=str(SHOTS / "leads.png"), full_page=True)
    page.get_by_label("Stage", exact=True).select_option(Stage.WARM_REPLY)
    page.get_by_role("button", name="Filter").click()
    page.wait_for_url("**stage=WARM_REPLY**")
    assert page.get_by_role("link", name="Ferma Verde SRL").is_visible()
    assert page.get_by_role("link", name="Agro Sud SRL").count() == 0
    page.screenshot(path=str(SHOTS / "leads_filtered.png"), full_page=True)

    # Open it, take the conversation over and write to the farmer by hand.
    page.get_by_role("link", name="Ferma Verde SRL").click()
    page.wait_for_url(f"**/outreach/leads/{warm.pk}/")
    assert page.get_by_text("cât costă analiza de sol?").is_visible()
    page.get_by_role("button", name="Take over").click()
    page.wait_for_load_state()
    assert page.get_by_role("button", name="Hand back").is_visible()
    assert Journey.objects.get(lead=warm).taken_over_by == user
    page.get_by_label("Message", exact=True).fill("Analiza costă 350 lei. Vă sun mâine?")
    page.get_by_role("button", name="Send", exact=True).click()
    page.wait_for_load_state()
    manual = Message.objects.get(lead=warm, direction="OUT")
    assert (manual.body, manual.status, manual.is_manual, manual.sent_by) == (
        "Analiza costă 350 lei. Vă sun mâine?",
        "QUEUED",
        True,
        user,
    )
    assert page.get_by_text("Analiza costă 350 lei. Vă sun mâine?").first.is_visible()
    assert not Message.objects.filter(lead=cold).exists()
    page.screenshot(path=str(SHOTS / "lead_detail.png"), full_page=True)

    # Edit the template: the preview follows the text as it is typed.
    page.goto(f"{live_server.url}/outreach/templates/")
    page.screenshot(path=str(SHOTS / "templates.png"), full_page=True)
    page.get_by_role("link", name="Prima atingere").click()
    body = page.locator("textarea[name$='-body']").first
    preview = page.locator(".preview-box").first
    body.fill("{Salut|Bună ziua} {{company_name}}!")
    preview.locator(".preview[data-total='2']").wait_for()
    assert preview.get_by_text("Salut Agro Test SRL!").is_visible()
    body.fill("{Salut|Bună ziua|Hei} {{company_name}}, {ce faceți|cum merge recolta}?")
    preview.locator(".preview[data-total='6']").wait_for()
    assert preview.get_by_text("6 variants in total").is_visible()
    assert preview.get_by_text("Salut Agro Test SRL, ce faceți?").is_visible()
    page.screenshot(path=str(SHOTS / "template_variants.png"), full_page=True)
    body.fill("{Salut|Bună ziua {{company_name}}")
    preview.locator("[data-problems]").wait_for()
    page.screenshot(path=str(SHOTS / "template_preview.png"), full_page=True)
    assert template.versions.get().body == "{Bună ziua|Salut} {{company_name}}!"  # not saved


@pytest.mark.django_db(transaction=True)
def test_csv_import_shows_progress_then_the_report(live_server, browser_page, tmp_path):
    tenant = make_tenant()
    make_user(tenant, username="ioana")
    csv_file = tmp_path / "leads.csv"
    csv_file.write_text("name,cui,phone\nAlfa Agro SRL,,0722000001\nBeta Agro SRL,,nu-e-telefon\n")
    page = browser_page
    log_in(page, live_server.url, "ioana")
    page.goto(f"{live_server.url}/outreach/leads/")
    page.get_by_text("Import leads from CSV").click()
    page.get_by_label("CSV file").set_input_files(str(csv_file))
    page.get_by_role("button", name="Import", exact=True).click()
    page.wait_for_url("**/outreach/leads/import/*/")
    assert page.locator("[data-import-status='queued']").is_visible()
    page.screenshot(path=str(SHOTS / "import_waiting.png"), full_page=True)
    with running_workers():  # the page polls; a worker now picks the job up
        page.locator("[data-import-status='done']").wait_for(timeout=30_000)
    assert page.get_by_text("created 1, updated 0, unchanged 0, rejected 1").is_visible()
    assert page.locator("[data-rejected-line='3']").is_visible()
    assert list(Lead.objects.filter(tenant=tenant).values_list("name", flat=True)) == [
        "Alfa Agro SRL"
    ]
    page.screenshot(path=str(SHOTS / "import_done.png"), full_page=True)


TABLET = {"width": 820, "height": 1180}


@pytest.mark.django_db(transaction=True)
def test_pages_fit_a_tablet_without_sideways_scrolling(live_server, browser_page):
    tenant = make_tenant(name="Agro Tabletă SRL")
    make_user(tenant, username="radu")
    for n in range(1, 5):
        make_phone(tenant, label=f"Telefon {n}")
    lead = make_lead(tenant, name="Cooperativa Agricolă Câmpia Română", contact_name="Elena Ene")
    make_message(lead, body="Bună ziua! Vă scriu despre analiza de sol pentru ferma dvs.")
    make_template(tenant, name="Prima atingere")
    page = browser_page
    page.set_viewport_size(TABLET)
    log_in(page, live_server.url, "radu")
    for name, path in [
        ("dashboard", "/outreach/dashboard/"),
        ("leads", "/outreach/leads/"),
        ("lead_detail", f"/outreach/leads/{lead.pk}/"),
        ("phones", "/outreach/phones/"),
        ("review", "/outreach/review/"),
        ("sequences", "/outreach/sequences/"),
        ("templates", "/outreach/templates/"),
    ]:
        page.goto(f"{live_server.url}{path}")
        page.screenshot(path=str(SHOTS / f"tablet_{name}.png"), full_page=True)
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"{path} is {overflow}px wider than a tablet screen"


@pytest.mark.django_db(transaction=True)
def test_analytics_draws_its_charts_from_the_rolled_up_stats(live_server, browser_page):
    from datetime import timedelta

    from django.utils import timezone

    from outreach.analytics import local_today, rollup_range

    tenant = make_tenant(name="Agro Analytics SRL")
    make_user(tenant, username="dana")
    phone = make_phone(tenant, label="Telefon 1")
    now = timezone.now()
    for days_ago in range(6):
        lead = make_lead(tenant)
        sent_at = now - timedelta(days=days_ago, hours=1)
        make_message(lead, phone=phone, status="SENT", quota_cost=1, sent_at=sent_at)
        if days_ago % 2 == 0:
            reply = make_message(
                lead, direction="IN", status="RECEIVED", idempotency_key=None, body="Da"
            )
            Message.objects.filter(pk=reply.pk).update(
                created_at=sent_at + timedelta(minutes=30),
                analysis={"triage": {"sentiment": 80, "intent": "interested"}},
            )
    today = local_today(tenant, now)
    rollup_range(tenant, today - timedelta(days=6), today)
    page = browser_page
    log_in(page, live_server.url, "dana")
    page.goto(f"{live_server.url}/outreach/analytics/")
    whatsapp = page.locator("[data-table=channels] [data-channel=WHATSAPP]")
    assert whatsapp.locator("[data-sent]").inner_text() == "6"
    assert whatsapp.locator("[data-replies]").inner_text() == "3"
    assert whatsapp.locator("[data-positive]").inner_text() == "3"
    for chart in ("chart-replies", "chart-positive", "chart-sent"):
        page.wait_for_function(f"() => !!Chart.getChart('{chart}')")
    page.screenshot(path=str(SHOTS / "analytics.png"), full_page=True)
    page.set_viewport_size(TABLET)
    page.reload()
    page.screenshot(path=str(SHOTS / "tablet_analytics.png"), full_page=True)
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"analytics is {overflow}px wider than a tablet screen"


@pytest.mark.django_db(transaction=True)
def test_operator_writes_an_email_from_the_lead_page(live_server, browser_page):
    tenant = make_tenant(name="Agro Browser SRL")
    user = make_user(tenant, username="irina")
    lead = make_lead(
        tenant,
        name="Livada Nord SRL",
        contact_name="Maria Ene",
        email="maria@livada-nord.ro",
        email_status=Lead.EmailStatus.VALID,
    )
    page = browser_page
    log_in(page, live_server.url, "irina")
    page.goto(f"{live_server.url}/outreach/leads/{lead.pk}/")
    page.get_by_label("Email", exact=True).check()
    page.get_by_label("Subject (email)").fill("Oferta pentru pomi fructiferi")
    page.get_by_label("Message", exact=True).fill("Bună ziua,\nvă trimit oferta cerută.")
    page.get_by_role("button", name="Send", exact=True).click()
    page.wait_for_load_state()
    assert page.get_by_text("Email queued.").is_visible()
    email = Message.objects.get(lead=lead, direction="OUT")
    assert (email.channel, email.subject, email.counterpart, email.sent_by) == (
        "EMAIL_WARM",
        "Oferta pentru pomi fructiferi",
        "maria@livada-nord.ro",
        user,
    )
    # In the conversation, with its subject.
    conversation = page.locator("#conversation")
    assert conversation.get_by_text("Oferta pentru pomi fructiferi").is_visible()
    assert conversation.get_by_text("vă trimit oferta cerută.").is_visible()
    page.screenshot(path=str(SHOTS / "lead_email.png"), full_page=True)
