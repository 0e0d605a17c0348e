"""The phones page in a real browser: warm-up and health on the cards, the ramp form."""

from __future__ import annotations

import pytest
from django.utils import timezone

from tests.browser.test_operator_ui import SHOTS, browser_page  # noqa: F401 (a fixture)
from tests.factories import make_phone, make_tenant, make_user
from whatsapp.models import Phone, WarmupPlan


@pytest.mark.django_db(transaction=True)
def test_an_admin_sees_the_phones_state_and_fixes_a_bad_ramp(live_server, browser_page):  # noqa: F811
    tenant = make_tenant(name="Agro Browser SRL")
    make_user(tenant, username="ana", role="ADMIN")
    make_phone(tenant, label="Nou", warmup_started_at=timezone.now())
    make_phone(
        tenant,
        label="Obosit",
        health=Phone.Health.THROTTLED,
        health_score=64,
        health_reason="health 64/100: 3 sends failed in a row",
    )
    make_phone(
        tenant,
        label="Odihnă",
        status=Phone.Status.PAUSED,
        status_reason="health 38/100: 15% of new contacts opted out or blocked",
        health=Phone.Health.PAUSED,
        health_score=38,
        health_reason="health 38/100: 15% of new contacts opted out or blocked",
    )
    make_phone(tenant, label="Blocat", status=Phone.Status.BANNED, status_reason="(#368) blocked")
    page = browser_page
    page.goto(f"{live_server.url}/login/")
    page.fill("input[name=username]", "ana")
    page.fill("input[name=password]", "pw-for-tests-1")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url("**/outreach/dashboard/")

    page.goto(f"{live_server.url}/outreach/phones/")
    assert page.get_by_text("day 1 of 14: 20 a day").is_visible()
    assert page.get_by_text("64/100 · Throttled").is_visible()
    assert page.get_by_role("button", name="Reactivate").is_visible()

    page.fill("input[name=steps]", "1:50, 3:40")
    page.get_by_role("button", name="Save ramp").click()
    page.wait_for_load_state()
    assert page.get_by_text("Step 2: the limit must grow (40 is not above 50).").is_visible()
    page.screenshot(path=str(SHOTS / "phones-ramp-error.png"), full_page=True)
    assert not WarmupPlan.objects.exists()

    page.fill("input[name=steps]", "1:10, 4:60, 10:200")
    page.get_by_role("button", name="Save ramp").click()
    page.wait_for_url("**/outreach/phones/")
    assert page.get_by_text("Warm-up ramp saved: 1:10, 4:60, 10:200.").is_visible()
    assert page.get_by_text("day 1 of 10: 10 a day").is_visible()
    page.screenshot(path=str(SHOTS / "phones-health.png"), full_page=True)
