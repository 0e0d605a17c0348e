"""Meta's webhooks: WhatsApp Cloud API changes and Lead Ads notifications, one Meta app.

URL: `/webhooks/meta/<workspace webhook token>/`, set as the app's callback URL (one
workspace per Meta app; a second workspace connects its own app).

- **Verification** (GET): `hub.mode=subscribe`, `hub.verify_token` equal to
  META_VERIFY_TOKEN (constant time) and a known workspace token → 200 with `hub.challenge`
  as the plain-text body; anything else 403.
- **Signature**: `X-Hub-Signature-256: sha256=<hex>`, HMAC-SHA256 of the raw body with the
  app secret (META_APP_SECRET), compared in constant time; missing, wrong or unsigned → 401.
- **Batches**: one POST holds `entry[].changes[]`, up to 1,000 updates. The event type is
  `<object>:<field>` when every change has one field, else `<object>:batch`. The whole
  body is checked against the schemas first (a bad change makes it a 400 naming the field),
  then each change is handled for its own number (whatsapp_events) or form (leadgen).
- **Duplicates**: Meta retries a batch as it was, so the stored key is the body's digest;
  inside a batch, messages are stored once by id and statuses only move forward, so a
  status delivered in two batches changes nothing the second time.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import re
from typing import TYPE_CHECKING, Any

from django.http import HttpResponse

from cerniq.models import Tenant, WebhookEvent
from cerniq.signatures import verify_hmac
from cerniq.webhooks import Receiver, tenant_for_url_token
from integrations.meta import config, schemas

if TYPE_CHECKING:
    from rest_framework.request import Request

log = logging.getLogger(__name__)

SIGNATURE_HEADER = "X-Hub-Signature-256"
WHATSAPP = "whatsapp_business_account"
PAGE = "page"
FIELDS = {
    WHATSAPP: {
        "messages",
        "account_update",
        "business_capability_update",
        "phone_number_quality_update",
    },
    PAGE: {"leadgen"},
}
# Fields Meta may send that we do not act on: stored IGNORED (200).
IGNORED_FIELDS = {
    WHATSAPP: {
        "message_template_status_update",
        "message_template_quality_update",
        "phone_number_name_update",
        "template_category_update",
        "security",
        "flows",
        "history",
        "smb_app_state_sync",
        "smb_message_echoes",
    },
}
CHALLENGE = re.compile(r"[A-Za-z0-9_-]{1,128}")
MAX_BODY_BYTES = 3 * 1024 * 1024  # Meta's largest payload


class MetaReceiver(Receiver):
    provider = "meta"
    HANDLED_EVENTS = frozenset(
        {f"{obj}:{field}" for obj, fields in FIELDS.items() for field in fields}
        | {f"{WHATSAPP}:batch", f"{PAGE}:batch"}
    )
    IGNORED_EVENTS = frozenset(
        f"{obj}:{field}" for obj, fields in IGNORED_FIELDS.items() for field in fields
    )
    MAX_BODY_BYTES = MAX_BODY_BYTES

    # --- the door -------------------------------------------------------------------------

    def answer_get(self, request: Request, token: str | None) -> HttpResponse:
        params = request.GET
        expected = config.verify_token()
        given = str(params.get("hub.verify_token") or "")
        challenge = str(params.get("hub.challenge") or "")
        genuine = (
            params.get("hub.mode") == "subscribe"
            and bool(expected)
            and hmac.compare_digest(given.encode(), expected.encode())
            and tenant_for_url_token(token) is not None
            and CHALLENGE.fullmatch(challenge) is not None
        )
        if not genuine:
            if not expected:
                log.error("webhook meta: META_VERIFY_TOKEN is not set; verification refused")
            return HttpResponse("forbidden", status=403, content_type="text/plain")
        return HttpResponse(challenge, content_type="text/plain")

    def authenticate(self, request: Request, raw: bytes, token: str | None) -> Tenant | None:
        tenant = tenant_for_url_token(token)
        if tenant is None:
            return None
        signature = request.headers.get(SIGNATURE_HEADER)
        genuine = verify_hmac(raw, config.app_secret(), signature)
        if not genuine and not config.configured_app_secret():
            log.error("webhook meta: META_APP_SECRET is not set; request refused")
        return tenant if genuine else None

    def identify(self, payload: dict[str, Any]) -> tuple[str, str]:
        envelope = schemas.validate(schemas.Envelope, payload, "meta")
        fields = {change.field for entry in envelope.entry for change in entry.changes}
        acted = fields & FIELDS.get(envelope.object, set())
        if len(fields) == 1:
            event_type = f"{envelope.object}:{next(iter(fields))}"
        else:
            event_type = f"{envelope.object}:{'batch' if acted else 'other'}"
        if not acted or not self.is_handled(event_type):
            return event_type, ""  # nothing we act on: stored IGNORED
        for e, entry in enumerate(envelope.entry):
            for c, change in enumerate(entry.changes):
                _check_change(envelope.object, change, f"entry[{e}].changes[{c}].value")
        digest = hashlib.sha256(
            json.dumps(payload, sort_keys=True, ensure_ascii=False).encode()
        ).hexdigest()
        return event_type, digest

    def dedupe_key(self, tenant: Tenant, event_type: str, key: str, payload: dict[str, Any]) -> str:
        return f"{tenant.pk}:{key}"

    def delivery(self, tenant: Tenant, raw: bytes) -> tuple[str | None, dict[str, str]]:
        return tenant.webhook_token, {SIGNATURE_HEADER: sign(raw, config.app_secret())}

    def is_handled(self, event_type: str) -> bool:
        return event_type in self.HANDLED_EVENTS

    # --- the worker -----------------------------------------------------------------------

    def handle(self, event: WebhookEvent, payload: dict[str, Any]) -> bool:
        from integrations.meta import leadgen, whatsapp_events

        tenant = event.tenant
        assert tenant is not None, "the intake stores handled events with their tenant"
        envelope = schemas.validate(schemas.Envelope, payload, "meta")
        acted = False
        for entry in envelope.entry:
            for change in entry.changes:
                if change.field not in FIELDS.get(envelope.object, ()):
                    continue
                acted = True
                if change.field == "messages":
                    value = schemas.messages_value(change.value, "value")
                    whatsapp_events.messages_change(tenant, value)
                elif change.field == "account_update":
                    update = schemas.validate(schemas.AccountUpdate, change.value, "meta")
                    whatsapp_events.account_change(tenant, update)
                elif change.field == "business_capability_update":
                    capability = schemas.validate(schemas.CapabilityUpdate, change.value, "meta")
                    whatsapp_events.capability_change(tenant, capability)
                elif change.field == "phone_number_quality_update":
                    quality = schemas.validate(schemas.QualityUpdate, change.value, "meta")
                    whatsapp_events.quality_change(tenant, quality)
                elif change.field == "leadgen":
                    notice = schemas.validate(schemas.Leadgen, change.value, "meta")
                    leadgen.notified(tenant, notice)
        return acted


def _check_change(obj: str, change: schemas.Change, at: str) -> None:
    if change.field not in FIELDS.get(obj, ()):
        return
    model: type[Any] = {
        "messages": schemas.MessagesValue,
        "account_update": schemas.AccountUpdate,
        "business_capability_update": schemas.CapabilityUpdate,
        "phone_number_quality_update": schemas.QualityUpdate,
        "leadgen": schemas.Leadgen,
    }[change.field]
    schemas.validate(model, change.value, f"{obj}:{change.field}", at)


def sign(raw: bytes, secret: str) -> str:
    """The `X-Hub-Signature-256` Meta would send (fixtures, tests)."""
    if not secret:
        raise ValueError("META_APP_SECRET is not set: nothing can be signed")
    return "sha256=" + hmac.new(secret.encode(), raw, hashlib.sha256).hexdigest()
