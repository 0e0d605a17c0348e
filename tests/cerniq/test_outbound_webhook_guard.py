"""Where outgoing webhooks may go (cerniq.outbound.endpoints over cerniq.net_guard): https
and a public address when saved and before every POST, the POST connected only to the
address checked, redirects never followed. Names resolve through tests/fake_dns.py."""

from __future__ import annotations

import socket
from datetime import UTC, datetime

import pytest
import time_machine
from django.db import transaction

from cerniq import reasons
from cerniq.models import WebhookDelivery
from cerniq.outbound import endpoints, events
from cerniq.outbound.delivery import deliver
from tests.factories import make_webhook_endpoint
from tests.fake_dns import fake_dns

T0 = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)
PUBLIC = "93.184.215.14"
Status = WebhookDelivery.Status
NAMES = {
    "hooks.example.com": [PUBLIC],
    "localhost": ["127.0.0.1", "::1"],
    "intranet.example.com": ["10.0.0.7"],
}


@pytest.fixture(autouse=True)
def dns():
    with fake_dns(NAMES) as fake:
        yield fake


@pytest.fixture
def clock():
    with time_machine.travel(T0, tick=False) as traveller:
        yield traveller


def emit_one(tenant) -> WebhookDelivery:
    with transaction.atomic():
        (delivery_id,) = events.emit(tenant.pk, "lead.stage_changed", {"lead_id": 7})
    return WebhookDelivery.objects.get(pk=delivery_id)


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("http://hooks.example.com/x", "must start with https://"),
        ("https://user:pw@hooks.example.com/x", "no user or password"),
        ("https://hooks.example.com:99999/x", "port"),
        ("https://127.0.0.1/x", "127.0.0.1 does not resolve to a public"),
        ("https://localhost:8443/x", "localhost does not"),
        ("https://10.1.2.3/x", "10.1.2.3 does not"),
        ("https://192.168.0.10/x", "192.168.0.10 does not"),
        ("https://169.254.169.254/latest/meta-data", "169.254.169.254 does not"),
        ("https://[::1]/x", "::1 does not"),
        ("https://[::127.0.0.1]/x", "::127.0.0.1 does not"),
        ("https://[64:ff9b::7f00:1]/x", "64:ff9b::7f00:1 does not"),
        ("https://[64:ff9b:1::a00:1]/x", "64:ff9b:1::a00:1 does not"),
        ("https://[2002:7f00:1::1]/x", "2002:7f00:1::1 does not"),
        ("https://[::ffff:169.254.169.254]/x", "::ffff:169.254.169.254 does not"),
        ("https://2130706433/x", "2130706433 does not"),
        ("https://0x7f.1/x", "0x7f.1 does not"),
        ("https://intranet.example.com/x", "intranet.example.com does not"),
        ("https://nowhere.example.com/x", "nowhere.example.com does not"),
    ],
)
def test_production_refuses_urls_that_are_not_https_or_reach_private_addresses(
    settings, url, problem
):
    settings.OUTBOUND_ALLOW_LOCAL_TARGETS = False
    with pytest.raises(endpoints.EndpointURLError) as refused:
        endpoints.check_destination(url)
    assert problem in str(refused.value)


def test_production_accepts_an_https_url_on_a_public_address(settings):
    settings.OUTBOUND_ALLOW_LOCAL_TARGETS = False
    endpoints.check_destination("https://93.184.215.14/hooks")
    endpoints.check_destination("https://hooks.example.com/in")


def test_production_never_posts_to_a_private_address(
    tenant, alert_receiver, settings, clock, monkeypatch
):
    """An endpoint saved while local targets were allowed (or whose name now resolves
    inside): the worker refuses it before connecting, and says why."""
    make_webhook_endpoint(
        tenant, f"https://127.0.0.1:{alert_receiver.port}/in", events=["lead.stage_changed"]
    )
    row = emit_one(tenant)
    settings.OUTBOUND_ALLOW_LOCAL_TARGETS = False
    connects: list[tuple] = []
    monkeypatch.setattr(socket.socket, "connect", lambda sock, address: connects.append(address))

    assert deliver(row.pk) == Status.PENDING  # retried later, like any failure
    row.refresh_from_db()
    assert alert_receiver.received == [] and connects == []
    assert row.last_status_code is None
    assert reasons.is_code(row.last_error, "platform.destination_refused")
    assert reasons.render(row.last_error) == (
        "127.0.0.1 does not resolve to a public Internet address: the server does not "
        "connect to it."
    )


def test_a_dns_answer_that_changes_after_the_check_is_not_used(
    tenant, settings, clock, dns, monkeypatch
):
    """DNS rebinding: the endpoint's name answers a public address to the check and
    127.0.0.1 afterwards. The POST goes to the address checked or nowhere."""
    make_webhook_endpoint(tenant, "https://hooks.example.com/in", events=["lead.stage_changed"])
    row = emit_one(tenant)
    settings.OUTBOUND_ALLOW_LOCAL_TARGETS = False
    dns.rebind("hooks.example.com", ["127.0.0.1"])
    connects: list[tuple] = []

    def connect(sock: socket.socket, address: tuple) -> None:
        connects.append(address[:2])
        raise ConnectionRefusedError("no network in tests")

    monkeypatch.setattr(socket.socket, "connect", connect)
    assert deliver(row.pk) == Status.PENDING
    assert connects == [(PUBLIC, 443)]
    assert dns.names["hooks.example.com"] == ["127.0.0.1"]  # it did change its answer
    assert dns.asked == ["hooks.example.com"]
    row.refresh_from_db()
    assert "ConnectionError" in row.last_error


def test_a_redirect_is_never_followed(tenant, settings, clock, alert_receiver):
    """Local targets allowed (the receivers are on 127.0.0.1): the endpoint answers 307
    towards another local service, which hears nothing; the 307 is an answer to retry."""
    from tests.alert_receiver import AlertReceiver

    settings.OUTBOUND_ALLOW_LOCAL_TARGETS = True
    with AlertReceiver() as inside:
        alert_receiver.status = 307  # keeps the method: a followed redirect POSTs again
        alert_receiver.location = inside.url("http", "/admin/delete-everything")
        make_webhook_endpoint(
            tenant, alert_receiver.url("http", "/in"), events=["lead.stage_changed"]
        )
        row = emit_one(tenant)
        assert deliver(row.pk) == Status.PENDING
    assert len(alert_receiver.received) == 1 and inside.received == []
    row.refresh_from_db()
    assert row.last_status_code == 307
