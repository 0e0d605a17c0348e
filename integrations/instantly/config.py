"""Instantly's options (the declaration in __init__.py names their environment variables)
and the per-tenant webhook secret derived from them.

Instantly signs nothing (docs/providers.md §2.4): the only proof a delivery is Instantly's is a
header we ask it to send, set when the subscription is created. Each tenant gets its own
value without a new secret in the database: HMAC-SHA256 keyed by INSTANTLY_WEBHOOK_SECRET
(environment) over "instantly-webhook:" + the tenant's webhook token. Rotating the key or a
token changes the header; `manage.py instantly_setup` then updates the subscription.

With INSTANTLY_WEBHOOK_SECRET unset the key is derived from SECRET_KEY (HMAC with a label
of its own, as Django's salted_hmac does; SECRET_KEY itself never leaves), so development,
tests and the embedded mode work without it. Production should set it anyway: otherwise a
SECRET_KEY rotation changes every tenant's header, and deliveries are refused (401) until
`instantly_setup` has been run again. With neither key, nothing is authenticated.
"""

from __future__ import annotations

import hashlib
import hmac
import os

from django.conf import settings

from cerniq import integrations

HEADER = "x-webhook-secret"


def option(name: str) -> str:
    """An option's value: a setting of the variable's name (tests), else the environment,
    else the declared default."""
    declared = integrations.load("integrations.instantly").options[name]
    value = getattr(settings, declared.env, None)
    if value is None:
        value = os.environ.get(declared.env, declared.default)
    return str(value or "").strip()


def _key() -> bytes:
    key = option("webhook_secret")
    if key:
        return key.encode()
    # Django refuses an empty SECRET_KEY, so there is always a key.
    return hmac.new(
        settings.SECRET_KEY.encode(), b"integrations.instantly webhook key", hashlib.sha256
    ).digest()


def webhook_secret(webhook_token: str) -> str:
    """The `x-webhook-secret` value of the tenant with this webhook token ("" for none)."""
    key = _key()
    if not key or not webhook_token:
        return ""
    return hmac.new(key, b"instantly-webhook:" + webhook_token.encode(), hashlib.sha256).hexdigest()


def client():
    """An InstantlyClient with the configured key and base URL."""
    from integrations.instantly.client import InstantlyClient

    return InstantlyClient(api_key=option("api_key"), base_url=option("base_url"))


def talks_to_instantly() -> bool:
    """Whether cold email really goes to Instantly (not the demo's sandbox backend, which
    `make run` sets through INSTANTLY_BACKEND): only then is there a lead at Instantly to
    update or delete."""
    from cerniq.providers import get_backend

    return not getattr(get_backend("email.instantly"), "is_sandbox", False)
