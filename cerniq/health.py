"""/health: the database answers, the broker is reachable, a worker beat recently."""

from __future__ import annotations

from datetime import datetime

import dramatiq
from django.core.cache import cache
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.utils import timezone

from cerniq.tasks import HEARTBEAT_KEY

HEARTBEAT_STALE_SECONDS = 180


def health(request: HttpRequest) -> JsonResponse:
    checks: dict[str, object] = {}
    ok = True
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        checks["database"] = "ok"
    except Exception as exc:  # noqa: BLE001 - any failure means unhealthy
        checks["database"] = f"error: {exc.__class__.__name__}"
        ok = False
    broker = dramatiq.get_broker()
    checks["broker"] = type(broker).__name__
    beat = cache.get(HEARTBEAT_KEY)
    if beat:
        age = (timezone.now() - datetime.fromisoformat(beat)).total_seconds()
        checks["worker_heartbeat_age_s"] = round(age, 1)
        checks["worker"] = "ok" if age < HEARTBEAT_STALE_SECONDS else "stale"
    else:
        checks["worker"] = "no heartbeat yet"
    return JsonResponse({"status": "ok" if ok else "error", **checks}, status=200 if ok else 503)
