"""The address a request came from, for lockouts and throttles (sign-in, API keys, resets).

Without a proxy it is REMOTE_ADDR. Behind one (BEHIND_PROXY=true), REMOTE_ADDR is the
proxy's, so the address comes from the one header the proxy sets (CLIENT_IP_HEADER) and from
nothing else a client could send. In X-Forwarded-For each proxy appends the address it saw:
the entry CLIENT_IP_PROXY_COUNT from the right is the one our outermost proxy saw; entries
further left are whatever the client wrote. A request without the header (one that did not
come through the proxy) falls back to REMOTE_ADDR, which no client can write.
"""

from __future__ import annotations

import ipaddress

from django.conf import settings
from django.http import HttpRequest

UNKNOWN = "0.0.0.0"  # noqa: S104 (a placeholder address, never bound)


def client_ip(request: HttpRequest) -> str:
    """The caller's address as text; UNKNOWN when the trusted source holds no address."""
    header = settings.CLIENT_IP_HEADER
    if header:
        raw = request.META.get("HTTP_" + header.upper().replace("-", "_"), "")
        entries = [entry.strip() for entry in raw.split(",") if entry.strip()]
        count = max(settings.CLIENT_IP_PROXY_COUNT, 1)
        if len(entries) >= count:
            return _address(entries[-count])
    return _address(request.META.get("REMOTE_ADDR", ""))


def _address(value: str) -> str:
    try:
        return str(ipaddress.ip_address(value.strip()))
    except ValueError:
        return UNKNOWN
