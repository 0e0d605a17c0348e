"""Headers on every page and API answer besides the Content-Security-Policy (django-csp):
Permissions-Policy, and Cache-Control: no-store where the answer is someone's data.

It sits below WhiteNoise and ProbeMiddleware in MIDDLEWARE: static files (fingerprinted,
cached for a year on purpose) and the health probes never pass through it.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils.cache import patch_cache_control

# Browser features no page of ours uses, refused to the page and to anything it embeds.
PERMISSIONS_POLICY = ", ".join(
    f"{feature}=()"
    for feature in (
        "accelerometer",
        "camera",
        "display-capture",
        "geolocation",
        "gyroscope",
        "hid",
        "magnetometer",
        "microphone",
        "midi",
        "payment",
        "serial",
        "usb",
    )
)
API_PREFIX = "/api/"


def must_not_store(request: HttpRequest) -> bool:
    """A signed-in person's page (leads, replies, phones) or any API answer (a key's data, or
    an error): no browser or shared cache may keep a copy. Anonymous pages are public or, like
    the login and password reset pages, already `never_cache` in Django."""
    if request.path_info.startswith(API_PREFIX):
        return True
    user = getattr(request, "user", None)
    return bool(user is not None and user.is_authenticated)


class SecurityHeadersMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        response.setdefault("Permissions-Policy", PERMISSIONS_POLICY)
        if must_not_store(request):
            patch_cache_control(response, no_store=True)
        return response
