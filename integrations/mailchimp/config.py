"""Mailchimp's options (the declaration in __init__.py names their environment variables).

The API key alone says where the account lives: Marketing API keys end in `-<dc>` (`…-us21`)
and the account's API is at https://<dc>.api.mailchimp.com/3.0. MAILCHIMP_BASE_URL overrides
the whole base (a proxy, a test server). The key is sent as the Basic-auth password and is
never logged or shown.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

from django.conf import settings

from cerniq import integrations

if TYPE_CHECKING:
    from integrations.mailchimp.client import MailchimpClient

# Data centres are a short region and a number (us1 … us21, eu1): checked, because the
# host is built from the key.
_DATA_CENTRE = re.compile(r"[a-z]{2,4}[0-9]{1,3}")


def option(name: str) -> str:
    """An option's value: a setting of the variable's name (tests), else the environment,
    else the declared default."""
    declared = integrations.load("integrations.mailchimp").options[name]
    value = getattr(settings, declared.env, None)
    if value is None:
        value = os.environ.get(declared.env, declared.default)
    return str(value or "").strip()


def data_centre(api_key: str) -> str:
    """The part of the key after its last "-" when it is a data centre, else ""."""
    _, dash, tail = (api_key or "").strip().rpartition("-")
    return tail if dash and _DATA_CENTRE.fullmatch(tail) else ""


def base_url(api_key: str | None = None, override: str | None = None) -> str:
    """Where the account's API is: MAILCHIMP_BASE_URL, else the key's data centre; "" when
    neither says."""
    override = option("base_url") if override is None else override
    if override:
        return override.rstrip("/")
    centre = data_centre(option("api_key") if api_key is None else api_key)
    return f"https://{centre}.api.mailchimp.com/3.0" if centre else ""


def problem() -> str:
    """What keeps the deployment from talking to Mailchimp ("" when nothing does): said on
    the settings page and by `manage.py check`."""
    key = option("api_key")
    if not key:
        return "MAILCHIMP_API_KEY is not set"
    if not base_url(key):
        return "MAILCHIMP_API_KEY has no data centre after its last '-' (e.g. …-us21)"
    return ""


def client() -> MailchimpClient:
    """A MailchimpClient with the configured key and base URL."""
    from integrations.mailchimp.client import MailchimpClient

    key = option("api_key")
    return MailchimpClient(api_key=key, base_url=base_url(key))
