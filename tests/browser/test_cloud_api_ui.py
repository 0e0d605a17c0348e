"""The WhatsApp Cloud API in a real browser: an admin adds a Cloud API number (refused
without its phone number ID, then added), then maps a template version to its approved
template on Settings → WhatsApp Cloud API."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from integrations.meta.models import ApprovedTemplate
from tests.browser.test_operator_ui import SHOTS, browser_page, log_in  # noqa: F401
from tests.factories import make_template, make_tenant, make_user
from whatsapp.models import Phone

DOCS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


@pytest.mark.django_db(transaction=True)
def test_an_admin_adds_a_cloud_api_number_and_maps_its_template(live_server, browser_page):  # noqa: F811
    tenant = make_tenant(name="Agro Browser SRL")
    make_user(tenant, username="ana", role="ADMIN")
    template = make_template(tenant, name="Prima atingere")
    page = browser_page
    log_in(page, live_server.url, "ana")

    page.goto(f"{live_server.url}/outreach/phones/add/")
    page.fill("input[name=number]", "0740 000 201")
    page.select_option("select[name=provider]", "meta")
    page.get_by_role("button", name="Add the number").click()
    page.wait_for_load_state()
    assert page.get_by_text("needs the number's Phone number ID").is_visible()
    assert not Phone.objects.exists()
    page.screenshot(path=str(SHOTS / "cloud_api_number_refused.png"), full_page=True)

    page.fill("input[name=account_id]", "106540352242922")
    page.get_by_role("button", name="Add the number").click()
    page.wait_for_url("**/outreach/phones/")
    phone = Phone.objects.get()
    assert (phone.provider, phone.account_id) == ("meta", "106540352242922")

    page.goto(f"{live_server.url}/outreach/settings/meta/")
    assert page.locator("[data-unmapped]").is_visible()
    form = page.locator("[data-template-form]")
    form.locator("select[name=version]").select_option(label="Prima atingere v1")
    form.locator("input[name=name]").fill("intro_ferma_ro")
    form.locator("input[name=parameters]").fill("company_name")
    form.locator("textarea[name=text]").fill("Bună ziua, {{1}}! Răspundeți STOP pentru dezabonare.")
    form.get_by_role("button", name="Save the mapping").click()
    page.wait_for_url("**/outreach/settings/meta/")
    assert page.locator("[data-approved]").get_by_text("intro_ferma_ro").is_visible()
    assert page.locator("[data-unmapped]").count() == 0
    assert ApprovedTemplate.objects.get().template_version.template_id == template.pk
    shot = SHOTS / "cloud_api_settings.png"
    page.screenshot(path=str(shot), full_page=True)
    DOCS.mkdir(exist_ok=True)
    shutil.copy(shot, DOCS / "cloud_api_settings.png")
    shutil.copy(SHOTS / "cloud_api_number_refused.png", DOCS / "cloud_api_number_refused.png")
