"""Health: is this process up (liveness), and can the product do its work (readiness).

- `/health/live`: the process answers; nothing else is asked (a restart cures only this).
- `/health/ready` (and `/health`, for older probes): the database answers, Redis (the
  broker) answers, a worker has consumed every queue group recently, the scheduler beat
  recently (cerniq.heartbeats). 200 when all are fine, else 503; either way the body names
  each component and its state:

      {"status": "unavailable", "components": {"database": {"status": "ok"},
       "broker": {"status": "down", "error": "ConnectionError"}, "scheduler": {...},
       "worker:wa": {"status": "missing", "missing_queues": ["wa.phone_03"], ...}}}

Errors are named by their exception class only: hosts, users and URLs never leave.
`manage.py health` runs the same checks (docker-compose healthchecks).
The probes are answered by `ProbeMiddleware`, first in MIDDLEWARE, before host validation
and the HTTPS redirect: orchestrators and scrapers call them by internal address.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime

import dramatiq
import redis
from django.conf import settings
from django.db import connections
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils import timezone

from cerniq import heartbeats

OK, DOWN = "ok", "down"
CHECK_TIMEOUT_SECONDS = 3.0

Report = dict[str, dict[str, object]]


def check_database() -> dict[str, object]:
    try:
        with connections["default"].cursor() as cursor:
            cursor.execute("SELECT 1")
    except Exception as exc:  # noqa: BLE001 - any failure means down
        return {"status": DOWN, "error": type(exc).__name__}
    return {"status": OK}


def check_broker() -> dict[str, object]:
    """Redis answers a PING on the broker's URL; the StubBroker (embedded mode) lives in
    this process and is up when the process is."""
    broker = dramatiq.get_broker()
    name = type(broker).__name__
    url = settings.DRAMATIQ_BROKER.get("OPTIONS", {}).get("url")
    if not url:
        return {"status": OK, "broker": name}
    client = redis.Redis.from_url(
        url, socket_timeout=CHECK_TIMEOUT_SECONDS, socket_connect_timeout=CHECK_TIMEOUT_SECONDS
    )
    try:
        client.ping()
    except Exception as exc:  # noqa: BLE001
        return {"status": DOWN, "broker": name, "error": type(exc).__name__}
    finally:
        client.close()
    return {"status": OK, "broker": name}


def check_scheduler(now: datetime) -> dict[str, object]:
    try:
        return heartbeats.scheduler_beat(now).as_dict()
    except Exception as exc:  # noqa: BLE001 - the cache (Redis) failed
        return {"status": "unknown", "error": type(exc).__name__}


def check_workers(now: datetime) -> Report:
    try:
        return {f"worker:{beat.group}": beat.as_dict() for beat in heartbeats.worker_beats(now)}
    except Exception as exc:  # noqa: BLE001
        return {"worker:*": {"status": "unknown", "error": type(exc).__name__}}


CHECKS: dict[str, Callable[[datetime], Report]] = {
    "database": lambda now: {"database": check_database()},
    "broker": lambda now: {"broker": check_broker()},
    "scheduler": lambda now: {"scheduler": check_scheduler(now)},
    "workers": check_workers,
}


def readiness(only: Iterable[str] | None = None, now: datetime | None = None) -> Report:
    """Each component's state; `only` names the checks to run (CHECKS' keys)."""
    now = now or timezone.now()
    names = list(CHECKS) if only is None else list(only)
    unknown = sorted(set(names) - set(CHECKS))
    if unknown:
        known = ", ".join(CHECKS)
        raise ValueError(f"unknown health check(s): {', '.join(unknown)}; known: {known}")
    report: Report = {}
    for name in names:
        report.update(CHECKS[name](now))
    return report


def is_ready(report: Report) -> bool:
    return all(component["status"] == OK for component in report.values())


def live(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"status": OK})


def ready(request: HttpRequest) -> JsonResponse:
    report = readiness()
    ok = is_ready(report)
    return JsonResponse(
        {"status": OK if ok else "unavailable", "components": report}, status=200 if ok else 503
    )


PROBES: dict[str, Callable[[HttpRequest], HttpResponse]] = {
    "/health/live": live,
    "/health/ready": ready,
    "/health": ready,
}


class ProbeMiddleware:
    """Answers GET/HEAD of the probes (and `/metrics`, which checks its own access) before
    the rest of the stack: a probe by internal address (`http://10.0.3.7:8000/health/live`)
    must not be refused as a disallowed host or redirected to HTTPS."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        path = request.path_info.rstrip("/") or "/"
        if path == "/metrics":
            from cerniq.metrics.views import metrics

            response = metrics(request)
        elif path in PROBES and request.method in ("GET", "HEAD"):
            response = PROBES[path](request)
        else:
            return self.get_response(request)
        response["Cache-Control"] = "no-store"
        return response
