"""Small facts about a provider's HTTP answer that every client needs the same way (the
retry table in cerniq.retry depends on them being read alike)."""

from __future__ import annotations

import json
from typing import Any

import requests
from urllib3.exceptions import ConnectTimeoutError, MaxRetryError, NewConnectionError


def failed_before_sending(exc: requests.exceptions.RequestException) -> bool:
    """True when the connection was never established (refused, DNS, TLS, proxy): the
    request cannot have reached the provider. Any other connection error may have come
    after the provider read it, so a send that failed so is uncertain."""
    if isinstance(exc, requests.exceptions.SSLError | requests.exceptions.ProxyError):
        return True
    reason = exc.args[0] if exc.args else None
    if isinstance(reason, MaxRetryError):
        reason = reason.reason
    return isinstance(reason, NewConnectionError | ConnectTimeoutError)


def json_object(content: bytes) -> dict[str, Any] | None:
    """The body as a JSON object, or None (not UTF-8, not JSON, not an object: an HTML
    error page from a gateway, an empty answer)."""
    try:
        parsed = json.loads(content.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    return parsed if isinstance(parsed, dict) else None
