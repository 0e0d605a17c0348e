"""The bench URLconf (bench/webhook_settings.py): every real URL (cerniq.urls), plus
`/bench/insert/`, the ceiling bench/webhooks.py holds the webhook intake against.

`InsertOneView` is the least a DRF endpoint that stores a request can do: the same
APIView machinery as `WebhookIntakeView` (no authentication, no permission check, no
throttles, no parsers, the same renderer and content negotiation, read from the view so they
stay the same), then it reads the raw body and stores it with one INSERT (autocommit, no
transaction block) into `bench_webhook_ceiling`, which bench/webhooks.py creates in its own
database. It answers like the intake does: `{"status": "accepted", "id": ...}`.

`LeanIntakeView` (`/bench/lean/<provider>/<token>/`, measured with `--prototype`) is a
what-if, not the app's code: the intake as issue #10 suggests making it, to measure what the
suggestion is worth in the same run. For a handled message event it does what
`WebhookIntakeView` does on the accepted path (raw body, the receiver's `authenticate`,
`parse_payload` and `identify` with its strict schema, the same row), with the tenant cached
in the process for `TENANT_TTL` seconds (a hit needs no query; a miss asks `authenticate`),
the row stored by one `INSERT ... ON CONFLICT DO NOTHING RETURNING id` in autocommit (no
transaction block, no savepoint, no SELECT first: no row back means a duplicate) and the
event enqueued right after it (the row is already committed). Everything else (other
events, refusals, failures) goes to `WebhookIntakeView.post` unchanged.
`LeanNoEnqueueView` (`/bench/lean-noenqueue/...`) is the same without the enqueue: what
the broker round trip on the request path costs (its rows are never processed).
"""

from __future__ import annotations

import ipaddress
import json
import logging
import time

from django.db import connection
from django.urls import include, path, re_path
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from cerniq import webhooks
from cerniq.models import WebhookEvent
from cerniq.webhooks import WebhookIntakeView

log = logging.getLogger(__name__)

TABLE = "bench_webhook_ceiling"
CREATE_TABLE = (
    f"CREATE TABLE IF NOT EXISTS {TABLE} (id bigserial PRIMARY KEY, body bytea NOT NULL, "
    "received_at timestamptz NOT NULL DEFAULT now())"
)


class InsertOneView(APIView):
    """POST /bench/insert/: read the raw body, INSERT it, answer its id."""

    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_classes: list = []
    parser_classes: list = []
    renderer_classes = WebhookIntakeView.renderer_classes
    content_negotiation_class = WebhookIntakeView.content_negotiation_class
    schema = None

    def post(self, request: Request) -> Response:
        raw = request.body
        with connection.cursor() as cursor:
            cursor.execute(f"INSERT INTO {TABLE} (body) VALUES (%s) RETURNING id", [raw])  # noqa: S608
            (row_id,) = cursor.fetchone()
        return Response({"status": "accepted", "id": row_id})


TENANT_TTL = 30.0  # seconds a token -> tenant id answer is reused by a process
_tenants: dict[tuple[str, str], tuple[float, int]] = {}
_receivers: dict[str, webhooks.Receiver | None] = {}
LEAN_INSERT = (
    f"INSERT INTO {WebhookEvent._meta.db_table} (tenant_id, provider, event_type, "  # noqa: S608
    "provider_event_id, raw_body, headers, remote_addr, verified, status, error, attempts, "
    "received_at) VALUES (%s, %s, %s, %s, %s, %s::jsonb, %s, true, 'RECEIVED', '', 0, now()) "
    "ON CONFLICT (provider, provider_event_id) WHERE NOT (provider_event_id = '') "
    "DO NOTHING RETURNING id"
)


class LeanIntakeView(WebhookIntakeView):
    """POST /bench/lean/<provider>/<token>/: the suggested intake (see the module doc)."""

    enqueue = True

    def post(self, request: Request, provider: str, token: str | None = None) -> Response:
        if provider not in _receivers:
            _receivers[provider] = webhooks.get_receiver(provider)
        receiver = _receivers[provider]
        try:
            raw = request.body
            limit = receiver.max_body_bytes() if receiver else None
            if receiver is None or token is None or (limit is not None and len(raw) > limit):
                raise LookupError
            tenant_id = self.tenant_id(receiver, request, raw, token)
            payload = webhooks.parse_payload(raw, max_depth=receiver.MAX_DEPTH)
            event_type, key = receiver.identify(payload)
            if tenant_id is None or not event_type.startswith("message:") or not key:
                raise LookupError
            if not receiver.is_handled(event_type) or len(key) > 255 or "\x00" in key:
                raise LookupError
        except Exception:  # noqa: BLE001 - anything unusual takes the app's own path
            return super().post(request, provider, token)
        headers = {n: request.headers[n] for n in webhooks.STORED_HEADERS if n in request.headers}
        try:
            remote = str(ipaddress.ip_address(request.META.get("REMOTE_ADDR") or ""))
        except ValueError:
            remote = None
        with connection.cursor() as cursor:
            cursor.execute(
                LEAN_INSERT,
                [tenant_id, receiver.provider, event_type, key, raw, json.dumps(headers), remote],
            )
            row = cursor.fetchone()
        if row is None:
            return Response({"status": "duplicate"})
        from cerniq.tasks import process_webhook_event

        try:
            if self.enqueue:
                process_webhook_event.send(row[0])
        except Exception:  # like on_commit(robust=True): the row stays RECEIVED
            log.exception("webhook %s: event %s stored, not enqueued", provider, row[0])
        return Response({"status": "accepted", "id": row[0]})

    @staticmethod
    def tenant_id(receiver: webhooks.Receiver, request: Request, raw: bytes, token: str):
        now = time.monotonic()
        hit = _tenants.get((receiver.provider, token))
        if hit is not None and now - hit[0] < TENANT_TTL:
            return hit[1]
        tenant = receiver.authenticate(request, raw, token)
        if tenant is None:
            return None  # misses are never cached: a wrong token costs its query each time
        _tenants[(receiver.provider, token)] = (now, tenant.pk)
        return tenant.pk


class LeanNoEnqueueView(LeanIntakeView):
    """POST /bench/lean-noenqueue/<provider>/<token>/: LeanIntakeView without the enqueue."""

    enqueue = False


urlpatterns = [
    path("bench/insert/", InsertOneView.as_view(), name="bench-insert"),
    re_path(
        r"^bench/lean/(?P<provider>[-a-z0-9_]+)/(?P<token>[^/]+)/$",
        LeanIntakeView.as_view(),
        name="bench-lean",
    ),
    re_path(
        r"^bench/lean-noenqueue/(?P<provider>[-a-z0-9_]+)/(?P<token>[^/]+)/$",
        LeanNoEnqueueView.as_view(),
        name="bench-lean-noenqueue",
    ),
    path("", include("cerniq.urls")),
]
