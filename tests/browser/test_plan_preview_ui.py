"""The plan page in a real browser at a frozen Friday evening: Wednesday's counts (Monday
and Tuesday are public holidays), in English and Romanian, on a laptop and a tablet.

Screenshots land in var/screenshots/plan-*.png for a person to look at."""

from __future__ import annotations

import pytest
import time_machine

from tests.browser.test_operator_ui import SHOTS, browser_page, log_in  # noqa: F401
from tests.factories import make_tenant, make_user
from tests.outreach.test_plan_preview import FRIDAY_EVENING, WEDNESDAY_OPENING, build_world

SIZES = {"laptop": (1366, 768), "tablet": (820, 1180)}


@pytest.mark.django_db(transaction=True)
def test_the_plan_shows_wednesdays_counts_in_both_languages(
    live_server,
    browser_page,  # noqa: F811
):
    tenant = make_tenant(name="Agro Browser SRL")
    make_user(tenant, username="ana")
    build_world(tenant, WEDNESDAY_OPENING)
    page = browser_page
    with time_machine.travel(FRIDAY_EVENING, tick=True):
        log_in(page, live_server.url, "ana")
        page.goto(f"{live_server.url}/outreach/dashboard/")
        page.locator("[data-plan-link]").click()
        page.wait_for_url("**/outreach/plan/")
        assert "Wednesday, 2 Dec 2026, window 09:00–18:00" in (
            page.locator("[data-plan-day]").inner_text()
        )
        totals = page.locator("[data-plan-totals]")
        assert totals.locator("[data-first]").inner_text() == "8"
        assert totals.locator("[data-follow-ups]").inner_text() == "2"
        assert page.locator("[data-plan-waiting] [data-reason='stop.review']").is_visible()
        for name, (width, height) in SIZES.items():
            page.set_viewport_size({"width": width, "height": height})
            page.screenshot(path=str(SHOTS / f"plan-{name}-en.png"), full_page=True)

        page.set_viewport_size({"width": 1366, "height": 768})
        page.get_by_role("button", name="Română").click()
        page.wait_for_load_state()
        page.goto(f"{live_server.url}/outreach/plan/")
        assert "miercuri, 02.12.2026" in page.locator("[data-plan-day]").inner_text().lower()
        for name, (width, height) in SIZES.items():
            page.set_viewport_size({"width": width, "height": height})
            page.screenshot(path=str(SHOTS / f"plan-{name}-ro.png"), full_page=True)
