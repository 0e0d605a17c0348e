"""System checks: a real provider selected without its credentials is a warning."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import Tags, Warning, register

_CREDENTIAL_OPTIONS = ("api_token", "api_key", "access_token")


@register(Tags.compatibility)
def check_provider_credentials(app_configs: Any = None, **kwargs: Any) -> list[Warning]:
    warnings = []
    for alias, config in settings.PROVIDERS.items():
        if ".sandbox." in config["BACKEND"]:
            continue
        options = config.get("OPTIONS", {})
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
