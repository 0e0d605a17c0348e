"""`/metrics`: the Prometheus exposition, for a scraper that proves it may read it.

Allowed with `Authorization: Bearer <METRICS_TOKEN>` (compared in constant time) or from an
address in METRICS_ALLOWED_NETWORKS (CIDRs; the connecting address, REMOTE_ADDR, never a
forwarded header a client can write). With neither configured the endpoint does not exist
(404): metrics are never public by accident.
"""

from __future__ import annotations

import hmac
import ipaddress
from functools import cache

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, generate_latest
from prometheus_client.multiprocess import MultiProcessCollector

from cerniq.metrics.collectors import ScrapeCollector
from cerniq.metrics.directory import ensure, is_multiprocess

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@cache
def _parse_networks(values: tuple[str, ...]) -> tuple[Network, ...]:
    networks = []
    for value in values:
        try:
            networks.append(ipaddress.ip_network(value.strip(), strict=False))
        except ValueError:
            raise ImproperlyConfigured(
                f"METRICS_ALLOWED_NETWORKS: {value!r} is not an IP network (CIDR, e.g. 10.0.0.0/8)"
            ) from None
    return tuple(networks)


def allowed_networks() -> tuple[Network, ...]:
    return _parse_networks(tuple(v for v in settings.METRICS_ALLOWED_NETWORKS if v.strip()))


def _bearer(request: HttpRequest) -> str:
    scheme, _, credentials = request.headers.get("Authorization", "").partition(" ")
    return credentials.strip() if scheme.lower() == "bearer" else ""


def _from_allowed_network(request: HttpRequest, networks: tuple[Network, ...]) -> bool:
    try:
        address = ipaddress.ip_address(request.META.get("REMOTE_ADDR", ""))
    except ValueError:
        return False
    return any(address in network for network in networks)


def refusal(request: HttpRequest) -> HttpResponse | None:
    """None when `request` may read the metrics, else the answer: 404 when access is not
    configured at all, 401 (a token is expected) or 403 (only networks are allowed)."""
    token = settings.METRICS_TOKEN
    networks = allowed_networks()
    if not token and not networks:
        return HttpResponse("Not Found", status=404, content_type="text/plain")
    offered = _bearer(request)
    if token and offered and hmac.compare_digest(offered.encode(), token.encode()):
        return None
    if networks and _from_allowed_network(request, networks):
        return None
    if token:
        response = HttpResponse("Unauthorized", status=401, content_type="text/plain")
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    return HttpResponse("Forbidden", status=403, content_type="text/plain")


class _ThisProcess:
    """The default registry's metrics, when prometheus-client was imported before settings
    chose multiprocess mode (a script): only this process's counters are known then."""

    def collect(self):
        return REGISTRY.collect()


def exposition() -> bytes:
    """Every process's counters (multiprocess files) and the scrape-time collectors."""
    registry = CollectorRegistry()
    if is_multiprocess():
        MultiProcessCollector(registry, path=str(ensure()))
    else:
        registry.register(_ThisProcess())
    registry.register(ScrapeCollector())
    return generate_latest(registry)


def metrics(request: HttpRequest) -> HttpResponse:
    if request.method not in ("GET", "HEAD"):
        return HttpResponseNotAllowed(["GET", "HEAD"])
    refused = refusal(request)
    if refused is not None:
        return refused
    response = HttpResponse(exposition(), content_type=CONTENT_TYPE_LATEST)
    response["Cache-Control"] = "no-store"
    return response
