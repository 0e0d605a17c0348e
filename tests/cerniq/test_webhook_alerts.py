"""WEBHOOK_FAILURE alerts (cerniq.webhook_alerts): failing events per tenant and provider,
resolved when processing works again; bursts of refused requests, platform-wide."""

from __future__ import annotations

import itertools
import json
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.core.cache import cache
from django.utils import translation

from cerniq import reasons, webhook_alerts, webhooks
from cerniq.models import Alert, WebhookEvent
from cerniq.webhooks import Receiver, process_event, tenant_for_url_token

T0 = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)
_ids = itertools.count(1)


class BrokenReceiver(Receiver):
    provider = "sandbox"
    HANDLED_EVENTS = frozenset({"thing.happened"})
    failing = True

    def authenticate(self, request, raw, token):
        return tenant_for_url_token(token)

    def identify(self, payload):
        return payload["type"], payload["id"]

    def handle(self, event, payload):
        if BrokenReceiver.failing:
            raise RuntimeError("lead store unavailable")
        return True


@pytest.fixture(autouse=True)
def broken_receiver(monkeypatch, settings):
    monkeypatch.setattr(webhooks, "receivers", lambda: {"sandbox": f"{__name__}.BrokenReceiver"})
    monkeypatch.setattr(BrokenReceiver, "failing", True)
    settings.WEBHOOK_FAILURE_ALERT_THRESHOLD = 3
    settings.WEBHOOK_REJECTED_ALERT_THRESHOLD = 4
    settings.WEBHOOK_ALERT_WINDOW = timedelta(minutes=15)
    # Counted refusals of an earlier run (Redis outlives the test database), around T0.
    start = int(T0.timestamp() // 60)
    cache.delete_many(
        [
            webhook_alerts._BUCKET_KEY.format(provider="sandbox", minute=minute)
            for minute in range(start - 5, start + 30)
        ]
    )


@pytest.fixture
def clock():
    with time_machine.travel(T0, tick=False) as traveller:
        yield traveller


def stored(tenant) -> int:
    n = next(_ids)
    return WebhookEvent.objects.create(
        tenant=tenant,
        provider="sandbox",
        event_type="thing.happened",
        provider_event_id=f"evt-{n}",
        raw_body=json.dumps({"type": "thing.happened", "id": f"evt-{n}"}).encode(),
        verified=True,
    ).pk


def fail(event_id: int) -> None:
    with pytest.raises(RuntimeError):
        process_event(event_id)


def failure_alerts():
    return Alert.objects.filter(kind=Alert.Kind.WEBHOOK_FAILURE)


def test_failing_events_raise_the_alert_at_the_threshold(tenant, clock):
    events = [stored(tenant) for _ in range(4)]
    fail(events[0])
    fail(events[1])
    assert not failure_alerts().exists()
    fail(events[2])
    alert = failure_alerts().get()
    assert (alert.tenant, alert.subject, alert.severity) == (tenant, "webhooks:sandbox", "WARNING")
    with translation.override("en"):
        said = reasons.render(alert.message)
    assert said.startswith("3 sandbox webhook events failed to process in the last 15")
    assert said.endswith("Last error: RuntimeError: lead store unavailable")
    with translation.override("ro"):
        assert "Last error" not in reasons.render(alert.message)  # stored as a code
    fail(events[3])
    alert.refresh_from_db()
    assert alert.occurrences == 2 and _said(alert).startswith("4 sandbox")


def test_one_event_failing_again_and_again_counts_once(tenant, clock):
    event_id = stored(tenant)
    for _ in range(6):  # Dramatiq's retries
        fail(event_id)
    assert not failure_alerts().exists()


def test_old_failures_and_other_tenants_do_not_count(tenant, other_tenant, clock):
    fail(stored(tenant))
    fail(stored(other_tenant))
    WebhookEvent.objects.filter(tenant=tenant).update(received_at=T0 - timedelta(minutes=16))
    fail(stored(tenant))
    fail(stored(tenant))
    assert not failure_alerts().exists()


def test_many_failures_make_it_critical(tenant, clock):
    for _ in range(12):
        fail(stored(tenant))
    assert failure_alerts().get().severity == "CRITICAL"


def test_it_resolves_once_an_event_is_processed_after_the_last_failure(tenant, clock):
    events = [stored(tenant) for _ in range(3)]
    for event_id in events:
        fail(event_id)
    webhook_alerts.check()
    assert failure_alerts().get().resolved_at is None  # nothing succeeded yet

    clock.shift(timedelta(minutes=1))
    BrokenReceiver.failing = False
    assert process_event(events[0]) == "processed"  # the retry works
    webhook_alerts.check()
    assert failure_alerts().get().resolved_at == T0 + timedelta(minutes=1)


def test_a_success_before_the_last_failure_does_not_resolve_it(tenant, clock):
    BrokenReceiver.failing = False
    process_event(stored(tenant))
    BrokenReceiver.failing = True
    clock.shift(timedelta(seconds=1))
    for _ in range(3):
        fail(stored(tenant))
    webhook_alerts.check()
    assert failure_alerts().get().resolved_at is None


def test_raising_never_hides_the_events_own_failure(tenant, clock, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("alerts table locked")

    monkeypatch.setattr(webhook_alerts, "raise_alert", broken)
    events = [stored(tenant) for _ in range(3)]
    for event_id in events:
        fail(event_id)  # still the handler's RuntimeError, and still FAILED
    assert WebhookEvent.objects.filter(status="FAILED").count() == 3


def test_a_burst_of_refused_requests_raises_a_platform_alert_then_resolves(client, tenant, clock):
    for _ in range(3):
        assert client.post("/webhooks/sandbox/wrong-token/", b"{}", "application/json").status_code
    webhook_alerts.check()
    assert not failure_alerts().exists()
    client.post("/webhooks/sandbox/wrong-token/", b"{}", "application/json")
    webhook_alerts.check()
    alert = failure_alerts().get()
    assert (alert.tenant, alert.subject) == (None, "webhooks-rejected:sandbox")
    assert _said(alert).startswith("4 requests to /webhooks/sandbox/ were refused")

    clock.shift(timedelta(minutes=10))
    webhook_alerts.check()  # still within the window: stays open
    assert failure_alerts().get().resolved_at is None
    clock.shift(timedelta(minutes=6))
    webhook_alerts.check()
    assert failure_alerts().get().resolved_at is not None


def test_accepted_requests_are_not_counted(client, tenant, clock):
    raw = json.dumps({"type": "thing.happened", "id": "evt-ok"}).encode()
    for _ in range(5):
        client.post(f"/webhooks/sandbox/{tenant.webhook_token}/", raw, "application/json")
    assert webhook_alerts.rejected_recently("sandbox") == 0


def _said(alert: Alert) -> str:
    with translation.override("en"):
        return reasons.render(alert.message)
