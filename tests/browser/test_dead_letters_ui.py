"""The dead letters page in a real browser: an operator retries a dead letter and the
workers send it once; another is discarded and its lead re-planned. TimelinesAI is faked
at its HTTP boundary (`responses`), the workers and the broker are the run's own.

Screenshots land in var/screenshots/ (docs/screenshots/ keeps the copies looked at)."""

from __future__ import annotations

import json
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
import responses
import time_machine

from outreach.deadletters import dead_letters
from outreach.dispatch import dispatch_due
from outreach.models import Journey, Message
from tests.browser.test_operator_ui import (  # noqa: F401 (browser_page: a fixture)
    SHOTS,
    TABLET,
    browser_page,
    log_in,
)
from tests.drain import running_workers, wait_until
from tests.factories import make_outreach_world, make_tenant, make_user

BASE = "https://app.timelines.ai/integrations/api"
MONDAY_10 = datetime(2026, 11, 23, 10, 0, tzinfo=ZoneInfo("Europe/Bucharest"))


class TimelinesAI:
    """Refuses sends (a 4xx, never retried) until told to accept them."""

    def __init__(self) -> None:
        self.refusing = True
        self.accepted: list[str] = []  # the numbers sent to

    def __call__(self, request):
        if self.refusing:
            return 400, {}, json.dumps({"status": "error", "message": "Payload too large"})
        self.accepted.append(json.loads(request.body)["phone"])
        uid = f"00000000-0000-4000-8000-{len(self.accepted):012d}"
        return 200, {}, json.dumps({"status": "ok", "data": {"message_uid": uid}})


@pytest.mark.django_db(transaction=True)
def test_operator_retries_a_dead_letter_and_discards_another(
    live_server,
    browser_page,  # noqa: F811
    settings,
):
    settings.PROVIDERS = {
        **settings.PROVIDERS,
        "whatsapp.timelinesai": {
            "BACKEND": "integrations.timelinesai.client.TimelinesAI",
            "OPTIONS": {"api_token": "browser-token", "base_url": BASE},
        },
    }
    provider = TimelinesAI()
    with (
        time_machine.travel(MONDAY_10, tick=True),
        responses.RequestsMock(assert_all_requests_are_fired=False) as http,
    ):
        http.add_passthru(live_server.url)
        http.add_callback(responses.POST, f"{BASE}/messages", callback=provider)
        tenant = make_tenant(name="Agro Browser SRL")
        make_user(tenant, username="elena", is_staff=True)  # staff: the broker's numbers too
        world = make_outreach_world(tenant, leads=2, phones=1)
        phone = world["phones"][0]
        phone.number, phone.provider = "+40740000101", "timelinesai"
        phone.account_id = "40740000101@s.whatsapp.net"
        phone.save()
        retried_lead, discarded_lead = world["leads"]
        for lead, name in zip(world["leads"], ("Ferma Verde SRL", "Livada Nord SRL"), strict=True):
            lead.name = name
            lead.save()
        with running_workers():
            dispatch_due(tenant)
            wait_until(lambda: dead_letters(tenant).count() == 2, what="two dead letters")
        provider.refusing = False

        page = browser_page
        log_in(page, live_server.url, "elena")
        page.get_by_role("link", name="Operations").click()
        page.wait_for_url("**/outreach/queues/")
        whatsapp = page.locator("[data-channel=WHATSAPP]")
        assert whatsapp.locator("[data-dead]").inner_text() == "2"
        assert page.locator("[data-queue='wa.phone_01'] [data-failed]").inner_text() == "0"
        page.screenshot(path=str(SHOTS / "queues.png"), full_page=True)
        page.get_by_role("link", name="Dead letters").click()
        page.wait_for_url("**/outreach/dead-letters/")
        assert page.locator("table.dead-letters tbody tr").count() == 2
        assert page.get_by_text("HTTP 400: Payload too large").first.is_visible()
        page.screenshot(path=str(SHOTS / "dead_letters.png"), full_page=True)

        with running_workers():
            page.get_by_role("button", name="Retry Ferma Verde SRL").click()
            page.wait_for_load_state()
            assert page.get_by_text("1 message queued to be sent again.").is_visible()
            wait_until(
                lambda: Message.objects.filter(lead=retried_lead, status="SENT").exists(),
                what="the retried send",
            )
        assert page.locator("table.dead-letters tbody tr").count() == 1
        page.screenshot(path=str(SHOTS / "dead_letters_retried.png"), full_page=True)
        # At tablet size, with a row on the page: nothing scrolls sideways.
        page.set_viewport_size(TABLET)
        for name, path in (
            ("dead_letters", "/outreach/dead-letters/"),
            ("queues", "/outreach/queues/"),
        ):
            page.goto(f"{live_server.url}{path}")
            page.screenshot(path=str(SHOTS / f"tablet_{name}.png"), full_page=True)
            overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
            assert overflow <= 0, f"{path} is {overflow}px wider than a tablet screen"
        page.set_viewport_size({"width": 1366, "height": 768})
        page.goto(f"{live_server.url}/outreach/dead-letters/")

        page.get_by_label("Select Livada Nord SRL").check()
        page.get_by_role("button", name="Discard (re-plan the lead)").click()
        page.wait_for_load_state()
        assert page.get_by_text("1 message discarded; its lead is re-planned.").is_visible()
        assert page.get_by_text("No dead-lettered messages.").is_visible()
    assert provider.accepted == [retried_lead.phone]  # sent once, nothing else sent
    assert Message.objects.get(lead=discarded_lead).status == "CANCELLED"
    assert Journey.objects.get(lead=discarded_lead).next_action_at is not None
