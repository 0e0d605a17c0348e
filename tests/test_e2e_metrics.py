"""Through the real doors: a TimelinesAI reply posted to the webhook intake, processed by
the worker's function, shows in /metrics (intake by provider and outcome, processing,
triage, the review item it opened)."""

from __future__ import annotations

import pytest

from cerniq.models import WebhookEvent
from cerniq.webhooks import process_event
from tests.drain import run_triage
from tests.scrape import scrape, value
from tests.whatsapp.conftest import WEBHOOK_FIXTURES, contacted_over_whatsapp

pytestmark = pytest.mark.django_db

INTAKE = "cerniq_webhook_requests_total"


@pytest.fixture
def contacted(tenant):
    return contacted_over_whatsapp(tenant)


def post(client, path: str, body: bytes):
    return client.post(path, body, content_type="application/json")


def test_a_real_webhook_is_counted_from_intake_to_review(client, settings, tenant, contacted):
    reply = (WEBHOOK_FIXTURES / "message_received_new__text.json").read_bytes()
    hook = f"/webhooks/timelinesai/{tenant.webhook_token}/"
    before = scrape(client, settings)
    assert post(client, hook, reply).json()["status"] == "accepted"
    assert post(client, hook, reply).json()["status"] == "duplicate"
    # A wrong token is a 404 at this door (nothing tells a guesser the provider exists).
    assert post(client, "/webhooks/timelinesai/not-the-token/", reply).status_code == 404
    assert post(client, hook, b'{"event_type": ').status_code == 400
    assert post(client, f"/webhooks/nosuch/{tenant.webhook_token}/", reply).status_code == 404
    waiting = scrape(client, settings)
    (event,) = WebhookEvent.objects.filter(status="RECEIVED")
    assert process_event(event.pk) == "processed"
    assert run_triage() != ["skipped"]  # the ai.triage workers
    after = scrape(client, settings)

    def counted(name, samples=after, **labels):
        return value(samples, name, **labels) - value(before, name, **labels)

    for outcome in ("accepted", "duplicate", "unauthorized", "malformed"):
        assert counted(INTAKE, provider="timelinesai", status=outcome) == 1, outcome
    assert counted(INTAKE, provider="unknown", status="unknown_provider") == 1
    assert tenant.webhook_token not in str(after)  # an unknown segment never becomes a label
    # Stored and waiting for a worker, then processed.
    assert value(waiting, "cerniq_webhook_events", provider="timelinesai", status="received") == 1
    assert value(after, "cerniq_webhook_events", provider="timelinesai", status="received") == 0
    processed = "cerniq_webhook_events_processed_total"
    assert counted(processed, provider="timelinesai", outcome="processed") == 1
    # The reply was triaged and is now in front of a person.
    assert counted("cerniq_triage_duration_seconds_count", backend="offline", fell_back="false")
    # Interest with a price question: an urgent item (priority follows value and risk).
    assert value(after, "cerniq_review_open_items", tenant=tenant.slug, priority="urgent") == 1
    assert value(after, "cerniq_review_sla_breaches", tenant=tenant.slug, priority="high") == 0
