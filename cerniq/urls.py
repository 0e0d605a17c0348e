"""The root URLconf: the platform's own endpoints, then the operator pages (console).

Included by dotted path, never imported: the platform does not depend on the apps above.
The probes (`/health`, `/health/live`, `/health/ready`) and `/metrics` are answered before
URL routing, by cerniq.health.ProbeMiddleware.
"""

from django.contrib import admin
from django.urls import include, path, re_path

from cerniq.webhook_intake import WebhookIntakeView

# A request Django cannot read (too large, too many fields or files): 413/400 naming the
# limit, as the API's JSON error under /api/ and as a small page elsewhere.
handler400 = "cerniq.http_errors.bad_request"

urlpatterns = [
    path("admin/", admin.site.urls),
    # /webhooks/<provider>/<token>/ (the token is the per-tenant secret for providers that
    # sign nothing) or /webhooks/<provider>/ for signing providers. The trailing slash is
    # optional: a POST must never be redirected (APPEND_SLASH would drop its body).
    re_path(
        r"^webhooks/(?P<provider>[-a-z0-9_]+)(?:/(?P<token>[^/]+))?/?$",
        WebhookIntakeView.as_view(),
        name="webhook-intake",
    ),
    path("api/", include("api.urls")),  # the REST API (#13)
    path("", include("console.urls_site")),
]
