"""The API's HTML pages under a Content-Security-Policy of their own: DRF's browsable API
(a signed-in operator opening /api/v1/... in a browser) and the documentation pages
(api.urls). Their templates and libraries write inline styles, so styles are relaxed for
them; scripts stay the site's (our static files only). Everywhere else the site's strict
policy holds (CONTENT_SECURITY_POLICY in settings)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rest_framework.renderers import BrowsableAPIRenderer

# Swagger UI and Redoc also draw images from blobs, and Redoc searches in a blob worker.
DOCS_POLICY = {
    "style-src": ["'unsafe-inline'"],
    "worker-src": ["'self'", "blob:"],
    "img-src": ["blob:"],
}
BROWSABLE_POLICY = {"style-src": ["'unsafe-inline'"]}


class BrowsableAPI(BrowsableAPIRenderer):
    def render(
        self,
        data: Any,
        accepted_media_type: str | None = None,
        renderer_context: Mapping[str, Any] | None = None,
    ) -> Any:
        response = (renderer_context or {}).get("response")
        if response is not None:
            # What django-csp's @csp_update sets; its middleware reads it after rendering.
            response._csp_update = BROWSABLE_POLICY
        return super().render(data, accepted_media_type, renderer_context)
