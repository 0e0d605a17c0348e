"""Outgoing webhooks (cerniq.outbound): the outbox, Standard Webhooks signatures, retries
with back-off, one delivery under retries and concurrent workers, 410. The receiver is a
real HTTP server on 127.0.0.1 (tests/alert_receiver.py); where deliveries may go is
test_outbound_webhook_guard.py."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.db import connection, transaction
from svix.webhooks import Webhook

from cerniq.models import WebhookDelivery, WebhookEndpoint
from cerniq.outbound import delivery, endpoints, events
from cerniq.outbound.delivery import MAX_ATTEMPTS, RETRY_SCHEDULE, deliver, deliver_due
from tests.concurrency import run_at_once
from tests.drain import running_workers, wait_until
from tests.factories import make_tenant, make_webhook_endpoint
from tests.scrape import scrape, series, value

T0 = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)
Status = WebhookDelivery.Status


@pytest.fixture(autouse=True)
def local_receivers_allowed(settings):
    settings.OUTBOUND_ALLOW_LOCAL_TARGETS = True


@pytest.fixture
def clock():
    with time_machine.travel(T0, tick=False) as traveller:
        yield traveller


def make_endpoint(tenant, receiver, events_=("lead.stage_changed",), **kw) -> WebhookEndpoint:
    return make_webhook_endpoint(
        tenant, receiver.url("http", "/hooks/cerniq"), events=events_, **kw
    )


def emit_one(tenant, event_type="lead.stage_changed", **data) -> WebhookDelivery:
    with transaction.atomic():
        (delivery_id,) = events.emit(tenant.pk, event_type, data or {"lead_id": 7})
    return WebhookDelivery.objects.get(pk=delivery_id)


def test_a_delivery_is_signed_the_standard_webhooks_way_and_svix_verifies_it(
    tenant, alert_receiver, clock
):
    endpoint = make_endpoint(tenant, alert_receiver)
    row = emit_one(tenant, lead_id=7, from_stage="CONTACTED", to_stage="WARM_REPLY")

    assert deliver(row.pk) == Status.DELIVERED

    (received,) = alert_receiver.received
    assert received.path == "/hooks/cerniq"
    assert received.content_type == "application/json"
    assert received.headers["user-agent"].startswith("Cerniq-Webhooks/")
    assert received.headers["webhook-id"] == row.event_id
    assert received.headers["webhook-id"].startswith("msg_")
    assert received.headers["webhook-timestamp"] == str(int(T0.timestamp()))
    Webhook(endpoint.secret).verify(received.body, received.headers)  # raises if it is not
    assert received.json == {
        "id": row.event_id,
        "type": "lead.stage_changed",
        "created_at": "2026-03-02T08:00:00Z",
        "tenant": "agro-demo",
        "data": {"lead_id": 7, "from_stage": "CONTACTED", "to_stage": "WARM_REPLY"},
    }
    # Another secret does not verify it: the signature is the endpoint's own.
    with pytest.raises(Exception, match="signature"):
        Webhook(endpoints.new_secret()).verify(received.body, received.headers)
    row.refresh_from_db()
    endpoint.refresh_from_db()
    assert (row.status, row.attempts, row.last_status_code) == (Status.DELIVERED, 1, 200)
    assert row.delivered_at == T0 and endpoint.last_success_at == T0
    assert row.last_response_excerpt == "ok"


def test_a_500_is_retried_after_the_back_off_then_delivered_once_with_the_same_id(
    tenant, alert_receiver, clock, client, settings
):
    endpoint = make_endpoint(tenant, alert_receiver)
    before = scrape(client, settings)
    alert_receiver.statuses = [500]
    row = emit_one(tenant)

    assert deliver(row.pk) == Status.PENDING
    row.refresh_from_db()
    assert (row.status, row.attempts, row.last_status_code) == (Status.PENDING, 1, 500)
    assert row.next_attempt_at == T0 + RETRY_SCHEDULE[0]
    assert deliver_due() == 0  # not due yet: nothing sent
    assert len(alert_receiver.received) == 1

    clock.move_to(T0 + RETRY_SCHEDULE[0])
    assert deliver_due() == 1
    first, second = alert_receiver.received
    assert first.headers["webhook-id"] == second.headers["webhook-id"] == row.event_id
    assert first.json == second.json  # the same event
    Webhook(endpoint.secret).verify(second.body, second.headers)
    clock.shift(timedelta(hours=30))
    assert deliver_due() == 0  # delivered: never sent again
    assert deliver(row.pk) is None  # nor by a late actor message
    assert len(alert_receiver.received) == 2
    row.refresh_from_db()
    assert (row.status, row.attempts, row.last_status_code) == (Status.DELIVERED, 2, 200)
    after = scrape(client, settings)
    for outcome in ("retry", "delivered"):
        counted = "cerniq_outbound_webhook_attempts_total"
        assert value(after, counted, outcome=outcome) - value(before, counted, outcome=outcome) == 1
    endpoint.refresh_from_db()
    assert endpoint.last_failure_at == T0 and endpoint.last_success_at is not None


def test_the_back_off_schedule_then_failed_after_the_last_attempt(tenant, alert_receiver, clock):
    assert [d.total_seconds() for d in RETRY_SCHEDULE] == [
        5, 30, 120, 600, 1800, 3600, 10800, 21600
    ]  # fmt: skip
    make_endpoint(tenant, alert_receiver)
    alert_receiver.status = 503
    row = emit_one(tenant)
    now = T0
    for attempt in range(1, MAX_ATTEMPTS + 1):
        assert deliver_due() == 0
        row.refresh_from_db()
        assert row.attempts == attempt
        if attempt < MAX_ATTEMPTS:
            assert row.status == Status.PENDING
            assert row.next_attempt_at == now + RETRY_SCHEDULE[attempt - 1]
            clock.move_to(row.next_attempt_at - timedelta(seconds=1))
            assert deliver_due() == 0 and len(alert_receiver.received) == attempt  # not yet
            now = row.next_attempt_at
            clock.move_to(now)
    assert row.status == Status.FAILED and row.next_attempt_at is None
    assert len(alert_receiver.received) == MAX_ATTEMPTS
    clock.shift(timedelta(days=2))
    assert deliver_due() == 0 and len(alert_receiver.received) == MAX_ATTEMPTS


def test_a_timeout_is_retried_and_says_so(tenant, alert_receiver, clock, monkeypatch):
    monkeypatch.setattr(delivery, "TIMEOUT", (3, 0.2))
    alert_receiver.delay = 0.5
    make_endpoint(tenant, alert_receiver)
    row = emit_one(tenant)
    assert deliver(row.pk) == Status.PENDING
    row.refresh_from_db()
    assert row.last_status_code is None and "Timeout" in row.last_error


def test_410_gone_disables_the_endpoint_and_fails_the_row(tenant, alert_receiver, clock):
    endpoint = make_endpoint(tenant, alert_receiver)
    alert_receiver.status = 410
    row = emit_one(tenant)
    later = emit_one(tenant)

    assert deliver(row.pk) == Status.FAILED
    endpoint.refresh_from_db()
    assert not endpoint.enabled and endpoint.disabled_reason == WebhookEndpoint.DisabledBy.GONE
    assert "410" in endpoint.disabled_reason_text
    clock.shift(timedelta(hours=1))
    assert deliver_due() == 0 and len(alert_receiver.received) == 1  # the other row waits
    later.refresh_from_db()
    assert later.status == Status.PENDING
    assert events.emit(tenant.pk, "lead.stage_changed", {"lead_id": 1}) == []  # none owed


def test_a_claimed_row_is_not_taken_twice_until_its_claim_runs_out(tenant, alert_receiver, clock):
    make_endpoint(tenant, alert_receiver)
    row = emit_one(tenant)
    assert delivery._claim(row.pk, T0)
    assert not delivery._claim(row.pk, T0)
    assert deliver(row.pk) is None and deliver_due() == 0
    assert alert_receiver.received == []
    # The worker that held it died: after the claim another one sends it (at least once).
    clock.move_to(T0 + delivery.CLAIM_FOR)
    assert deliver_due() == 1
    row.refresh_from_db()
    assert row.attempts == 2 and row.status == Status.DELIVERED


@pytest.mark.django_db(transaction=True)
def test_two_workers_running_at_once_deliver_each_event_once(alert_receiver, settings):
    settings.OUTBOUND_ALLOW_LOCAL_TARGETS = True
    tenant = make_tenant()
    make_endpoint(tenant, alert_receiver)
    rows = [emit_one(tenant, lead_id=n) for n in range(5)]
    alert_receiver.delay = 0.1  # both runs are inside their POSTs at the same time
    run_at_once(2, deliver_due)  # fails on an error in either run
    ids = sorted(r.headers["webhook-id"] for r in alert_receiver.received)
    assert ids == sorted(row.event_id for row in rows)
    assert set(WebhookDelivery.objects.values_list("status", "attempts")) == {(Status.DELIVERED, 1)}


@pytest.mark.django_db(transaction=True)
def test_a_worker_delivers_as_soon_as_the_change_commits(alert_receiver, settings):
    settings.OUTBOUND_ALLOW_LOCAL_TARGETS = True
    tenant = make_tenant()
    make_endpoint(tenant, alert_receiver)
    with running_workers():
        row = emit_one(tenant)
        wait_until(lambda: alert_receiver.received, timeout=30, what="the delivery")
        wait_until(
            lambda: WebhookDelivery.objects.get(pk=row.pk).status == Status.DELIVERED,
            timeout=30,
        )
    assert len(alert_receiver.received) == 1


def test_nothing_is_owed_when_the_change_rolls_back(tenant, alert_receiver):
    make_endpoint(tenant, alert_receiver)
    with pytest.raises(RuntimeError), transaction.atomic():
        events.emit(tenant.pk, "lead.stage_changed", {"lead_id": 1})
        raise RuntimeError("the stage change failed")
    assert not WebhookDelivery.objects.exists()


def test_only_the_tenants_enabled_endpoints_subscribed_to_the_event_get_it(
    tenant, other_tenant, alert_receiver
):
    wanted = make_endpoint(tenant, alert_receiver, ("lead.replied", "lead.stage_changed"))
    make_endpoint(tenant, alert_receiver, ("lead.opted_out",))
    make_endpoint(tenant, alert_receiver, ("lead.stage_changed",), enabled=False)
    make_endpoint(other_tenant, alert_receiver, ("lead.stage_changed",))
    row = emit_one(tenant)
    assert list(WebhookDelivery.objects.values_list("endpoint", flat=True)) == [wanted.pk]
    assert row.tenant_id == tenant.pk and row.payload["tenant"] == tenant.slug


def test_an_unknown_event_is_refused(tenant):
    with pytest.raises(events.UnknownEvent):
        events.emit(tenant.pk, "lead.exploded", {})


def test_redeliver_sends_a_failed_row_again_under_the_same_id(tenant, alert_receiver, clock):
    make_endpoint(tenant, alert_receiver)
    alert_receiver.status = 400
    row = emit_one(tenant)
    for _ in range(MAX_ATTEMPTS):
        deliver_due()
        clock.shift(timedelta(hours=7))
    row.refresh_from_db()
    assert row.status == Status.FAILED
    alert_receiver.status = 204
    delivery.redeliver(row)
    assert deliver_due() == 1
    assert alert_receiver.received[-1].headers["webhook-id"] == row.event_id


def test_a_periodic_run_over_its_time_budget_leaves_the_rest_to_the_next(
    tenant, alert_receiver, clock, monkeypatch
):
    make_endpoint(tenant, alert_receiver)
    rows = [emit_one(tenant, lead_id=n) for n in range(3)]
    monkeypatch.setattr(delivery, "RUN_BUDGET", timedelta(seconds=-1))  # spent at once
    assert deliver_due() == 0 and alert_receiver.received == []
    monkeypatch.undo()
    assert deliver_due() == 3
    assert {r.headers["webhook-id"] for r in alert_receiver.received} == {
        row.event_id for row in rows
    }


@pytest.mark.django_db(transaction=True)
def test_of_many_workers_claiming_one_row_at_the_same_moment_exactly_one_wins(
    alert_receiver, settings
):
    settings.OUTBOUND_ALLOW_LOCAL_TARGETS = True
    make_endpoint(tenant := make_tenant(), alert_receiver)
    row = emit_one(tenant)
    now = row.next_attempt_at
    barrier = threading.Barrier(6)
    wins: list[bool] = []

    def claim() -> None:
        try:
            barrier.wait()
            wins.append(delivery._claim(row.pk, now))
        finally:
            connection.close()

    threads = [threading.Thread(target=claim) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(wins) == [False] * 5 + [True]
    assert WebhookDelivery.objects.get().attempts == 1


def test_purge_deletes_only_deliveries_done_before_the_retention(tenant, settings, clock):
    settings.OUTBOUND_WEBHOOK_RETENTION_DAYS = 30
    endpoint = make_endpoint(tenant, _NoReceiver())
    rows = {name: emit_one(tenant) for name in ("old_ok", "old_failed", "owed", "new_ok")}
    long_ago = T0 - timedelta(days=31)
    for name, status, at in [
        ("old_ok", Status.DELIVERED, long_ago),
        ("old_failed", Status.FAILED, long_ago),
        ("owed", Status.PENDING, long_ago),  # still owed, however old: kept
        ("new_ok", Status.DELIVERED, T0 - timedelta(days=29)),
    ]:
        WebhookDelivery.objects.filter(pk=rows[name].pk).update(status=status, last_attempt_at=at)
    other = make_tenant(slug="other-co", name="Other Co")
    make_endpoint(other, _NoReceiver())
    theirs = emit_one(other)
    WebhookDelivery.objects.filter(pk=theirs.pk).update(
        status=Status.DELIVERED, last_attempt_at=long_ago
    )

    assert delivery.purge(batch=1) == 3  # in batches of one: the loop goes on
    kept = set(WebhookDelivery.objects.values_list("pk", flat=True))
    assert kept == {rows["owed"].pk, rows["new_ok"].pk}
    assert WebhookEndpoint.objects.filter(pk=endpoint.pk).exists()
    assert delivery.purge() == 0


def test_the_outbox_gauges_count_what_is_owed_and_its_age(tenant, client, settings, clock):
    make_endpoint(tenant, _NoReceiver(), events_=("lead.stage_changed", "lead.replied"))
    emit_one(tenant)
    clock.shift(timedelta(minutes=10))
    emit_one(tenant, "lead.replied")
    failed = emit_one(tenant)
    WebhookDelivery.objects.filter(pk=failed.pk).update(status=Status.FAILED)
    delivered = emit_one(tenant)
    WebhookDelivery.objects.filter(pk=delivered.pk).update(status=Status.DELIVERED)

    samples = scrape(client, settings)
    assert series(samples, "cerniq_outbound_webhook_deliveries") == {
        frozenset({("status", "pending")}): 2,
        frozenset({("status", "failed")}): 1,
    }
    assert value(samples, "cerniq_outbound_webhook_oldest_owed_seconds") == 600
    WebhookDelivery.objects.filter(status=Status.PENDING).update(status=Status.DELIVERED)
    assert ("cerniq_outbound_webhook_oldest_owed_seconds", frozenset()) not in scrape(
        client, settings
    )


class _NoReceiver:
    """An endpoint URL nothing answers at: these tests never send."""

    def url(self, scheme: str, path: str) -> str:
        return f"{scheme}://127.0.0.1:9{path}"
