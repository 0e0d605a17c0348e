"""Mailchimp webhooks at `/webhooks/mailchimp/<Tenant.webhook_token>/`.

Authentication: Mailchimp signs nothing; the URL registered in Mailchimp carries the
tenant's webhook token, compared in constant time (cerniq.webhooks.tenant_for_url_token). A
wrong or missing token is 404 and nothing is stored. Mailchimp checks a URL with a GET
before it saves the webhook (and from time to time after): a GET with the tenant's token is
answered 200, any other 404.

Body: `application/x-www-form-urlencoded`, PHP-style keys (`data[merges][FNAME]`), made
nested dicts by formdata.py under the JSON door's rules (UTF-8, no NUL, bounded depth and
size, no field given twice). Each handled event is checked against its schema at the door
(schemas.py): a bad one is answered 400 naming the field and kept MALFORMED. `profile` and
`campaign` events are stored IGNORED and answered 200. An event of any audience of the
tenant's account is applied, not only of the one synced: an unsubscribe is the person's
wish whichever list they left.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from django.http import HttpResponse, JsonResponse

from cerniq.models import Tenant, WebhookEvent
from cerniq.webhooks import MalformedPayload, Receiver, tenant_for_url_token
from integrations.mailchimp import formdata, handlers, schemas

if TYPE_CHECKING:  # DRF's request: workers importing this need none of DRF
    from rest_framework.request import Request

log = logging.getLogger(__name__)

FORM = "application/x-www-form-urlencoded"
MAX_BODY_BYTES = 64 * 1024  # an address, its merge fields, a few ids


def event_type_of(payload: dict[str, Any]) -> str:
    value = payload.get("type")
    if not isinstance(value, str) or not value.strip():
        raise MalformedPayload(field="type", problem="missing or not a string")
    return value


class MailchimpReceiver(Receiver):
    provider = "mailchimp"
    auth_failure_status = 404  # the token is the only secret: a wrong one is "not found"
    MAX_BODY_BYTES = MAX_BODY_BYTES
    MAX_DEPTH = 8  # data[merges][ADDRESS][addr1] is the deepest Mailchimp sends
    HANDLED_EVENTS = frozenset(handlers.HANDLERS)
    IGNORED_EVENTS = frozenset({"profile", "campaign"})

    def answer_get(self, request: Request, token: str | None) -> HttpResponse:
        """Mailchimp's URL check ("MailChimp.com WebHook Validator"): 200 for a tenant's URL."""
        if tenant_for_url_token(token) is None:
            log.warning("mailchimp webhook check with an unknown token")
            return JsonResponse({"error": "not found"}, status=404)
        return JsonResponse({"status": "ok"})

    def parse_body(self, raw: bytes, content_type: str) -> dict[str, Any]:
        media = content_type.split(";")[0].strip().lower()
        if media and media != FORM:
            raise MalformedPayload(field="(body)", problem=f"not {FORM} but {media[:60]}")
        return formdata.parse(raw, max_depth=self.MAX_DEPTH)

    def authenticate(self, request: Request, raw: bytes, token: str | None) -> Tenant | None:
        return tenant_for_url_token(token)

    def delivery(self, tenant: Tenant, raw: bytes) -> tuple[str | None, dict[str, str]]:
        return tenant.webhook_token, {"Content-Type": FORM, "User-Agent": "MailChimp.com"}

    def identify(self, payload: dict[str, Any]) -> tuple[str, str]:
        event_type = event_type_of(payload)
        if not self.is_handled(event_type):
            return event_type, ""  # stored IGNORED, never deduplicated
        return event_type, schemas.dedupe_key(schemas.validate(payload))

    def handle(self, event: WebhookEvent, payload: dict[str, Any]) -> bool:
        handler = handlers.HANDLERS.get(event_type_of(payload))
        if handler is None:
            return False
        if event.tenant is None:
            raise ValueError(f"webhook event {event.pk} has no tenant")
        handler(event.tenant, schemas.validate(payload))
        return True
