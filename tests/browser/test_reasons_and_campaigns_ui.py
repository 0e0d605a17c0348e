"""In a real browser: the phones and alerts pages read every event reason in Romanian and
English, and the campaigns page shows cold email that went out without a provider
campaign (the demo's case: it said "No campaigns yet" after 12 cold emails)."""

from __future__ import annotations

import pytest
import time_machine
from django.test import override_settings

from outreach.models import Channel, Message
from tests.browser.test_operator_ui import SHOTS, browser_page, log_in  # noqa: F401 (a fixture)
from tests.factories import make_lead, make_message, make_sequence, make_tenant, make_user
from tests.test_event_reasons_language import ENGLISH, ROMANIAN, TUESDAY, build_history


@pytest.mark.django_db(transaction=True)
@override_settings(QUOTA_ALERT_SHARE=0.05)
def test_reasons_read_in_each_language_and_cold_email_shows_on_the_campaigns_page(
    live_server,
    browser_page,  # noqa: F811
):
    tenant = make_tenant(name="Agro Browser SRL")
    make_user(tenant, username="ana", role="ADMIN")
    with time_machine.travel(TUESDAY, tick=True):
        build_history(tenant)
        cold = make_sequence(tenant, name="Fermieri email")
        lead = make_lead(tenant, email="office@ferma.ro")
        for n in range(12):
            make_message(
                lead, channel=Channel.EMAIL_COLD, status=Message.Status.SENT, sent_at=TUESDAY,
                sequence=cold, step=cold.steps.get(), counterpart=f"office{n}@ferma.ro",
            )  # fmt: skip
        page = browser_page
        log_in(page, live_server.url, "ana")

        page.goto(f"{live_server.url}/outreach/campaigns/")
        row = page.locator(f'tr[data-sequence="{cold.pk}"]')
        assert row.locator("[data-sent]").inner_text() == "12"
        assert page.get_by_text("No provider campaign").is_visible()
        page.screenshot(path=str(SHOTS / "campaigns_without_provider.png"), full_page=True)

        page.goto(f"{live_server.url}/outreach/phones/")
        english = page.locator("main").inner_text()
        assert "Paused by an operator" in english and not any(w in english for w in ROMANIAN)
        page.get_by_role("button", name="Română").click()
        page.wait_for_load_state()
        romanian = page.locator("main").inner_text()
        assert "Pus pe pauză de un operator" in romanian
        assert not any(w in romanian for w in ENGLISH)
        page.screenshot(path=str(SHOTS / "phones_reasons_ro.png"), full_page=True)
        page.goto(f"{live_server.url}/outreach/alerts/")
        assert "Cota WhatsApp aproape epuizată" in page.locator("main").inner_text()
        page.screenshot(path=str(SHOTS / "alerts_reasons_ro.png"), full_page=True)
