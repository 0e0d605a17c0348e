from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path, re_path
from django.views.i18n import set_language

from cerniq import health
from cerniq.webhooks import WebhookIntakeView
from outreach.views.auth import home

urlpatterns = [
    path("admin/", admin.site.urls),
    path("health", health.health, name="health"),
    # /webhooks/<provider>/<token>/ (the token is the per-tenant secret for providers that
    # sign nothing) or /webhooks/<provider>/ for signing providers. The trailing slash is
    # optional: a POST must never be redirected (APPEND_SLASH would drop its body).
    re_path(
        r"^webhooks/(?P<provider>[-a-z0-9_]+)(?:/(?P<token>[^/]+))?/?$",
        WebhookIntakeView.as_view(),
        name="webhook-intake",
    ),
    # Operator pages.
    path("", home, name="home"),
    path(
        "login/",
        auth_views.LoginView.as_view(redirect_authenticated_user=True),
        name="login",
    ),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("i18n/setlang/", set_language, name="set_language"),
    path("outreach/review/", include("hitl.urls")),
    path("outreach/", include("outreach.urls")),
]
