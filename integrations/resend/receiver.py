"""Resend webhooks (docs/providers.md §3.4, §3.5): Svix-signed email events → our messages and
leads; `email.received` (a lead's reply) → the reply path (inbound.py).

The URL registered with Resend is `/webhooks/resend/<Tenant.webhook_token>/`, and every
request must also carry a valid Svix signature over the raw body, made with the
deployment's signing secret (RESEND_WEBHOOK_SECRET, one Resend account per deployment):
the token says which tenant, the signature that Resend sent it. Either wrong → 401, and
the request leaves no row.

Dedupe is on the `svix-id` header, which Svix keeps for every retry and replay of one
message, scoped by the tenant: one Resend account posts the same message to every
registered endpoint, so the same id reaching two tenants' URLs is two deliveries, not a
duplicate.

Events are checked at the door (schemas.py: strict on what we read, tolerant on the rest): a
payload that breaks it is answered 400 naming the field, kept MALFORMED and never processed.
Handling calls outreach.email_events, the one place that says what a bounce or a complaint
means.

Whose event is it: we tag every send with the tenant's id (`TENANT_TAG`). An event tagged
for another tenant is taken in (2xx) and ignored in `handle`, with a warning: with one
Resend account, every tenant's endpoint receives every tenant's events, so this is the
normal case, not an attack — answering 4xx would make Svix retry it for 27 hours and then
disable the endpoint. An event without our tag is acted on only when it names one of this
tenant's emails (a bounce must never mark another tenant's leads).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import time
from typing import TYPE_CHECKING, Any

from django.conf import settings

from cerniq.models import Tenant, WebhookEvent
from cerniq.providers import provider_config
from cerniq.signatures import verify_svix
from cerniq.webhooks import MalformedPayload, Receiver, tenant_for_url_token
from integrations.resend import inbound, schemas
from integrations.resend.inbound import ALIAS
from outreach import email_events
from outreach.models import Message

if TYPE_CHECKING:  # DRF's request: workers importing this need none of DRF
    from rest_framework.request import Request

log = logging.getLogger(__name__)

TENANT_TAG = "tenant_id"  # set by the send path on every email (OutgoingEmail.tags)
MESSAGE_TAG = "message_id"  # likewise: our message's id
SVIX_ID_MAX = 200  # Svix ids are "msg_" + 27 characters; the stored key adds the tenant
MAX_BODY_BYTES = 256 * 1024  # an event carries addresses, a subject, tags, never a body

HANDLED = frozenset(schemas.DATA_MODELS)
Status = Message.Status


def configured_secret() -> str:
    return str(provider_config(ALIAS).get("OPTIONS", {}).get("webhook_secret") or "")


def webhook_secret() -> str:
    """The deployment's signing secret (`whsec_…`, RESEND_WEBHOOK_SECRET). When none is
    configured, one derived from SECRET_KEY: nothing Resend signs verifies with it (so
    nothing from outside is accepted), while the demo and the fixture replay
    (`replay_webhook`, the fixture tests) can still sign their own deliveries (`delivery`).
    Forging with it takes SECRET_KEY, which forges sessions already."""
    secret = configured_secret()
    if secret:
        return secret
    key = hmac.new(settings.SECRET_KEY.encode(), b"resend-webhook-local", hashlib.sha256).digest()
    return "whsec_" + base64.b64encode(key).decode()


def sign(raw: bytes, secret: str, *, msg_id: str, timestamp: int | None = None) -> dict[str, str]:
    """The Svix headers Resend would send with `raw` (fixture replay, tests)."""
    ts = str(int(time.time()) if timestamp is None else timestamp)
    key = base64.b64decode(secret.removeprefix("whsec_"))
    digest = hmac.new(key, f"{msg_id}.{ts}.".encode() + raw, hashlib.sha256).digest()
    signature = "v1," + base64.b64encode(digest).decode()
    return {"svix-id": msg_id, "svix-timestamp": ts, "svix-signature": signature}


class ResendReceiver(Receiver):
    provider = "resend"
    MAX_BODY_BYTES = MAX_BODY_BYTES
    HANDLED_EVENTS = HANDLED
    # Known, deliberately unused: scheduled sends (we send at once), and the account's
    # contacts and domains.
    IGNORED_EVENTS = frozenset({"email.scheduled"})
    IGNORED_PREFIXES = ("contact.", "domain.")

    # --- at the door ----------------------------------------------------------------------

    def authenticate(self, request: Request, raw: bytes, token: str | None) -> Tenant | None:
        tenant = tenant_for_url_token(token)
        if tenant is None:
            return None
        try:
            genuine = verify_svix(raw, request.headers, webhook_secret())
        except ValueError as exc:  # a malformed secret: configuration, not the request
            log.error("webhook resend: RESEND_WEBHOOK_SECRET: %s; request refused", exc)
            return None
        if not genuine and not configured_secret():
            log.error("webhook resend: RESEND_WEBHOOK_SECRET is not set; request refused")
        return tenant if genuine else None

    def identify(self, payload: dict[str, Any]) -> tuple[str, str]:
        event_type = schemas.event_type_of(payload)
        if not self.is_handled(event_type):
            return event_type, ""  # stored as IGNORED, never deduplicated
        schemas.validate(payload)
        svix_id = self.headers.get("svix-id") or self.headers.get("webhook-id") or ""
        if not svix_id or len(svix_id) > SVIX_ID_MAX or not svix_id.isprintable():
            raise MalformedPayload(
                field="svix-id", problem="missing or not a Svix id", event_type=event_type
            )
        return event_type, svix_id

    def dedupe_key(self, tenant: Tenant, event_type: str, key: str, payload: dict[str, Any]) -> str:
        return f"{tenant.pk}:{key}"

    def delivery(self, tenant: Tenant, raw: bytes) -> tuple[str | None, dict[str, str]]:
        msg_id = "msg_" + hashlib.sha256(raw).hexdigest()[:27]
        return tenant.webhook_token, sign(raw, webhook_secret(), msg_id=msg_id)

    # --- in a worker ----------------------------------------------------------------------

    def handle(self, event: WebhookEvent, payload: dict[str, Any]) -> bool:
        event_type = schemas.event_type_of(payload)
        if not self.is_handled(event_type):
            return False
        tenant = event.tenant
        if tenant is None:
            raise ValueError(f"webhook event {event.pk} has no tenant")
        envelope, data = schemas.validate(payload)
        if isinstance(data, schemas.ReceivedData):
            return inbound.receive(tenant, envelope, data)
        if not self._is_ours(tenant, event, data):
            return False
        if data.message_id:
            inbound.remember_message_id(tenant, data.email_id, data.message_id)
        at = schemas.parse_time(envelope.created_at)
        email_id, address = data.email_id, data.to[0]
        message_tag = str((data.tags or {}).get(MESSAGE_TAG) or "")
        email_events.learn_provider_id(tenant, message_tag, email_id)
        if event_type == "email.delivered":
            email_events.message_event(
                tenant, provider_message_id=email_id, status=Status.DELIVERED, at=at
            )
        elif event_type in ("email.opened", "email.clicked"):
            email_events.message_event(
                tenant, provider_message_id=email_id, status=Status.READ, at=at
            )
        elif isinstance(data, schemas.BouncedData):
            bounce = data.bounce
            email_events.bounced(
                tenant,
                email=address,
                permanent=bounce.type == "Permanent",
                provider_message_id=email_id,
                reason=_reason(bounce.subType, bounce.message, bounce.diagnosticCode),
            )
        elif event_type == "email.complained":
            email_events.complained(tenant, email=address, provider_message_id=email_id)
        elif isinstance(data, schemas.FailedData):
            email_events.delivery_failed(
                tenant, provider_message_id=email_id, reason=data.failed.reason
            )
        elif isinstance(data, schemas.SuppressedData):
            self._suppressed(tenant, data)
        elif event_type == "email.delivery_delayed":
            # Resend keeps trying (a full mailbox, greylisting); a bounce or a delivery
            # follows. Nothing changes until then.
            log.info("webhook event %s: email %s delivery delayed", event.pk, email_id)
        # email.sent: our send already recorded SENT (and its id, learnt above if it had
        # none); nothing else to change.
        return True

    def _suppressed(self, tenant: Tenant, data: schemas.SuppressedData) -> None:
        """Resend refused to send to an address it had seen bounce or complain: the same
        as that bounce (hard) or that complaint, and this email did not go out."""
        suppressed = data.suppressed
        reason = _reason(f"suppressed ({suppressed.reason})", suppressed.message, None)
        if suppressed.reason == "previous_bounce":
            email_events.bounced(
                tenant,
                email=data.to[0],
                permanent=True,
                provider_message_id=data.email_id,
                reason=reason,
            )
        else:
            email_events.delivery_failed(tenant, provider_message_id=data.email_id, reason=reason)
            email_events.complained(tenant, email=data.to[0], provider_message_id=data.email_id)

    def _is_ours(self, tenant: Tenant, event: WebhookEvent, data: schemas.EmailData) -> bool:
        """Tagged for this tenant; or untagged and about one of this tenant's emails."""
        tagged = (data.tags or {}).get(TENANT_TAG)
        if tagged is not None:
            if tagged == str(tenant.pk):
                return True
            log.warning(
                "webhook event %s: tagged for tenant %r, delivered to tenant %s: ignored",
                event.pk,
                tagged[:40],
                tenant.pk,
            )
            return False
        if email_events.find_message(tenant, provider_message_id=data.email_id) is not None:
            return True
        log.info(
            "webhook event %s: untagged, about an email tenant %s did not send: ignored",
            event.pk,
            tenant.pk,
        )
        return False


def _reason(kind: str, message: str | None, codes: list[str] | None) -> str:
    parts = [kind, (message or "").strip(), "; ".join(codes or ())]
    return ": ".join(part for part in parts if part)[:1000]
