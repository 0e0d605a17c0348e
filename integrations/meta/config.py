"""The Meta app's secrets, from the environment (the integration's options), never stored
and never logged.

When META_APP_SECRET is unset, webhooks are signed-checked with a key derived from
SECRET_KEY: nothing Meta signs verifies with it (so nothing from outside is accepted), while
the demo and the fixture replay can sign their own deliveries (`MetaReceiver.delivery`).
"""

from __future__ import annotations

import hashlib
import hmac

from django.conf import settings

from cerniq.providers import provider_config

ALIAS = "whatsapp.meta"


def _option(name: str) -> str:
    return str(provider_config(ALIAS).get("OPTIONS", {}).get(name) or "").strip()


def configured_app_secret() -> str:
    return _option("app_secret")


def app_secret() -> str:
    """META_APP_SECRET: signs every webhook (X-Hub-Signature-256)."""
    secret = configured_app_secret()
    if secret:
        return secret
    return hmac.new(settings.SECRET_KEY.encode(), b"meta-webhook-local", hashlib.sha256).hexdigest()


def verify_token() -> str:
    """META_VERIFY_TOKEN: what Meta sends back in its `hub.*` verification GET."""
    return _option("verify_token")


def page_tokens() -> dict[str, str]:
    """META_PAGE_TOKENS: `<page id>=<page access token>,…`, to fetch Lead Ads leads."""
    tokens = {}
    for pair in _option("page_tokens").split(","):
        page, _, token = pair.strip().partition("=")
        if page.strip().isdigit() and token.strip():
            tokens[page.strip()] = token.strip()
    return tokens


def graph_base() -> str:
    """META_GRAPH_BASE_URL (a local fake server in benches); Meta's own by default."""
    return _option("base_url").rstrip("/")


def graph_version() -> str:
    """META_GRAPH_VERSION, pinned: Meta retires versions about two years after release."""
    return _option("api_version")


def messaging_limit(default: int) -> int | None:
    """META_MESSAGING_LIMIT: the portfolio's limit before Meta announces one ("unlimited")."""
    value = _option("messaging_limit").lower()
    if value in ("unlimited", "-1"):
        return None
    return int(value) if value.isdigit() else default


def problems() -> list[str]:
    """What the deployment lacks for the Cloud API and Lead Ads (shown to admins)."""
    from django.utils.translation import gettext as _

    missing = [
        name
        for name, option in (
            ("META_ACCESS_TOKEN", "access_token"),
            ("META_APP_SECRET", "app_secret"),
            ("META_VERIFY_TOKEN", "verify_token"),
        )
        if not _option(option)
    ]
    return [_("%(name)s is not set on the server") % {"name": name} for name in missing]
