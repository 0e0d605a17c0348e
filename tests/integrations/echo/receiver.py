"""Echo's webhooks: `{"type": "...", "id": "..."}`, authenticated by the URL token."""

from __future__ import annotations

from typing import Any

from cerniq.models import WebhookEvent
from cerniq.webhooks import MalformedPayload, Receiver, tenant_for_url_token

HANDLED: list[dict[str, Any]] = []


class EchoReceiver(Receiver):
    provider = "echo"
    HANDLED_EVENTS = frozenset({"message.received"})
    IGNORED_EVENTS = frozenset({"message.read"})

    def authenticate(self, request, raw, token):
        return tenant_for_url_token(token)

    def identify(self, payload: dict[str, Any]) -> tuple[str, str]:
        event_type, event_id = payload.get("type"), payload.get("id")
        if not isinstance(event_type, str) or not isinstance(event_id, str):
            raise MalformedPayload("type and id must be strings")
        return event_type, event_id

    def handle(self, event: WebhookEvent, payload: dict[str, Any]) -> bool:
        HANDLED.append(payload)
        return True
