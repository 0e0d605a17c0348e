"""Liveness and readiness: 503 naming the component for each dead part (the database,
Redis, a queue group's worker, the scheduler), the heartbeats that feed them, the
WORKER_DOWN alert, and `manage.py health`."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import OperationalError, connections
from django.utils import timezone

from cerniq import heartbeats
from cerniq.embedded import EmbeddedRuntime
from cerniq.health import is_ready, readiness
from cerniq.heartbeats import QUEUE_KEY, SCHEDULER_KEY, queue_groups
from cerniq.models import Alert
from tests.drain import running_workers, wait_until

pytestmark = pytest.mark.django_db

# What the actors declare today.
GROUPS = ["ai", "alerts", "default", "email", "outreach", "wa", "webhooks"]


def all_queues() -> list[str]:
    return [queue for queues in queue_groups().values() for queue in queues]


def forget_beats() -> None:
    cache.delete_many([SCHEDULER_KEY, *(QUEUE_KEY.format(queue=q) for q in all_queues())])


def beat_queue(queue: str, age: timedelta = timedelta(0)) -> None:
    cache.set(QUEUE_KEY.format(queue=queue), timezone.now() - age, timeout=None)


def beat_scheduler(age: timedelta = timedelta(0), running: timedelta = timedelta(hours=1)):
    now = timezone.now()
    cache.set(SCHEDULER_KEY, {"at": now - age, "since": now - running}, timeout=None)


@pytest.fixture
def all_beating():
    """Every queue and the scheduler beat a moment ago."""
    forget_beats()
    beat_scheduler()
    for queue in all_queues():
        beat_queue(queue)
    yield
    forget_beats()


def ready(client):
    response = client.get("/health/ready")
    return response.status_code, response.json()


def test_the_queue_groups_are_the_declared_queues_by_first_name_part():
    groups = queue_groups()
    assert sorted(groups) == GROUPS
    assert groups["wa"][:2] == ["wa.phone_01", "wa.phone_02"] and "wa.status" in groups["wa"]
    assert groups["email"] == ["email.cold", "email.warm"]


def test_ready_is_200_and_names_every_component(client, all_beating):
    status, body = ready(client)
    assert status == 200 and body["status"] == "ok"
    expected = {"database", "broker", "scheduler", *(f"worker:{group}" for group in GROUPS)}
    assert set(body["components"]) == expected
    assert all(component["status"] == "ok" for component in body["components"].values())
    assert body["components"]["worker:wa"]["queues"] == len(queue_groups()["wa"])


def test_health_answers_as_ready(client, all_beating):
    response = client.get("/health")
    assert response.status_code == 200 and response.json() == ready(client)[1]


def test_live_asks_nothing_even_with_the_database_down(client, monkeypatch):
    forget_beats()

    def refuse():
        raise OperationalError("could not connect to server")

    monkeypatch.setattr(connections["default"], "ensure_connection", refuse)
    response = client.get("/health/live")
    assert response.status_code == 200 and response.json() == {"status": "ok"}


def test_database_down_is_503_naming_it(client, all_beating, monkeypatch):
    def refuse():
        raise OperationalError('connection to server at "db.internal" (10.0.0.5) refused')

    monkeypatch.setattr(connections["default"], "ensure_connection", refuse)
    status, body = ready(client)
    assert status == 503 and body["status"] == "unavailable"
    assert body["components"]["database"] == {"status": "down", "error": "OperationalError"}
    assert body["components"]["broker"]["status"] == "ok"  # the others still say their state
    assert "db.internal" not in str(body)  # only the class of the error leaves


def test_redis_down_is_503_naming_the_broker(client, all_beating, settings):
    settings.DRAMATIQ_BROKER = {
        **settings.DRAMATIQ_BROKER,
        "OPTIONS": {"url": "redis://127.0.0.1:1/0"},  # nothing listens there
    }
    status, body = ready(client)
    assert status == 503
    assert body["components"]["broker"]["status"] == "down"
    assert body["components"]["broker"]["error"] == "ConnectionError"
    assert body["components"]["database"]["status"] == "ok"


@pytest.mark.parametrize("group", GROUPS)
def test_a_stale_queue_group_is_503_naming_its_queue(client, all_beating, group):
    queue = queue_groups()[group][-1]
    beat_queue(queue, age=timedelta(seconds=181))
    status, body = ready(client)
    assert status == 503
    component = body["components"][f"worker:{group}"]
    assert component["status"] == "stale" and component["stale_queues"] == [queue]
    assert component["age_seconds"] >= 181 and component["threshold_seconds"] == 180
    others = {name: c["status"] for name, c in body["components"].items()}
    del others[f"worker:{group}"]
    assert set(others.values()) == {"ok"}


@pytest.mark.parametrize("group", GROUPS)
def test_a_queue_group_that_never_beat_is_503(client, all_beating, group):
    queue = queue_groups()[group][0]
    cache.delete(QUEUE_KEY.format(queue=queue))
    status, body = ready(client)
    assert status == 503
    component = body["components"][f"worker:{group}"]
    assert component["status"] == "missing" and component["missing_queues"] == [queue]


def test_the_stale_threshold_is_a_setting(client, all_beating, settings):
    beat_queue("default", age=timedelta(seconds=300))
    assert ready(client)[0] == 503
    settings.HEALTH_WORKER_STALE_SECONDS = 600
    assert ready(client)[0] == 200


def test_a_stale_scheduler_is_503(client, all_beating):
    beat_scheduler(age=timedelta(seconds=181))
    status, body = ready(client)
    assert status == 503 and body["components"]["scheduler"]["status"] == "stale"


def test_no_scheduler_heartbeat_is_503(client, all_beating):
    cache.delete(SCHEDULER_KEY)
    status, body = ready(client)
    assert status == 503 and body["components"]["scheduler"]["status"] == "missing"


def test_probes_answer_by_internal_address_over_plain_http(client, all_beating, settings):
    settings.ALLOWED_HOSTS = ["outreach.example.ro"]
    settings.SECURE_SSL_REDIRECT = True
    for path in ("/health/live", "/health/ready", "/health"):
        assert client.get(path, HTTP_HOST="10.0.3.7:8000").status_code == 200
    assert client.get("/login/", HTTP_HOST="10.0.3.7:8000").status_code == 400  # the rest: no


# --- the heartbeats themselves ----------------------------------------------------------


def test_a_scheduler_beat_reaches_every_queue_through_a_real_worker():
    forget_beats()
    sent = heartbeats.beat()
    assert sent == len(all_queues())
    assert heartbeats.scheduler_beat().state == "ok"
    with running_workers():
        wait_until(
            lambda: all(b.state == "ok" for b in heartbeats.worker_beats()),
            timeout=30,
            what=lambda: heartbeats.worker_beats(),
        )
    assert is_ready(readiness(["scheduler", "workers"]))
    forget_beats()


def test_embedded_mode_is_ready_once_its_worker_and_scheduler_run(settings):
    forget_beats()
    # Only the heartbeat job: the others would run against the test database meanwhile.
    settings.PERIODIC_JOBS = [job for job in settings.PERIODIC_JOBS if job["name"] == "heartbeat"]
    assert not is_ready(readiness())
    runtime = EmbeddedRuntime(worker_threads=1, with_scheduler=True)
    runtime.start()
    try:
        wait_until(lambda: is_ready(readiness()), timeout=30, what=lambda: readiness())
    finally:
        runtime.stop()
        forget_beats()


# --- WORKER_DOWN ------------------------------------------------------------------------


def worker_alerts():
    return Alert.objects.filter(kind=Alert.Kind.WORKER_DOWN, tenant=None)


def test_a_stale_group_raises_worker_down_and_a_fresh_beat_resolves_it(all_beating):
    beat_queue("wa.phone_07", age=timedelta(minutes=10))
    states = heartbeats.watch_workers()
    assert states["wa"] == "stale" and states["default"] == "ok"
    alert = worker_alerts().get(resolved_at__isnull=True)
    assert alert.subject == "queue-group:wa" and alert.severity == Alert.Severity.CRITICAL
    assert "wa.phone_07" in alert.message
    heartbeats.watch_workers()
    assert worker_alerts().get().occurrences == 2  # still one alert, counted again
    beat_queue("wa.phone_07")
    heartbeats.watch_workers()
    assert worker_alerts().get().resolved_at is not None


def test_no_beat_yet_right_after_the_scheduler_started_is_not_an_alert(all_beating):
    cache.delete(QUEUE_KEY.format(queue="webhooks"))
    beat_scheduler(running=timedelta(seconds=30))
    assert heartbeats.watch_workers()["webhooks"] == "missing"
    assert not worker_alerts().exists()
    beat_scheduler(running=timedelta(minutes=10))
    heartbeats.watch_workers()
    assert worker_alerts().get().subject == "queue-group:webhooks"


# --- manage.py health -------------------------------------------------------------------


def test_health_command_passes_when_ready(all_beating, capsys):
    call_command("health", "scheduler", "workers")
    assert '"worker:wa"' in capsys.readouterr().out


def test_health_command_fails_naming_the_component(all_beating, capsys):
    cache.delete(SCHEDULER_KEY)
    with pytest.raises(CommandError, match=r"not ready: scheduler$"):
        call_command("health", "scheduler", "database")
    assert '"missing"' in capsys.readouterr().out


def test_health_command_refuses_an_unknown_check():
    with pytest.raises(CommandError, match="unknown health check.*: workerz; known: database"):
        call_command("health", "workerz")


# --- docker-compose.yml uses them -------------------------------------------------------


def test_compose_checks_each_process_and_waits_for_migrations():
    from pathlib import Path

    import yaml
    from django.conf import settings

    compose = yaml.safe_load((Path(settings.BASE_DIR) / "docker-compose.yml").read_text())
    services = compose["services"]
    assert "/health/ready" in " ".join(services["web"]["healthcheck"]["test"])
    assert services["worker"]["healthcheck"]["test"][-4:] == [
        "health",
        "database",
        "broker",
        "workers",
    ]
    assert services["scheduler"]["healthcheck"]["test"][-2:] == ["health", "scheduler"]
    for name in ("worker", "scheduler"):
        command = services[name]["command"]
        assert command.index("wait_for_migrations") < command.index("exec python manage.py")
    for name in ("web", "worker", "scheduler"):  # one metrics directory for all processes
        assert "metrics:/app/var/prometheus" in services[name]["volumes"]
