"""System checks: a real provider selected without its credentials is a warning."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import Tags, Warning, register
from django.utils.module_loading import import_string

_CREDENTIAL_OPTIONS = ("api_token", "api_key", "access_token")


@register(Tags.compatibility)
def check_provider_credentials(app_configs: Any = None, **kwargs: Any) -> list[Warning]:
    warnings = []
    for alias, config in settings.PROVIDERS.items():
        try:
            backend = import_string(config["BACKEND"])
        except ImportError as exc:
            warnings.append(
                Warning(
                    f"Provider {alias}: cannot import {config['BACKEND']} ({exc}).",
                    id="cerniq.W002",
                )
            )
            continue
        if not getattr(backend, "needs_credentials", True):
            continue
        options = config.get("OPTIONS", {})
        if any(host in str(options.get("base_url", "")) for host in ("localhost", "127.0.0.1")):
            continue  # a local model server (Ollama, LM Studio) needs no key
        missing = [k for k in _CREDENTIAL_OPTIONS if k in options and not options[k]]
        if missing:
            warnings.append(
                Warning(
                    f"Provider {alias} uses {config['BACKEND']} but {', '.join(missing)} is empty.",
                    hint="Set the credential in the environment or select the sandbox backend.",
                    id="cerniq.W001",
                )
            )
    return warnings
