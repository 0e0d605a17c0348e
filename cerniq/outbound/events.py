"""The event catalogue and `emit`, the one call a domain owner makes for an event.

Transactional outbox: `emit` writes its rows in the caller's transaction, so an event
exists exactly when the change it reports is committed (a rolled-back stage change sends
nothing, and a crash after the commit loses nothing: the periodic job finds the rows). The
rows are handed to a worker at once, on commit.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from cerniq.models import WebhookDelivery, WebhookEndpoint

# Event type → what it means (the endpoint form's choices, the docs' catalogue).
EVENTS: dict[str, Any] = {
    "lead.created": _("A lead was created (import, API, the leads page, a Lead Ads form)."),
    "lead.replied": _("A lead replied (any channel)."),
    "lead.stage_changed": _("A lead moved to another stage."),
    "lead.opted_out": _("A lead opted out (every channel stops)."),
    "lead.erased": _("A person was erased on request: delete them from your records too."),
    "review.created": _("A review item was opened."),
    "review.resolved": _("A review item was closed (resolved or dismissed)."),
    "message.failed": _("A message could not be sent (failed, or a dead letter)."),
    "phone.status_changed": _("A sending number changed status."),
}
TEST_EVENT = "webhook.test"  # sent by "send test event" only; nobody subscribes to it


class UnknownEvent(ValueError):
    pass


def new_event_id() -> str:
    """`msg_<uuid>`: the delivery's `webhook-id`, the receiver's dedupe key."""
    return f"msg_{uuid.uuid4().hex}"


def envelope(event_id: str, event_type: str, tenant_slug: str, data: dict) -> dict:
    return {
        "id": event_id,
        "type": event_type,
        "created_at": timezone.now().isoformat().replace("+00:00", "Z"),
        "tenant": tenant_slug,
        "data": data,
    }


def emit(tenant_id: int, event_type: str, data: dict[str, Any]) -> list[int]:
    """Owe `event_type` to every enabled endpoint of the tenant that takes it; the ids of
    the outbox rows written (none when nobody listens). `data` holds ids and the fields an
    integrator needs, never secrets."""
    return emit_many(tenant_id, event_type, [data])


def emit_many(tenant_id: int, event_type: str, data: list[dict[str, Any]]) -> list[int]:
    """`emit` for many events of one type at once (an import's new leads): the endpoints
    are read once and every row is written in one bulk insert, however many events."""
    if event_type not in EVENTS:
        raise UnknownEvent(f"unknown webhook event {event_type!r}")
    if not data:
        return []
    endpoints = [
        endpoint
        for endpoint in WebhookEndpoint.objects.filter(
            tenant_id=tenant_id, enabled=True
        ).select_related("tenant")
        if event_type in endpoint.events
    ]
    if not endpoints:
        return []
    slug = endpoints[0].tenant.slug
    return _write([envelope(new_event_id(), event_type, slug, one) for one in data], endpoints)


def queue(endpoints: list[WebhookEndpoint], payload: dict) -> list[int]:
    """Outbox rows for `payload` (one event) to `endpoints`, sent on commit."""
    return _write([payload], endpoints)


def _write(payloads: list[dict], endpoints: list[WebhookEndpoint]) -> list[int]:
    """One outbox row per event and endpoint, in one bulk insert; handed over on commit."""
    now = timezone.now()
    rows = WebhookDelivery.objects.bulk_create(
        (
            WebhookDelivery(
                tenant_id=endpoint.tenant_id,
                endpoint=endpoint,
                event_id=payload["id"],
                event_type=payload["type"],
                payload=payload,
                next_attempt_at=now,
            )
            for payload in payloads
            for endpoint in endpoints
        ),
        batch_size=500,
    )
    ids = [row.pk for row in rows]
    transaction.on_commit(lambda: enqueue(ids))
    return ids


def enqueue(delivery_ids: list[int]) -> None:
    """Hand rows to the workers now (the periodic job catches any the broker loses)."""
    from cerniq.tasks import deliver_webhook

    for delivery_id in delivery_ids:
        deliver_webhook.send(delivery_id)
