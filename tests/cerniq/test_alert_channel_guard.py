"""Where a tenant's alert channels may send (cerniq.alert_channels over cerniq.net_guard):
refused when saved and before every send when the host is not public, the services the
guard can follow and no others, one answer whatever listens at a private address, the
connection pinned to the address checked, no redirects. Names resolve through
tests/fake_dns.py; the receivers are real servers on 127.0.0.1 (tests/alert_receiver.py)."""

from __future__ import annotations

import ast
import inspect
import json
import socket
from datetime import UTC, datetime

import apprise
import pytest
import responses
import time_machine
from django.urls import reverse

from cerniq import alert_channels, notifications, reasons
from cerniq.alerts import raise_alert
from cerniq.forms import AlertChannelForm
from cerniq.models import Alert, AlertChannel
from cerniq.notifications import deliver_pending
from tests.alert_receiver import AlertReceiver, FakeSMTP
from tests.fake_dns import fake_dns

T0 = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)
PUBLIC = "93.184.215.14"
NAMES = {
    "hooks.example.com": [PUBLIC],
    "smtp.gmail.com": ["142.250.102.108"],
    "hooks.slack.com": ["34.226.36.50"],
    "intranet.example.com": ["10.0.0.7"],
    "localhost": ["127.0.0.1", "::1"],
}
SLACK_HOOK = "https://hooks.slack.com/services/T1JJ3T3L2/A1BRTD4JD/TIiajkdnlazkcOXrIdevi7FQ"


@pytest.fixture(autouse=True)
def production_rule(settings):
    settings.OUTBOUND_ALLOW_LOCAL_TARGETS = False
    settings.LANGUAGE_CODE = "en"
    with fake_dns(NAMES) as dns:
        yield dns


@pytest.fixture
def clock():
    with time_machine.travel(T0, tick=False) as traveller:
        yield traveller


@pytest.fixture
def connects(monkeypatch):
    """Every TCP/UDP connect attempted from here on; none succeeds (no network in tests)."""
    attempted: list[tuple] = []

    def connect(sock: socket.socket, address: tuple) -> None:
        attempted.append(address[:2])
        raise ConnectionRefusedError("no network in tests")

    monkeypatch.setattr(socket.socket, "connect", connect)
    return attempted


def refusal(host: str) -> str:
    return (
        f"{host} does not resolve to a public Internet address: the server does not connect to it."
    )


def save(tenant, url: str) -> AlertChannelForm:
    form = AlertChannelForm(
        {"name": "Ops", "url": url, "min_severity": "INFO", "language": "en"},
        instance=AlertChannel(tenant=tenant),
    )
    if form.is_valid():
        form.save()
    return form


@pytest.mark.parametrize(
    ("url", "host"),
    [
        ("json://169.254.169.254/latest/meta-data", "169.254.169.254"),
        ("json://127.0.0.1:8080/hooks/x", "127.0.0.1"),
        ("form://10.0.0.1/hooks", "10.0.0.1"),
        ("xml://[::1]/hooks", "::1"),
        ("json://[::127.0.0.1]/hooks", "::127.0.0.1"),
        ("json://[64:ff9b::7f00:1]/hooks", "64:ff9b::7f00:1"),
        ("json://[2002:7f00:1::1]/hooks", "2002:7f00:1::1"),
        ("json://2130706433/hooks", "2130706433"),
        ("jsons://intranet.example.com/hooks", "intranet.example.com"),
        ("jsons://nowhere.example.com/hooks", "nowhere.example.com"),
        ("mailto://ops:pw@example.com?smtp=10.0.0.5&to=ops@agro.ro", "10.0.0.5"),
        ("ntfy://10.1.2.3/alerts", "10.1.2.3"),
        ("gotify://localhost/AbCdEfGhIjKlMnO", "localhost"),
        ("matrix://ops:pw@192.168.1.5/#ops", "192.168.1.5"),
    ],
)
def test_a_channel_on_a_private_host_is_a_form_error_naming_it(tenant, url, host):
    form = save(tenant, url)
    assert list(form.errors) == ["url"]
    assert form.errors["url"] == [refusal(host)]
    assert not AlertChannel.objects.exists()


def test_an_env_reference_is_checked_like_the_url_it_holds(tenant, monkeypatch):
    monkeypatch.setenv("ALERTS_INTERNAL", "json://10.0.0.9/hooks")
    assert save(tenant, "env://ALERTS_INTERNAL").errors["url"] == [refusal("10.0.0.9")]
    monkeypatch.setenv("ALERTS_INTERNAL", "json://hooks.example.com/hooks")
    assert save(tenant, "env://ALERTS_INTERNAL").is_valid()


@pytest.mark.parametrize(
    "url",
    [
        "json://hooks.example.com/hooks/f81d4fae7dec",
        "mailtos://ops:app-password@gmail.com?to=ops@agro.ro",
        SLACK_HOOK,
        "tgram://123456789:AABCDEFGHIJKLMNOPQRSTUVWXYZabcdefgh/12345",
        "ntfy://agro-nord-alerts",  # ntfy.sh itself
    ],
)
def test_public_services_are_saved(tenant, url):
    assert save(tenant, url).is_valid()
    assert AlertChannel.objects.get().url == url


@pytest.mark.parametrize("url", ["syslog://", "rsyslog://10.0.0.1", "rsyslog://hooks.example.com"])
def test_services_the_guard_cannot_follow_are_refused(tenant, url):
    (problem,) = save(tenant, url).errors["url"]
    assert problem.startswith("Alerts cannot go to ")
    assert not AlertChannel.objects.exists()


# One URL per service the guard follows, and what apprise makes of it.
SAMPLES = {
    "NotifyEmail": "mailto://ops:pw@example.com?to=ops@agro.ro",
    "NotifyJSON": "json://hooks.example.com/x",
    "NotifyForm": "form://hooks.example.com/x",
    "NotifyXML": "xml://hooks.example.com/x",
    "NotifyNtfy": "ntfy://hooks.example.com/topic",
    "NotifyGotify": "gotify://hooks.example.com/AbCdEfGhIjKlMnO",
    "NotifyMatrix": "matrix://ops:pw@hooks.example.com/#ops",
    "NotifyMattermost": "mmost://hooks.example.com/abcdefghijklmnopqrstuvwxyz",
    "NotifyRocketChat": "rocket://ops:pw@hooks.example.com/#ops",
    "NotifyWorkflows": "workflow://hooks.example.com:443/WorkflowID/Signature",
    "NotifySlack": SLACK_HOOK,
    "NotifyTelegram": "tgram://123456789:AABCDEFGHIJKLMNOPQRSTUVWXYZabcdefgh/12345",
    "NotifyDiscord": "discord://1234567/abcdefghij",
    "NotifyGoogleChat": "gchat://workspace/key/token",
    "NotifyPushover": "pover://ukey1234567890abcdefghijklmnopq@atoken1234567890abcdefghijklm",
    "NotifyPagerDuty": "pagerduty://integrationkey@apikey",
    "NotifyOpsgenie": "opsgenie://apikey1234567890/@user",
}


def http_calls(tree: ast.AST) -> list[ast.Call]:
    """Calls that send an HTTP request: `requests.post(…)` and the like, or a method
    picked earlier (`method = requests.post; method(url, …, timeout=…)`)."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func, keywords = node.func, {k.arg for k in node.keywords}
        by_name = (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id == "requests"
        )
        if by_name or ({"timeout", "verify"} <= keywords):
            found.append(node)
    return found


def test_every_guarded_service_talks_http_without_redirects_or_smtp():
    """What the guard relies on, read from apprise's own source: each service's module
    sends through `requests` and passes on `redirects` in every request (so the channel's
    `redirects = False` holds), or is the e-mail plugin (smtplib); none opens sockets of
    its own. An apprise upgrade that changes this fails here."""
    assert set(SAMPLES) == set(alert_channels.GUARDED_SERVICES)
    for name, url in SAMPLES.items():
        plugin = apprise.Apprise.instantiate(url)
        assert type(plugin).__name__ == name, url
        tree = ast.parse(inspect.getsource(inspect.getmodule(type(plugin))))
        imported = {
            alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.Import)
            for alias in node.names
        }
        assert "socket" not in imported, name
        calls = http_calls(tree)
        if name == "NotifyEmail":
            assert "smtplib" in imported and not http_calls(tree)
            continue
        assert "requests" in imported and calls, f"{name} sends no HTTP request of its own"
        for call in calls:
            keywords = {k.arg: ast.unparse(k.value) for k in call.keywords}
            redirects = keywords.get("allow_redirects", "True")  # requests' default: follow
            # `self.redirects`, `False`, or `False if credentials else self.redirects`
            assert redirects.endswith(("self.redirects", "False")), (name, call.lineno)
            assert "True" not in redirects, (name, call.lineno)
        assert alert_channels.channel_service(url).plugin.redirects is False


def raise_one(tenant) -> Alert:
    return raise_alert(tenant, Alert.Kind.PHONE_OFFLINE, "phone:+40740000101", "It stopped.")


def test_a_channel_saved_earlier_on_a_private_address_is_refused_at_send(
    tenant, alert_receiver, clock, connects
):
    channel = AlertChannel.objects.create(tenant=tenant, name="Ops", url=alert_receiver.url())
    raise_one(tenant)
    report = deliver_pending()
    assert (report.sent, report.failed) == (0, 1)
    assert alert_receiver.received == [] and connects == []  # nothing was connected
    channel.refresh_from_db()
    assert reasons.is_code(channel.last_error, "platform.destination_refused")
    assert reasons.render(channel.last_error) == refusal("127.0.0.1")
    assert Alert.objects.get().notice_pending == Alert.Notice.OPENED  # retried, not lost


def test_an_smtp_server_on_a_private_address_gets_nothing(tenant, clock):
    with FakeSMTP() as smtp:
        AlertChannel.objects.create(tenant=tenant, name="Mail", url=smtp.url())
        raise_one(tenant)
        assert deliver_pending().failed == 1
    assert smtp.messages == []


def test_the_test_button_says_the_same_whatever_listens_at_a_private_address(
    tenant, alert_receiver
):
    """No port scan through "Send test notification": an open port answering 500 and a
    closed one read the same, because neither is connected."""
    alert_receiver.status = 500
    listening = AlertChannel.objects.create(tenant=tenant, name="A", url=alert_receiver.url())
    closed = AlertChannel.objects.create(tenant=tenant, name="B", url="json://127.0.0.1:9/x")
    said = [notifications.send_test(channel) for channel in (listening, closed)]
    assert said == [refusal("127.0.0.1"), refusal("127.0.0.1")]
    assert alert_receiver.received == []


def test_a_dns_answer_that_changes_after_the_check_is_not_used(
    tenant, clock, production_rule, connects
):
    channel = AlertChannel.objects.create(
        tenant=tenant, name="Hook", url="json://hooks.example.com/hooks/x"
    )
    production_rule.rebind("hooks.example.com", ["127.0.0.1"])
    problem = notifications.send_test(channel)
    assert connects == [(PUBLIC, 80)]  # the address checked, never the new answer
    assert production_rule.names["hooks.example.com"] == ["127.0.0.1"]
    assert production_rule.asked == ["hooks.example.com"]
    assert problem and "does not resolve" not in problem  # a public host that is down


def test_a_redirect_is_never_followed(tenant, settings, alert_receiver):
    """Local targets allowed (both receivers are on 127.0.0.1): the channel answers 307
    towards another local service, which hears nothing, even when the channel's URL asks
    apprise to follow redirects."""
    settings.OUTBOUND_ALLOW_LOCAL_TARGETS = True
    with AlertReceiver() as inside:
        alert_receiver.status = 307  # keeps the method: a followed redirect POSTs again
        alert_receiver.location = inside.url("json", "/steal").replace("json://", "http://")
        for url in (alert_receiver.url(), alert_receiver.url() + "?redirect=yes"):
            channel = AlertChannel.objects.create(tenant=tenant, name=url[-12:], url=url)
            assert notifications.send_test(channel)  # a redirect is no success
    assert len(alert_receiver.received) == 2 and inside.received == []


@responses.activate
def test_a_vendor_service_goes_out_with_the_guard_on(tenant, clock):
    responses.post(SLACK_HOOK, body="ok")
    AlertChannel.objects.create(tenant=tenant, name="Slack", url=SLACK_HOOK, language="en")
    raise_one(tenant)
    assert deliver_pending().sent == 1
    assert json.loads(responses.calls[0].request.body)["attachments"]


def test_the_deployments_own_alert_urls_are_not_guarded(settings, alert_receiver, clock, db):
    """ALERT_URLS come from the deployment's environment, like its database URL: its
    operator may point them at the own network."""
    settings.ALERT_URLS = [alert_receiver.url(scheme="form", path="/ops")]
    raise_alert(None, Alert.Kind.WORKER_DOWN, "worker:host-1", "No heartbeat for 5 minutes.")
    assert deliver_pending().sent == 1
    assert len(alert_receiver.received) == 1


def test_the_admin_refuses_a_private_host_too(admin_client, tenant):
    data = {"tenant": tenant.pk, "name": "Metadata", "url": "json://169.254.169.254/latest"}
    data |= {"min_severity": "INFO", "language": "en", "enabled": "on"}
    response = admin_client.post(reverse("admin:cerniq_alertchannel_add"), data)
    assert response.status_code == 200
    assert response.context["adminform"].form.errors["url"] == [refusal("169.254.169.254")]
    assert not AlertChannel.objects.exists()
