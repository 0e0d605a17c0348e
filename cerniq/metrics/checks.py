"""System checks of the metrics' access settings (registered by CerniqConfig.ready).

- cerniq.metrics.E001: METRICS_ALLOWED_NETWORKS holds something that is not a network.
- cerniq.metrics.W001: METRICS_TOKEN is short enough to guess.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, Error, Tags, Warning, register
from django.core.exceptions import ImproperlyConfigured

from cerniq.metrics.views import allowed_networks

MIN_TOKEN_LENGTH = 32


@register(Tags.security)
def check_metrics_access(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    found: list[CheckMessage] = []
    try:
        allowed_networks()
    except ImproperlyConfigured as exc:
        found.append(Error(str(exc), id="cerniq.metrics.E001"))
    token = settings.METRICS_TOKEN
    if token and len(token) < MIN_TOKEN_LENGTH:
        found.append(
            Warning(
                f"METRICS_TOKEN has {len(token)} characters; use at least {MIN_TOKEN_LENGTH} "
                "random ones (python -c 'import secrets; print(secrets.token_urlsafe(32))').",
                id="cerniq.metrics.W001",
            )
        )
    return found
