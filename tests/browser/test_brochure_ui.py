"""Templates drafted from a brochure, in a real browser: from the templates list an operator
uploads a scanned PDF (refused on its field, nothing kept), then a price list; the job's
page waits for a worker, follows it and shows the four drafts marked as automatic; the
operator opens the first WhatsApp message's template, edits the draft and approves it.
No Content-Security-Policy complaint on the way.

Screenshots land in var/screenshots/ (copies looked at are kept in docs/screenshots/)."""

from __future__ import annotations

import pytest

from outreach.models import Brochure, TemplateVersion
from tests.browser.test_csp_ui import Violations
from tests.browser.test_operator_ui import SHOTS, browser_page, log_in  # noqa: F401 (a fixture)
from tests.drain import running_workers
from tests.factories import make_tenant, make_user
from tests.outreach.brochures.pdfs import brochure_pdf, scanned_pdf


@pytest.fixture
def offline_drafts(settings, tmp_path):
    """No AI model (the default deployment's): the drafts are the offline rules'."""
    settings.MEDIA_ROOT = str(tmp_path / "media")
    settings.PROVIDERS = {
        **settings.PROVIDERS,
        "ai.triage": {"BACKEND": "hitl.triage.OfflineTriage", "OPTIONS": {}},
    }


@pytest.mark.django_db(transaction=True)
def test_an_operator_uploads_a_price_list_sees_the_drafts_and_approves_one(
    live_server,
    browser_page,  # noqa: F811 (the fixture)
    offline_drafts,
    tmp_path,
):
    tenant = make_tenant(name="Agrofert SRL")
    make_user(tenant, username="ana", first_name="Ana", last_name="Pop")
    scan, catalog = tmp_path / "scan.pdf", tmp_path / "catalog-toamna-2026.pdf"
    scan.write_bytes(scanned_pdf())
    catalog.write_bytes(brochure_pdf())
    page = browser_page
    seen = Violations(page)
    base = live_server.url
    log_in(page, base, "ana")

    page.goto(f"{base}/outreach/templates/")
    page.locator("[data-brochures-link]").click()
    page.wait_for_url("**/outreach/templates/brochures/")
    seen.check("the upload page")

    # A scan is refused on its field; nothing is kept.
    page.get_by_label("Brochure or price list (PDF)").set_input_files(str(scan))
    page.get_by_role("button", name="Upload and draft").click()
    page.locator("[data-errors='file']").wait_for()
    refused = page.locator("[data-errors='file']").inner_text()
    assert "scan.pdf: The PDF has no text to read" in refused
    assert not Brochure.objects.exists()
    page.screenshot(path=str(SHOTS / "brochure_upload_error.png"), full_page=True)

    page.get_by_label("Brochure or price list (PDF)").set_input_files(str(catalog))
    page.get_by_role("button", name="Upload and draft").click()
    page.wait_for_url("**/outreach/templates/brochures/*/")
    assert page.locator("[data-brochure-status='queued']").is_visible()
    assert page.get_by_text("Waiting for a worker…").is_visible()
    page.screenshot(path=str(SHOTS / "brochure_waiting.png"), full_page=True)

    with running_workers():  # the page polls; a worker reads the PDF and drafts
        page.locator("[data-brochure-status='done']").wait_for(timeout=30_000)
    assert page.locator("[data-draft]").count() == 4
    note = page.locator("[data-automatic-draft]")
    assert "Automatic draft" in note.inner_text()
    assert "no AI model is configured" in note.inner_text()
    assert (
        page.locator("[data-draft-state]").all_inner_texts()
        == ["draft, not sent until approved"] * 4
    )
    page.locator("[data-brochure-read] summary").click()
    assert page.locator("[data-product]").count() == 3
    seen.check("the drafts")
    page.evaluate("window.scrollTo(0, 0)")  # the sticky top bar stays on top in the shot
    page.screenshot(path=str(SHOTS / "brochure_drafts.png"), full_page=True)

    # The person reads the first WhatsApp message's draft, edits it and approves it.
    first = page.locator("[data-channel='WHATSAPP']").first
    first.get_by_role("link", name="Read, edit and approve").click()
    page.wait_for_url("**/outreach/templates/*/")
    assert page.locator("[data-draft-note]").is_visible()
    body = page.locator("textarea[name='versions-0-body']")
    body.fill(body.input_value().replace("Dacă nu doriți", "Dacă nu mai doriți"))
    page.screenshot(path=str(SHOTS / "brochure_template_draft.png"), full_page=True)
    page.get_by_role("button", name="Save and approve v1").click()
    page.get_by_text("v1 approved: it is an ordinary version now").wait_for()
    assert page.locator("[data-draft-note]").count() == 0
    seen.check("after approving")
    page.screenshot(path=str(SHOTS / "brochure_approved.png"), full_page=True)

    # (The drafts' names are in the workspace's language, whatever the reader's.)
    approved = TemplateVersion.objects.get(brochure__isnull=False, draft=False)
    assert approved.template.channel == "WHATSAPP" and approved.is_active
    assert "Dacă nu mai doriți mesaje de la noi" in approved.body
    assert TemplateVersion.objects.filter(draft=True, is_active=False).count() == 3
