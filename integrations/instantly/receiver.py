"""Instantly webhooks (docs/providers.md §2.4) at `/webhooks/instantly/<Tenant.webhook_token>/`.

Authentication: Instantly signs nothing. The subscription (`manage.py instantly_setup`)
asks Instantly to send the header `x-webhook-secret`, whose value is derived per tenant
(config.webhook_secret). A delivery is the tenant's only when both the URL token names an
active tenant and the header equals that tenant's value (compared in constant time);
otherwise 401 and nothing is stored.

Schema: every handled event is checked at the door (schemas.validate); a payload that
breaks it is answered 400 naming the field and kept MALFORMED. Any other event type,
including the workspace's custom labels (which arrive as their raw label text), is stored
IGNORED and answered 200, so Instantly neither retries nor disables the subscription.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
from typing import TYPE_CHECKING, Any

from cerniq.models import Tenant, WebhookEvent
from cerniq.webhooks import MalformedPayload, Receiver, tenant_for_url_token
from integrations.instantly import config, handlers, schemas

if TYPE_CHECKING:  # DRF's request: workers importing this need none of DRF
    from rest_framework.request import Request

log = logging.getLogger(__name__)

MAX_BODY_BYTES = 1024 * 1024  # a reply's HTML and the sent email's; nothing else is large
_KEY_MAX = 255  # WebhookEvent.provider_event_id


def event_type_of(payload: dict[str, Any]) -> str:
    """As sent: a custom label is matched exactly, never trimmed or re-cased."""
    value = payload.get("event_type")
    if not isinstance(value, str) or not value.strip():
        raise MalformedPayload(field="event_type", problem="missing or not a string")
    return value


def dedupe_key(event: schemas.InstantlyEvent) -> str:
    """`<event_type>:<campaign_id>:<email_id or lead_email>:<timestamp>`.

    Instantly sends no event or delivery id (docs/providers.md §2.4), so the key is built from
    what identifies one occurrence: the event's own time (`timestamp`, when it happened, not
    when it was delivered, so a retry carries the same one), the email it is about
    (`email_id`; for events without one, the lead's address) and the campaign. A retry of
    one delivery is then a duplicate; a later open of the same email, a second reply, the
    next step's send, or the same label set again later are new events because their time
    differs. Keys longer than the column are hashed after the event type."""
    subject = event.email_id or (event.lead_email or event.email_account or "").lower()
    key = f"{event.event_type}:{event.campaign_id or '-'}:{subject or '-'}:{event.timestamp}"
    if len(key) <= _KEY_MAX:
        return key
    digest = hashlib.sha256(key.encode()).hexdigest()
    return f"{event.event_type}:sha256:{digest}"


class InstantlyReceiver(Receiver):
    provider = "instantly"
    MAX_BODY_BYTES = MAX_BODY_BYTES
    HANDLED_EVENTS = frozenset(handlers.HANDLERS)
    IGNORED_EVENTS = frozenset(
        {
            # Labels our stage machine has no move for: a neutral or out-of-office label
            # changes nothing (our triage reads the auto-reply itself); a missed meeting
            # keeps the lead in negotiation; a "wrong person" is for a person to follow up.
            "lead_neutral",
            "lead_out_of_office",
            "lead_wrong_person",
            "lead_no_show",
            "supersearch_enrichment_completed",
        }
    )

    def authenticate(self, request: Request, raw: bytes, token: str | None) -> Tenant | None:
        tenant = tenant_for_url_token(token)
        if tenant is None:
            return None
        expected = config.webhook_secret(tenant.webhook_token)
        if not expected:
            log.error("instantly webhook refused: INSTANTLY_WEBHOOK_SECRET is not set")
            return None
        headers = self.headers or request.headers
        given = headers.get(config.HEADER) or ""
        if not hmac.compare_digest(expected.encode(), given.encode("utf-8", "replace")):
            return None
        return tenant

    def delivery(self, tenant: Tenant, raw: bytes) -> tuple[str | None, dict[str, str]]:
        return tenant.webhook_token, {config.HEADER: config.webhook_secret(tenant.webhook_token)}

    def parse(self, payload: dict[str, Any]) -> schemas.InstantlyEvent:
        return schemas.validate(payload)

    def identify(self, payload: dict[str, Any]) -> tuple[str, str]:
        event_type = event_type_of(payload)
        if not self.is_handled(event_type):
            return event_type, ""  # stored IGNORED, never deduplicated
        event = self.parse(payload)
        return event_type, dedupe_key(event)

    def handle(self, event: WebhookEvent, payload: dict[str, Any]) -> bool:
        event_type = event_type_of(payload)
        handler = handlers.HANDLERS.get(event_type)
        if handler is None:
            return False
        if event.tenant is None:
            raise ValueError(f"webhook event {event.pk} has no tenant")
        handler(event.tenant, self.parse(payload))
        return True
