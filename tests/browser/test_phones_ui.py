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


@pytest.mark.django_db(transaction=True)
def test_a_number_showing_a_restriction_sign_says_until_when_it_starts_no_new_chat(
    live_server,
    browser_page,  # noqa: F811 (the fixture)
):
    """issue #22 §5: the card in the restricted state, made by the real rule."""
    from datetime import timedelta

    from outreach import restriction_signs
    from outreach.models import Message
    from tests.browser.test_csp_ui import Violations
    from tests.browser.test_operator_ui import log_in
    from tests.factories import make_lead, make_message

    tenant = make_tenant(name="Agro Browser SRL")
    make_user(tenant, username="ana", role="ADMIN")
    sick = make_phone(tenant, label="Restricționat", daily_limit=200)
    well = make_phone(tenant, label="Sănătos", daily_limit=200)
    hour_ago = timezone.now() - timedelta(hours=1)
    for _ in range(2):
        make_message(
            make_lead(tenant),
            phone=sick,
            quota_cost=1,
            status=Message.Status.FAILED,
            failed_at=hour_ago,
        )
    make_message(make_lead(tenant), phone=sick, status=Message.Status.SENT, sent_at=hour_ago)
    assert restriction_signs.check_tenant(tenant).paused == [sick.pk]
    page = browser_page
    seen = Violations(page)
    log_in(page, live_server.url, "ana")
    page.goto(f"{live_server.url}/outreach/phones/")
    card = page.locator(f"[data-phone='{sick.number}']")
    rest = card.locator("[data-new-chats-rest]")
    assert rest.is_visible()
    text = rest.inner_text()
    assert "No new chats until" in text and "2 of its last 2 new chats failed" in text
    assert "Follow-ups in its existing chats go on" in text
    assert "0/0" in card.inner_text() or "/0" in card.inner_text()  # no new contact today
    assert page.locator(f"[data-phone='{well.number}'] [data-new-chats-rest]").count() == 0
    card.screenshot(path=str(SHOTS / "phone_card_new_chats_rest.png"))
    seen.check("the phones page")
