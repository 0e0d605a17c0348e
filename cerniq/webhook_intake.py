"""The webhook door: `WebhookIntakeView`, the one view every provider posts to.

Kept apart from cerniq.webhooks (what is stored and how it is processed) so that worker
processes, which only process, never import Django REST framework's view machinery: about
7.5 MiB a worker process (bench/results/worker_rss.md). Only the URLconf imports this.
The rules it applies (parsing, identity, dedupe, storing) stay in cerniq.webhooks.
"""

from __future__ import annotations

import ipaddress
import logging
from collections.abc import Iterable
from typing import Any

from django.core.exceptions import RequestDataTooBig
from django.db import transaction
from django.http import HttpResponse
from django.utils import timezone
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.parsers import BaseParser
from rest_framework.permissions import AllowAny
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from cerniq import webhook_alerts, webhooks
from cerniq.metrics import webhooks as metrics
from cerniq.models import Tenant, WebhookEvent

log = logging.getLogger("cerniq.webhooks")
Status = WebhookEvent.Status


class _JSONOnly(BaseContentNegotiation):
    """Providers send odd Accept headers; never answer 406 to a webhook."""

    def select_parser(self, request: Request, parsers: Iterable[BaseParser]) -> Any:
        return next(iter(parsers), None)

    def select_renderer(
        self, request: Request, renderers: Iterable[BaseRenderer], format_suffix: str | None = None
    ) -> tuple[Any, str]:
        renderer = next(iter(renderers))  # the view's renderer_classes: never empty
        return renderer, renderer.media_type


def _selected_headers(request: Request) -> dict[str, str]:
    return {
        name: request.headers[name] for name in webhooks.STORED_HEADERS if name in request.headers
    }


def _remote_addr(request: Request) -> str | None:
    value = request.META.get("REMOTE_ADDR") or ""
    try:
        return str(ipaddress.ip_address(value))
    except ValueError:
        return None


def _log_cross_tenant_duplicate(provider: str, key: str, tenant: Tenant) -> None:
    """A duplicate answers at once; only a key stored for another tenant is worth a line
    (a provider's id collision, or a token used for someone else's events)."""
    owner = (
        WebhookEvent.objects.filter(provider=provider, provider_event_id=key)
        .values_list("tenant_id", flat=True)
        .first()
    )
    if owner is not None and owner != tenant.pk:
        log.warning(
            "webhook %s: event id %r of tenant %s re-sent for tenant %s",
            provider,
            key,
            owner,
            tenant.pk,
        )


class WebhookIntakeView(APIView):
    """POST /webhooks/<provider>/<token>/: verify, store, acknowledge. Nothing else. (A GET
    is the provider's own URL check, answered by its receiver.)"""

    authentication_classes: list = []  # no SessionAuthentication, hence no CSRF check
    permission_classes = [AllowAny]
    throttle_classes: list = []  # throttles may read request.data first (PostHog #50566)
    parser_classes: list = []  # the body is only ever read raw, below
    renderer_classes = [JSONRenderer]
    content_negotiation_class = _JSONOnly
    schema = None  # provider callbacks, not part of our API schema

    def get(self, request: Request, provider: str, token: str | None = None) -> HttpResponse:
        """A provider checking its URL (`Receiver.answer_get`; 405 for most). Nothing is
        stored."""
        receiver = webhooks.get_receiver(provider)
        if receiver is None:
            return Response({"error": "not found"}, status=404)
        return receiver.answer_get(request, token)

    def post(self, request: Request, provider: str, token: str | None = None) -> Response:
        response = self.receive(request, provider, token)
        known = provider in webhooks.receivers()
        outcome = metrics.intake_outcome(known, response.status_code, response.data)
        metrics.INTAKE.labels(provider if known else "unknown", outcome).inc()
        return response

    def receive(self, request: Request, provider: str, token: str | None) -> Response:
        try:
            raw = request.body  # raw bytes, before anything parses the stream
        except RequestDataTooBig:
            return Response({"error": "payload too large"}, status=413)
        receiver = webhooks.get_receiver(provider)
        if receiver is None:
            return Response({"error": "not found"}, status=404)
        limit = receiver.max_body_bytes()
        if limit is not None and len(raw) > limit:
            return Response({"error": "payload too large"}, status=413)
        receiver.headers = request.headers
        tenant = receiver.authenticate(request, raw, token)
        if tenant is None:
            log.warning(
                "webhook %s: authentication failed from %s", provider, _remote_addr(request)
            )
            webhook_alerts.note_rejected(receiver.provider)
            refused = receiver.auth_failure_status
            return Response({"error": "not found" if refused == 404 else "unauthorized"}, refused)

        row = {
            "tenant": tenant,
            "raw_body": raw,
            "headers": _selected_headers(request),
            "remote_addr": _remote_addr(request),
            "verified": True,
        }
        try:
            payload = receiver.parse_body(raw, request.headers.get("Content-Type", ""))
            event_type, key = webhooks._checked_identity(receiver, payload)
            if key and receiver.is_handled(event_type):
                key = webhooks._checked_key(
                    receiver.dedupe_key(tenant, event_type, key, payload), event_type
                )
        except webhooks.MalformedPayload as exc:
            message = str(exc)
            if not message.startswith(("malformed JSON:", "invalid payload:")):
                message = f"malformed payload: {message}"
            event_type = exc.event_type[: webhooks._EVENT_TYPE_MAX].replace("\x00", "")
            with transaction.atomic():
                event = WebhookEvent.objects.create(
                    provider=receiver.provider,
                    event_type=event_type,
                    provider_event_id="",
                    status=Status.MALFORMED,
                    error=message[: webhooks.ERROR_TEXT_LIMIT],
                    **row,
                )
            log.warning("webhook %s: %s (event %s)", provider, message, event.pk)
            if exc.field:
                problem = {"error": "invalid payload", "field": exc.field, "problem": exc.problem}
                return Response(problem, status=400)
            return Response({"error": message}, status=400)

        if receiver.is_handled(event_type):
            status, answer = Status.RECEIVED, "accepted"
        else:
            status, answer = Status.IGNORED, "ignored"
            row["processed_at"] = timezone.now()
            if not receiver.is_ignored(event_type):
                row["error"] = f"unknown event type {event_type!r}: stored, not processed"
                log.info("webhook %s: unknown event type %r", provider, event_type)
        event_id = webhooks.store_event(
            WebhookEvent(
                provider=receiver.provider,
                event_type=event_type,
                provider_event_id=key,
                status=status,
                **row,
            )
        )
        if event_id is None:
            _log_cross_tenant_duplicate(receiver.provider, key, tenant)
            return Response({"status": "duplicate"})
        if status == Status.RECEIVED:
            webhooks.enqueue_processing(event_id)
            return Response({"status": answer, "id": event_id})
        return Response({"status": answer})
