"""The bench URLconf (bench/webhook_settings.py): every real URL (cerniq.urls), plus
`/bench/insert/`, the ceiling bench/webhooks.py holds the webhook intake against.

`InsertOneView` is the least a DRF endpoint that stores a request can do: the same
APIView machinery as `WebhookIntakeView` (no authentication, no permission check, no
throttles, no parsers, the same renderer and content negotiation, read from the view so they
stay the same), then it reads the raw body and stores it with one INSERT (autocommit, no
transaction block) into `bench_webhook_ceiling`, which bench/webhooks.py creates in its own
database. It answers like the intake does: `{"status": "accepted", "id": ...}`.

`LeanIntakeView` (`/bench/lean/<provider>/<token>/`, measured with `--prototype`) is a
what-if, not the app's code: the shipped intake's accepted path for a handled message event,
with the tenant cached (`tenant_for_url_token`) and one INSERT (`cerniq.webhooks.store_event`),
the app's own pieces, but with the broker call on the request path (as before cerniq.relay)
and none of the intake's bookkeeping. Everything else (other events, refusals, failures)
goes to `WebhookIntakeView.post` unchanged.
`LeanNoEnqueueView` (`/bench/lean-noenqueue/...`) is the same without the enqueue: what
the broker round trip on the request path costs (its rows are never processed).
"""

from __future__ import annotations

import ipaddress
import logging

from django.db import connection
from django.urls import include, path, re_path
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from cerniq import webhooks
from cerniq.models import WebhookEvent
from cerniq.webhook_intake import WebhookIntakeView

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


_receivers: dict[str, webhooks.Receiver | None] = {}


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
            tenant = receiver.authenticate(request, raw, token)  # cached per process
            payload = webhooks.parse_payload(raw, max_depth=receiver.MAX_DEPTH)
            event_type, key = receiver.identify(payload)
            if tenant is None or not event_type.startswith("message:") or not key:
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
        event_id = webhooks.store_event(
            WebhookEvent(
                tenant=tenant,
                provider=receiver.provider,
                event_type=event_type,
                provider_event_id=key,
                raw_body=raw,
                headers=headers,
                remote_addr=remote,
                verified=True,
            )
        )
        if event_id is None:
            return Response({"status": "duplicate"})
        from cerniq.tasks import process_webhook_event

        try:
            if self.enqueue:
                process_webhook_event.send(event_id)
        except Exception:  # like on_commit(robust=True): the row stays RECEIVED
            log.exception("webhook %s: event %s stored, not enqueued", provider, event_id)
        return Response({"status": "accepted", "id": event_id})


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
