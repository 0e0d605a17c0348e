"""`/metrics`: who may read it, what the platform counts (HTTP, database, Dramatiq per
queue and actor, scrape-time collectors), all in one exposition across processes."""

from __future__ import annotations

import uuid

import dramatiq
import pytest
from django.core.checks import run_checks
from django.test import Client

from cerniq.alerts import raise_alert
from cerniq.metrics import collectors
from cerniq.metrics.directory import is_multiprocess
from cerniq.models import Alert
from tests.drain import running_workers, wait_until
from tests.scrape import TOKEN, scrape, value

pytestmark = pytest.mark.django_db


def get(client: Client, **headers):
    return client.get("/metrics", **headers)


# --- who may read it --------------------------------------------------------------------


def test_without_token_or_networks_there_are_no_metrics(client, settings):
    settings.METRICS_TOKEN, settings.METRICS_ALLOWED_NETWORKS = "", []
    assert get(client).status_code == 404
    assert get(client, HTTP_AUTHORIZATION="Bearer anything").status_code == 404


def test_the_bearer_token_opens_them(client, settings):
    settings.METRICS_TOKEN, settings.METRICS_ALLOWED_NETWORKS = TOKEN, []
    response = get(client, HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain; version=")
    assert b"cerniq_collector_up" in response.content


@pytest.mark.parametrize(
    "authorization", [None, f"Bearer {TOKEN}x", f"Bearer {TOKEN[:-1]}", f"Basic {TOKEN}", TOKEN]
)
def test_a_missing_or_wrong_token_is_401(client, settings, authorization):
    settings.METRICS_TOKEN, settings.METRICS_ALLOWED_NETWORKS = TOKEN, []
    headers = {"HTTP_AUTHORIZATION": authorization} if authorization else {}
    response = get(client, **headers)
    assert response.status_code == 401 and response["WWW-Authenticate"].startswith("Bearer")
    assert b"cerniq_" not in response.content


def test_an_allowed_network_opens_them_without_a_token(client, settings):
    settings.METRICS_TOKEN = ""
    settings.METRICS_ALLOWED_NETWORKS = ["10.0.0.0/8", "fd00::/8"]
    assert get(client, REMOTE_ADDR="10.20.30.40").status_code == 200
    assert get(client, REMOTE_ADDR="fd00::7").status_code == 200
    assert get(client, REMOTE_ADDR="192.168.1.5").status_code == 403


def test_a_forwarded_header_does_not_move_the_caller_into_the_network(client, settings):
    settings.METRICS_TOKEN = ""
    settings.METRICS_ALLOWED_NETWORKS = ["10.0.0.0/8"]
    response = get(client, REMOTE_ADDR="203.0.113.9", HTTP_X_FORWARDED_FOR="10.0.0.1")
    assert response.status_code == 403


def test_token_or_network_either_is_enough(client, settings):
    settings.METRICS_TOKEN, settings.METRICS_ALLOWED_NETWORKS = TOKEN, ["10.0.0.0/8"]
    assert get(client, REMOTE_ADDR="10.0.0.9").status_code == 200
    assert get(client, REMOTE_ADDR="203.0.113.9").status_code == 401
    ok = get(client, REMOTE_ADDR="203.0.113.9", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert ok.status_code == 200


def test_only_get(client, settings):
    settings.METRICS_TOKEN = TOKEN
    response = client.post("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 405


def test_scrapers_reach_them_by_internal_address(client, settings):
    settings.ALLOWED_HOSTS, settings.SECURE_SSL_REDIRECT = ["outreach.example.ro"], True
    settings.METRICS_TOKEN = TOKEN
    response = get(client, HTTP_HOST="web:8000", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 200


def test_bad_access_settings_are_named_by_system_checks(settings):
    settings.METRICS_ALLOWED_NETWORKS = ["10.0.0.0/8", "intranet"]
    settings.METRICS_TOKEN = "short"
    found = {message.id: message.msg for message in run_checks()}
    assert "'intranet' is not an IP network" in found["cerniq.metrics.E001"]
    assert "METRICS_TOKEN has 5 characters" in found["cerniq.metrics.W001"]


# --- what the platform counts -----------------------------------------------------------


def test_the_test_run_writes_multiprocess_files():
    assert is_multiprocess()


def test_http_requests_are_counted_by_view_name_never_by_path(client, settings):
    before = scrape(client, settings)
    for _ in range(2):
        assert client.get("/login/").status_code == 200
    assert client.post("/webhooks/nosuch/SeCrEtToKeN123/", b"{}", "application/json").status_code
    after = scrape(client, settings)
    labels = {"method": "GET", "view": "login", "status": "200"}
    counted = value(after, "cerniq_http_requests_total", **labels) - value(
        before, "cerniq_http_requests_total", **labels
    )
    assert counted == 2
    assert value(after, "cerniq_http_request_duration_seconds_count", method="GET", view="login")
    exposition = str(after)
    assert "webhook-intake" in exposition and "SeCrEtToKeN123" not in exposition


def test_database_statements_are_timed(client, settings):
    before = scrape(client, settings)
    Alert.objects.count()
    Alert.objects.count()
    after = scrape(client, settings)
    name, labels = "cerniq_db_query_duration_seconds_count", {"alias": "default"}
    assert (
        value(after, name, statement="SELECT", **labels)
        - value(before, name, statement="SELECT", **labels)
        >= 2
    )


def test_a_failing_collector_is_reported_and_the_others_still_answer(client, settings):
    def broken():
        raise RuntimeError("database gone")

    collectors.register("broken", broken)
    try:
        samples = scrape(client, settings)
    finally:
        collectors._collectors.pop("broken")
    assert value(samples, "cerniq_collector_up", collector="broken") == 0
    assert value(samples, "cerniq_collector_up", collector="platform") == 1
    assert value(samples, "cerniq_collector_up", collector="outreach") == 1


def test_open_alerts_by_kind_and_severity(client, settings, tenant):
    raise_alert(tenant, Alert.Kind.QUOTA_EXHAUSTED, "phone:1", "x")
    raise_alert(tenant, Alert.Kind.QUOTA_EXHAUSTED, "phone:2", "y")
    raise_alert(None, Alert.Kind.WORKER_DOWN, "queue-group:wa", "z", severity="CRITICAL")
    samples = scrape(client, settings)
    assert value(samples, "cerniq_alerts_open", kind="QUOTA_EXHAUSTED", severity="WARNING") == 2
    assert value(samples, "cerniq_alerts_open", kind="WORKER_DOWN", severity="CRITICAL") == 1


# --- Dramatiq, per queue and actor ------------------------------------------------------

FLAKY_RUNS: list[str] = []


@dramatiq.actor(
    queue_name="default", actor_name="metrics_test_flaky", max_retries=1, min_backoff=10
)
def flaky(key: str) -> None:
    FLAKY_RUNS.append(key)
    if FLAKY_RUNS.count(key) == 1:
        raise RuntimeError("the first attempt fails")


@dramatiq.actor(queue_name="default", actor_name="metrics_test_doomed", max_retries=0)
def doomed() -> None:
    raise RuntimeError("this one always fails")


def delta(before, after, name: str, /, **labels: str) -> float:
    return value(after, name, **labels) - value(before, name, **labels)


def test_queue_metrics_from_a_real_worker(client, settings):
    dramatiq.get_broker().flush_all()  # nothing of an earlier test's runs on the queue
    before = scrape(client, settings)
    key = uuid.uuid4().hex
    flaky.send(key)
    doomed.send()
    dead = {"queue": "default", "actor": "metrics_test_doomed"}
    with running_workers():
        wait_until(
            lambda: FLAKY_RUNS.count(key) == 2
            and delta(
                before, scrape(client, settings), "cerniq_dramatiq_messages_dead_total", **dead
            )
            and delta(
                before,
                scrape(client, settings),
                "cerniq_dramatiq_messages_processed_total",
                queue="default",
                actor="metrics_test_flaky",
            ),
            timeout=30,
        )
    after = scrape(client, settings)
    ok = {"queue": "default", "actor": "metrics_test_flaky"}
    # Sent once; failed, retried (after its back-off on the delay queue: not a new message),
    # then processed.
    assert delta(before, after, "cerniq_dramatiq_messages_enqueued_total", **ok) == 1
    assert delta(before, after, "cerniq_dramatiq_messages_failed_total", **ok) == 1
    assert delta(before, after, "cerniq_dramatiq_messages_retried_total", **ok) == 1
    assert delta(before, after, "cerniq_dramatiq_messages_processed_total", **ok) == 1
    assert delta(before, after, "cerniq_dramatiq_message_duration_seconds_count", **ok) == 2
    assert value(after, "cerniq_dramatiq_messages_in_flight", **ok) == 0
    # Never retried: failed once, then dead.
    assert delta(before, after, "cerniq_dramatiq_messages_enqueued_total", **dead) == 1
    assert delta(before, after, "cerniq_dramatiq_messages_failed_total", **dead) == 1
    assert delta(before, after, "cerniq_dramatiq_messages_dead_total", **dead) == 1
    assert delta(before, after, "cerniq_dramatiq_messages_processed_total", **dead) == 0
    # Three runs started on the queue, each with its wait measured.
    assert delta(before, after, "cerniq_dramatiq_message_wait_seconds_count", queue="default") == 3
