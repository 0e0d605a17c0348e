"""The sending window in a real browser, at a frozen weekend: the closed-window banner on
every page, and an admin's sending hours page in English and Romanian (the top bar stays
one line at 1366 px).

Screenshots land in var/screenshots/ (docs/screenshots keeps the copies looked at)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
import time_machine

from tests.browser.test_operator_ui import SHOTS, browser_page, log_in  # noqa: F401
from tests.factories import make_phone, make_tenant, make_user

SATURDAY = datetime(2026, 11, 28, 9, 0, tzinfo=UTC)  # 11:00 in Bucharest


@pytest.mark.django_db(transaction=True)
def test_a_weekend_shows_the_banner_and_an_admin_changes_the_hours(
    live_server,
    browser_page,  # noqa: F811
):
    tenant = make_tenant(name="Agro Browser SRL")
    make_phone(tenant, label="Vânzări 1")
    make_user(tenant, username="admin-ana", role="ADMIN")
    page = browser_page
    with time_machine.travel(SATURDAY, tick=True):
        log_in(page, live_server.url, "admin-ana")
        page.goto(f"{live_server.url}/outreach/dashboard/")
        banner = page.locator("[data-window-banner]")
        assert banner.is_visible()
        assert "Sending is paused until Wed 2 Dec 09:00 (weekend, then public holidays" in (
            banner.inner_text()
        )
        page.screenshot(path=str(SHOTS / "window_banner.png"), full_page=True)

        one_line = page.locator("header.topbar").bounding_box()["height"]
        page.get_by_role("link", name="Settings", exact=True).click()
        page.wait_for_url("**/outreach/settings/sending/")
        page.get_by_label("Saturday").check()
        page.get_by_role("button", name="Save").click()
        page.wait_for_load_state()
        assert page.get_by_text("Sending settings saved.").is_visible()
        assert page.locator("[data-window-banner]").count() == 0  # Saturday is open now
        page.get_by_label("Saturday").uncheck()
        page.get_by_label("Sending ends at").fill("08:00")
        page.get_by_role("button", name="Save").click()
        page.wait_for_load_state()
        assert page.get_by_text("The sending hours must end after they start.").is_visible()
        page.screenshot(path=str(SHOTS / "sending_settings.png"), full_page=True)

        page.get_by_role("button", name="Română").click()
        page.wait_for_load_state()
        page.goto(f"{live_server.url}/outreach/settings/sending/")
        assert page.get_by_role("link", name="Setări", exact=True).is_visible()
        assert page.locator("header.topbar").bounding_box()["height"] == one_line
        page.screenshot(path=str(SHOTS / "sending_settings_ro.png"), full_page=True)
        page.get_by_label("sâmbătă").uncheck()
        page.get_by_role("button", name="Salvează").click()
        page.wait_for_load_state()
        ro_banner = page.locator("[data-window-banner]").inner_text()
        assert "Trimiterea este oprită până miercuri, 2 decembrie, 09:00" in ro_banner
        page.goto(f"{live_server.url}/outreach/dashboard/")
        page.screenshot(path=str(SHOTS / "window_banner_ro.png"), full_page=True)
