"""`manage.py check` (and `check --deploy`) for Mailchimp: a key that cannot reach any
account is said at start-up, not at the first sync."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import Tags, Warning, register

from integrations.mailchimp import config


@register(Tags.compatibility)
def check_mailchimp_options(app_configs: Any = None, **kwargs: Any) -> list[Warning]:
    found = []
    key, base = config.option("api_key"), config.option("base_url")
    if key and not config.base_url(key):
        found.append(
            Warning(
                "MAILCHIMP_API_KEY has no data centre after its last '-' (e.g. …-us21).",
                hint="Copy the whole key from Mailchimp (Account → Extras → API keys), or set "
                "MAILCHIMP_BASE_URL.",
                id="mailchimp.W001",
            )
        )
    if base and not settings.DEBUG and not base.startswith("https://"):
        found.append(
            Warning(
                "MAILCHIMP_BASE_URL is not https: the API key would travel in clear.",
                id="mailchimp.W002",
            )
        )
    if not key and not settings.DEBUG:
        found.append(
            Warning(
                "MAILCHIMP_API_KEY is empty: no workspace can sync an audience.",
                hint="Set it, or take integrations.mailchimp out of INTEGRATIONS.",
                id="mailchimp.W003",
            )
        )
    return found
