"""Endpoints: their secrets, the URLs they may have.

In production a URL must be https, carry no user or password, and its host must resolve
only to public addresses (cerniq.net_guard, the one SSRF guard): a tenant cannot make our
workers call the deployment's own network (a database, a metadata service, the admin).
`settings.OUTBOUND_ALLOW_LOCAL_TARGETS` (on with DEBUG, in development) allows http and
private, loopback and link-local addresses. The host is checked when the URL is saved and
again before every POST, which connects only to the address checked; redirects are never
followed.
"""

from __future__ import annotations

import base64
import secrets
from urllib.parse import urlsplit

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from cerniq import net_guard
from cerniq.models import WebhookEndpoint
from cerniq.outbound import events

SECRET_PREFIX = "whsec_"  # noqa: S105 - the format's prefix, not a secret
SECRET_BYTES = 24


class EndpointURLError(ValueError):
    """The URL may not be called; the message says why."""


def new_secret() -> str:
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


def masked_secret(secret: str) -> str:
    return f"{SECRET_PREFIX}…{secret[-4:]}" if secret else ""


def url_host(url: str) -> str:
    """The host of an endpoint URL that follows the rules (scheme, host, no user or
    password), without resolving it; else EndpointURLError."""
    parts = urlsplit(url.strip())
    if parts.scheme not in (("https", "http") if net_guard.allow_local() else ("https",)):
        raise EndpointURLError(_("The URL must start with https://."))
    try:
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError:
        raise EndpointURLError(_("The URL's port is not a number from 1 to 65535.")) from None
    if not parts.hostname:
        raise EndpointURLError(_("The URL has no host."))
    if parts.username or parts.password:
        raise EndpointURLError(_("Put no user or password in the URL: deliveries are signed."))
    return parts.hostname


def check_destination(url: str) -> None:
    """EndpointURLError unless `url` may be saved: the rules of `url_host`, and a host
    that resolves only to public addresses (net_guard)."""
    host = url_host(url)
    try:
        net_guard.check_host(host)
    except net_guard.DestinationRefused as refused:
        raise EndpointURLError(refused.message) from None


def validate_url(url: str) -> None:
    """Model and form validator."""
    try:
        check_destination(url)
    except EndpointURLError as problem:
        raise ValidationError(str(problem), code="invalid_webhook_url") from None


def validate_events(names: list[str]) -> None:
    unknown = sorted(set(names) - set(events.EVENTS))
    if unknown:
        raise ValidationError(
            _("Unknown events: %(names)s.") % {"names": ", ".join(unknown)}, code="unknown_event"
        )
    if not names:
        raise ValidationError(_("Choose at least one event."), code="required")


def switch(endpoint: WebhookEndpoint, enabled: bool) -> None:
    """Set `enabled` and the reason that goes with it, unsaved (the form saves it; else
    set_enabled). A disabled endpoint is owed no new event; deliveries it was owed already
    wait and go out when it is enabled again (the periodic job finds them)."""
    endpoint.enabled = enabled
    endpoint.disabled_reason = "" if enabled else WebhookEndpoint.DisabledBy.OPERATOR


def set_enabled(endpoint: WebhookEndpoint, enabled: bool) -> None:
    """An operator (or an integrator) switches deliveries on or off (see `switch`)."""
    switch(endpoint, enabled)
    WebhookEndpoint.objects.filter(pk=endpoint.pk).update(
        enabled=endpoint.enabled, disabled_reason=endpoint.disabled_reason
    )


def rotate_secret(endpoint: WebhookEndpoint) -> str:
    """A new secret, effective for the next attempt; returned to be shown once."""
    endpoint.secret = new_secret()
    WebhookEndpoint.objects.filter(pk=endpoint.pk).update(secret=endpoint.secret)
    return endpoint.secret


def send_test(endpoint: WebhookEndpoint) -> int:
    """A `webhook.test` event through the outbox (so it shows with the deliveries and is
    retried like any other); its row id."""
    from cerniq.outbound.delivery import deliver

    payload = events.envelope(
        events.new_event_id(),
        events.TEST_EVENT,
        endpoint.tenant.slug,
        {"endpoint_id": endpoint.pk, "message": "A test event from Cerniq."},
    )
    with transaction.atomic():
        (delivery_id,) = events.queue([endpoint], payload)
    deliver(delivery_id)
    return delivery_id
