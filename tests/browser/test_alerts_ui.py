"""The alerts page in a real browser: the top bar's badge, acknowledging an alert.

The screenshot lands in var/screenshots/alerts.png (docs/screenshots keeps the copy that
was looked at)."""

from __future__ import annotations

import pytest

from cerniq.alerts import raise_alert
from cerniq.models import Alert, AlertChannel
from tests.browser.test_operator_ui import SHOTS, TABLET, browser_page, log_in  # noqa: F401
from tests.factories import make_tenant, make_user


@pytest.mark.django_db(transaction=True)
def test_operator_sees_the_badge_and_acknowledges_an_alert(live_server, browser_page):  # noqa: F811
    tenant = make_tenant(name="Agro Browser SRL")
    user = make_user(tenant, username="elena")
    offline = raise_alert(
        tenant,
        Alert.Kind.PHONE_OFFLINE,
        "phone:+40740000101",
        "Telefon 1 (+40740000101) is disconnected at TimelinesAI: scan the QR code again.",
        severity=Alert.Severity.CRITICAL,
    )
    raise_alert(
        tenant,
        Alert.Kind.BOUNCE_RATE,
        "campaign:Cold Q1",
        "Bounce rate 4.2 % over the 3 % threshold: the campaign is paused.",
        severity=Alert.Severity.CRITICAL,
    )
    raise_alert(
        tenant,
        Alert.Kind.SLA_BREACH,
        "review:17",
        "Review item for Ferma Verde SRL is 12 minutes past its SLA (HIGH).",
    )
    raise_alert(make_tenant(), Alert.Kind.PHONE_OFFLINE, "phone:+40740000999", "Not yours.")
    page = browser_page
    log_in(page, live_server.url, "elena")

    badge = page.locator(".topbar .alerts-link")
    assert badge.get_attribute("data-open-alerts") == "3"
    badge.click()
    page.wait_for_url("**/outreach/alerts/")
    row = page.locator(f"#alert-{offline.pk}")
    assert row.get_by_text("is disconnected at TimelinesAI").is_visible()
    assert page.get_by_text("Not yours.").count() == 0
    row.get_by_role("button", name="Acknowledge").click()
    page.wait_for_load_state()
    assert page.get_by_text("1 alert acknowledged.").is_visible()
    assert page.locator(".topbar .alerts-link").get_attribute("data-open-alerts") == "2"
    assert page.locator(f"#alert-{offline.pk}").count() == 0  # left the open tab
    offline.refresh_from_db()
    assert offline.acknowledged_by == user
    page.screenshot(path=str(SHOTS / "alerts.png"), full_page=True)

    page.locator("[data-tab=acknowledged]").click()
    page.wait_for_url("**tab=acknowledged")
    acknowledged = page.locator(f"#alert-{offline.pk}")
    assert acknowledged.locator("[data-acknowledged-by]").inner_text() == "elena"
    page.screenshot(path=str(SHOTS / "alerts_acknowledged.png"), full_page=True)

    page.set_viewport_size(TABLET)
    page.goto(f"{live_server.url}/outreach/alerts/")
    page.screenshot(path=str(SHOTS / "tablet_alerts.png"), full_page=True)
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the alerts page is {overflow}px wider than a tablet screen"


@pytest.mark.django_db(transaction=True)
def test_an_admin_adds_a_channel_and_sends_a_test_notification(
    live_server,
    browser_page,  # noqa: F811
    alert_receiver,
    settings,
):
    settings.OUTBOUND_ALLOW_LOCAL_TARGETS = True  # the channel is a receiver on 127.0.0.1
    tenant = make_tenant(name="Agro Browser SRL")
    make_user(tenant, username="admin-ana", role="ADMIN")
    page = browser_page
    log_in(page, live_server.url, "admin-ana")
    page.goto(f"{live_server.url}/outreach/alerts/")
    page.get_by_role("link", name="Channels").click()
    page.wait_for_url("**/outreach/alerts/channels/")
    page.get_by_label("Name").fill("Ops webhook")
    page.get_by_label("URL").fill("slack://not-a-token")
    page.get_by_role("button", name="Save").click()
    page.wait_for_load_state()
    assert page.get_by_text("Apprise cannot use this URL").is_visible()
    page.get_by_label("URL").fill(alert_receiver.url())
    page.get_by_label("Phone offline").check()
    page.get_by_label("Phone banned").check()
    page.get_by_label("Language").select_option("en")
    page.get_by_role("button", name="Save").click()
    page.wait_for_load_state()
    assert page.get_by_text("Channel “Ops webhook” saved.").is_visible()
    assert page.locator("[data-masked-url]").inner_text().endswith("/hooks/a...h")
    page.get_by_role("button", name="Send test notification").click()
    page.wait_for_load_state()
    assert page.get_by_text("Test notification sent to “Ops webhook”.").is_visible()
    assert alert_receiver.titles() == ["Test notification from Cerniq Outreach"]
    page.screenshot(path=str(SHOTS / "alert_channels.png"), full_page=True)
    # An admin's top bar (with Operations, Alerts and API) stays one line at 1366 px in the
    # longer Romanian words too.
    one_line = page.locator("header.topbar").bounding_box()["height"]
    page.get_by_role("button", name="Română").click()
    page.wait_for_load_state()
    assert page.get_by_role("link", name="Alerte", exact=True).is_visible()
    page.screenshot(path=str(SHOTS / "alert_channels_ro.png"), full_page=True)
    assert page.locator("header.topbar").bounding_box()["height"] == one_line
    page.get_by_role("button", name="English").click()
    page.wait_for_load_state()
    page.set_viewport_size(TABLET)
    page.reload()
    page.screenshot(path=str(SHOTS / "tablet_alert_channels.png"), full_page=True)
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the channels page is {overflow}px wider than a tablet screen"

    # Delete asks first: dismissed, nothing changes; accepted, the channel goes.
    asked: list[str] = []
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    page.get_by_role("button", name="Delete").click()
    assert asked == ["Delete this channel? Alerts will no longer be sent to it."]
    assert AlertChannel.objects.filter(name="Ops webhook").exists()
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Delete").click()
    page.wait_for_load_state()
    assert page.get_by_text("No channels yet").is_visible()
    assert not AlertChannel.objects.filter(name="Ops webhook").exists()
