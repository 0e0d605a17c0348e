"""Provider backends selected by alias in settings.PROVIDERS (Django's STORAGES shape)."""

from __future__ import annotations

import functools
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.utils.module_loading import import_string


@functools.cache
def get_backend(alias: str) -> Any:
    try:
        config = settings.PROVIDERS[alias]
    except KeyError:
        raise ImproperlyConfigured(f"No provider {alias!r} in settings.PROVIDERS") from None
    return import_string(config["BACKEND"])(**config.get("OPTIONS", {}))


@receiver(setting_changed)
def _reset_backends(*, setting: str, **kwargs: Any) -> None:
    if setting == "PROVIDERS":
        get_backend.cache_clear()  # so override_settings works in tests
