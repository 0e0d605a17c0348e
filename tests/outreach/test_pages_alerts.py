"""The alerts page, its actions, the top bar's badge and the channels page: tenant
scoping, CSRF, admins only for channels, masked URLs, constant queries."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from cerniq.alerts import raise_alert, resolve_alerts
from cerniq.models import Alert, AlertChannel
from tests.factories import make_user

pytestmark = pytest.mark.django_db

URL = "/outreach/alerts/"
CHANNELS = "/outreach/alerts/channels/"
SLACK = "https://hooks.slack.com/services/T1JJ3T3L2/A1BRTD4JD/TIiajkdnlazkcOXrIdevi7FQ"
Kind = Alert.Kind


@pytest.fixture
def web(client, operator) -> Client:
    client.force_login(operator)
    return client


@pytest.fixture
def admin_web(tenant) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(make_user(tenant, role="ADMIN"))
    return client


def alert(tenant, subject="phone:+40740000101", kind=Kind.PHONE_OFFLINE, **kw) -> Alert:
    return raise_alert(tenant, kind, subject, kw.pop("message", "It stopped answering."), **kw)


def shown(response) -> list[str]:
    return [a.subject for a in response.context["alerts"]]


def test_tabs_show_the_tenants_open_acknowledged_and_resolved_alerts(
    web, tenant, other_tenant, operator
):
    alert(tenant, "phone:1", severity="WARNING")
    alert(tenant, "phone:2", severity="CRITICAL")
    acked = alert(tenant, "review:3", kind=Kind.SLA_BREACH)
    Alert.objects.filter(pk=acked.pk).update(acknowledged_at=acked.last_seen_at)
    alert(tenant, "campaign:4", kind=Kind.BOUNCE_RATE)
    resolve_alerts(tenant, Kind.BOUNCE_RATE, "campaign:4")
    alert(other_tenant, "phone:999")
    alert(None, "worker:host-1", kind=Kind.WORKER_DOWN)

    page = web.get(URL)
    assert page.status_code == 200
    assert shown(page) == ["phone:2", "phone:1"]  # the worst first
    assert [(key, count) for key, _label, count in page.context["tabs"]] == [
        ("open", 2),
        ("acknowledged", 1),
        ("resolved", 1),
    ]
    html = page.content.decode()
    assert "phone:999" not in html and "worker:host-1" not in html
    assert shown(web.get(URL + "?tab=acknowledged")) == ["review:3"]
    resolved = web.get(URL + "?tab=resolved")
    assert shown(resolved) == ["campaign:4"] and "cleared by itself" in resolved.content.decode()
    assert shown(web.get(URL + "?severity=WARNING")) == ["phone:1"]
    assert shown(web.get(URL + "?tab=nonsense&severity=nonsense")) == ["phone:2", "phone:1"]


def test_acknowledge_one_records_who_and_when_and_moves_it(web, tenant, operator):
    one = alert(tenant, "phone:1")
    response = web.post(reverse("outreach:alert_action", args=[one.pk, "acknowledge"]))
    assert response.status_code == 302 and response["Location"] == URL
    one.refresh_from_db()
    assert one.acknowledged_by == operator and one.acknowledged_at is not None
    page = web.get(URL + "?tab=acknowledged")
    assert shown(page) == ["phone:1"]
    assert operator.get_username() in page.content.decode()
    assert "1 alert acknowledged." in [str(m) for m in page.context["messages"]]


def test_bulk_resolve_and_acknowledge_the_selected(web, tenant, operator):
    ones = [alert(tenant, f"phone:{n}") for n in range(3)]
    response = web.post(
        reverse("outreach:alert_bulk_action", args=["resolve"]),
        {"ids": [ones[0].pk, ones[1].pk], "tab": "open", "severity": "WARNING"},
    )
    assert response["Location"] == URL + "?tab=open&severity=WARNING"
    assert list(Alert.objects.filter(resolved_by=operator).order_by("pk")) == ones[:2]
    web.post(reverse("outreach:alert_bulk_action", args=["acknowledge"]), {"ids": [ones[2].pk]})
    assert Alert.objects.get(pk=ones[2].pk).acknowledged_by == operator


def test_another_tenants_alert_is_a_404_and_nothing_changes(web, tenant, other_tenant):
    mine = alert(tenant, "phone:1")
    theirs = alert(other_tenant, "phone:2")
    for action in ("acknowledge", "resolve"):
        assert (
            web.post(reverse("outreach:alert_action", args=[theirs.pk, action])).status_code == 404
        )
        bulk = reverse("outreach:alert_bulk_action", args=[action])
        assert web.post(bulk, {"ids": [mine.pk, theirs.pk]}).status_code == 404
        assert web.post(bulk, {"ids": ["x"]}).status_code == 404
    platform = alert(None, "worker:1", kind=Kind.WORKER_DOWN)
    assert (
        web.post(reverse("outreach:alert_action", args=[platform.pk, "resolve"])).status_code == 404
    )
    assert not Alert.objects.filter(acknowledged_at__isnull=False).exists()
    assert not Alert.objects.filter(resolved_at__isnull=False).exists()


def test_no_selection_and_unknown_actions(web, tenant):
    response = web.post(reverse("outreach:alert_bulk_action", args=["resolve"]), follow=True)
    assert "Select at least one alert." in response.content.decode()
    one = alert(tenant)
    assert web.post(f"{URL}{one.pk}/delete/").status_code == 404
    assert web.get(reverse("outreach:alert_action", args=[one.pk, "resolve"])).status_code == 405


def test_actions_need_login_and_csrf(tenant, operator):
    one = alert(tenant)
    anonymous = Client()
    response = anonymous.post(reverse("outreach:alert_action", args=[one.pk, "resolve"]))
    assert response.status_code == 302 and "/login/" in response["Location"]
    assert anonymous.get(URL).status_code == 302
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(operator)
    response = strict.post(reverse("outreach:alert_action", args=[one.pk, "resolve"]))
    assert response.status_code == 403
    assert Alert.objects.get().resolved_at is None


def test_the_badge_counts_open_unacknowledged_alerts_of_the_tenant(web, tenant, other_tenant):
    page = web.get("/outreach/dashboard/").content.decode()
    assert 'data-open-alerts="0"' in page and "alerts-badge" not in page
    alert(tenant, "phone:1")
    alert(tenant, "phone:2")
    acked = alert(tenant, "phone:3")
    Alert.objects.filter(pk=acked.pk).update(acknowledged_at=acked.last_seen_at)
    alert(other_tenant, "phone:4")
    page = web.get("/outreach/dashboard/").content.decode()
    assert 'data-open-alerts="2"' in page
    assert '<span class="alerts-badge">2</span>' in page


def test_the_page_and_the_badge_run_the_same_queries_for_1_or_40_alerts(web, tenant):
    def queries(path: str) -> int:
        with CaptureQueriesContext(connection) as captured:
            assert web.get(path).status_code == 200
        return len(captured)

    alert(tenant, "phone:0")
    few = (queries(URL), queries("/outreach/phones/"))
    for n in range(1, 40):
        one = alert(tenant, f"phone:{n}", severity="CRITICAL" if n % 3 else "INFO")
        if n % 4 == 0:
            Alert.objects.filter(pk=one.pk).update(acknowledged_at=one.last_seen_at)
    many = (queries(URL), queries("/outreach/phones/"))
    assert many == few


def test_partials_do_not_count_alerts(web, tenant):
    alert(tenant)
    with CaptureQueriesContext(connection) as captured:
        assert web.get("/outreach/dashboard/partial/").status_code == 200
    assert not [q for q in captured.captured_queries if "cerniq_alert" in q["sql"]]


# --- Channels ----------------------------------------------------------------------------


def test_only_the_tenants_admins_manage_channels(web, admin_web, tenant):
    channel = AlertChannel.objects.create(tenant=tenant, name="Ops", url="json://h/p")
    assert web.get(CHANNELS).status_code == 403
    assert web.post(CHANNELS, {"name": "X", "url": "json://h/q"}).status_code == 403
    assert web.post(f"{CHANNELS}{channel.pk}/delete/").status_code == 403
    assert "Channels" not in web.get(URL).content.decode()
    assert admin_web.get(CHANNELS).status_code == 200
    assert reverse("outreach:alert_channels") in admin_web.get(URL).content.decode()


def test_an_admin_adds_a_channel_and_never_sees_its_url_again(admin_web, tenant):
    data = {"name": "Slack #ops", "url": SLACK, "min_severity": "WARNING", "language": "en"}
    data |= {"kinds": ["PHONE_OFFLINE", "PHONE_BANNED"], "enabled": "on"}
    response = admin_web.post(CHANNELS, data)
    assert response.status_code == 302
    channel = AlertChannel.objects.get()
    assert (channel.tenant, channel.url, channel.kinds) == (tenant, SLACK, data["kinds"])
    for path in (CHANNELS, f"{CHANNELS}{channel.pk}/"):
        html = admin_web.get(path).content.decode()
        assert "slack://T...2/A...D/T...Q" in html
        assert "TIiajkdnlazkcOXrIdevi7FQ" not in html and "T1JJ3T3L2" not in html


def test_a_url_apprise_cannot_read_is_a_form_error_on_the_url_field(admin_web):
    data = {"name": "Broken", "url": "slack://not-a-token", "min_severity": "INFO"}
    response = admin_web.post(CHANNELS, data | {"language": "en"})
    assert response.status_code == 200
    assert list(response.context["form"].errors) == ["url"]
    assert "Apprise cannot use this URL" in response.content.decode()
    assert not AlertChannel.objects.exists()


def test_a_private_address_is_refused_on_save_and_by_the_test_button(
    admin_web, tenant, alert_receiver
):
    """The production rule (tests run with OUTBOUND_ALLOW_LOCAL_TARGETS off): the form
    names the host; a channel saved before the rule, tested, says the same and shows it as
    its last error, and its receiver (answering 500) never hears of it."""
    data = {"name": "Metadata", "url": "json://169.254.169.254/latest/meta-data"}
    response = admin_web.post(CHANNELS, data | {"min_severity": "INFO", "language": "en"})
    assert response.context["form"].errors["url"] == [
        "169.254.169.254 does not resolve to a public Internet address: the server does not "
        "connect to it."
    ]
    assert not AlertChannel.objects.exists()

    alert_receiver.status = 500
    channel = AlertChannel.objects.create(tenant=tenant, name="Hook", url=alert_receiver.url())
    page = admin_web.post(f"{CHANNELS}{channel.pk}/test/", follow=True).content.decode()
    refused = "127.0.0.1 does not resolve to a public Internet address"
    assert f"The test notification to “Hook” failed: {refused}" in page
    assert page.count(refused) == 2  # the message, and the channel's last error
    # No "500" as a word (a random CSRF token on the page may hold the digits).
    assert not re.search(r"\b500\b", page) and alert_receiver.received == []


def test_editing_with_an_empty_url_keeps_the_saved_one(admin_web, tenant):
    channel = AlertChannel.objects.create(tenant=tenant, name="Ops", url=SLACK)
    data = {"name": "Ops 2", "url": "", "min_severity": "CRITICAL", "language": "en"}
    assert admin_web.post(f"{CHANNELS}{channel.pk}/", data).status_code == 302
    channel.refresh_from_db()
    assert (channel.name, channel.url, channel.min_severity) == ("Ops 2", SLACK, "CRITICAL")


def test_test_disable_enable_and_delete(admin_web, tenant, alert_receiver, settings):
    settings.OUTBOUND_ALLOW_LOCAL_TARGETS = True  # the receiver is on 127.0.0.1
    channel = AlertChannel.objects.create(
        tenant=tenant, name="Hook", url=alert_receiver.url(), language="en"
    )
    response = admin_web.post(f"{CHANNELS}{channel.pk}/test/", follow=True)
    assert "Test notification sent to “Hook”." in response.content.decode()
    assert alert_receiver.titles() == ["Test notification from Cerniq Outreach"]
    alert_receiver.status = 500
    response = admin_web.post(f"{CHANNELS}{channel.pk}/test/", follow=True)
    assert "The test notification to “Hook” failed" in response.content.decode()
    admin_web.post(f"{CHANNELS}{channel.pk}/disable/")
    assert AlertChannel.objects.get().enabled is False
    admin_web.post(f"{CHANNELS}{channel.pk}/enable/")
    assert AlertChannel.objects.get().enabled is True
    admin_web.post(f"{CHANNELS}{channel.pk}/delete/")
    assert not AlertChannel.objects.exists()


def test_another_tenants_channel_is_a_404(admin_web, other_tenant):
    theirs = AlertChannel.objects.create(tenant=other_tenant, name="Theirs", url="json://h/p")
    assert admin_web.get(f"{CHANNELS}{theirs.pk}/").status_code == 404
    for action in ("test", "disable", "delete"):
        assert admin_web.post(f"{CHANNELS}{theirs.pk}/{action}/").status_code == 404
    assert AlertChannel.objects.get().enabled is True


def test_the_admin_shows_a_channel_masked(admin_client, tenant):
    channel = AlertChannel.objects.create(tenant=tenant, name="Slack", url=SLACK)
    for path in (
        reverse("admin:cerniq_alertchannel_changelist"),
        reverse("admin:cerniq_alertchannel_change", args=[channel.pk]),
    ):
        html = admin_client.get(path).content.decode()
        assert "slack://T...2/A...D/T...Q" in html
        assert "TIiajkdnlazkcOXrIdevi7FQ" not in html
