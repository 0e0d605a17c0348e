"""Provider backends selected by alias (`<kind>.<provider>`, Django's STORAGES shape).

settings.PROVIDERS holds the configured aliases: the integrations' defaults (from their
declarations, see cerniq.integrations) plus the ones settings.py adds. An alias of a
registered integration that PROVIDERS does not list still resolves from its declaration.
"""

from __future__ import annotations

import functools
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.utils.module_loading import import_string

from cerniq import integrations


def provider_config(alias: str) -> dict[str, Any]:
    if alias in settings.PROVIDERS:
        return settings.PROVIDERS[alias]
    kind, _, key = alias.partition(".")
    integration = integrations.get(key)
    if integration is None or kind not in integration.backends:
        raise ImproperlyConfigured(f"No provider {alias!r} in settings.PROVIDERS")
    return integration.provider_config(kind)


@functools.cache
def get_backend(alias: str) -> Any:
    config = provider_config(alias)
    return import_string(config["BACKEND"])(**config.get("OPTIONS", {}))


@receiver(setting_changed)
def _reset_backends(*, setting: str, **kwargs: Any) -> None:
    if setting in ("PROVIDERS", "INTEGRATIONS"):
        get_backend.cache_clear()  # so override_settings works in tests
