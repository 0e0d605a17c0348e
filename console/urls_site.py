"""Operator pages: login, the language switch, and the pages under /outreach/; the public
one-click unsubscribe page."""

from django.contrib.auth import views as auth_views
from django.urls import include, path
from django.views.i18n import set_language

from console.views.auth import home
from console.views.unsubscribe import unsubscribe

urlpatterns = [
    path("", home, name="home"),
    path(
        "login/",
        auth_views.LoginView.as_view(redirect_authenticated_user=True),
        name="login",
    ),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("i18n/setlang/", set_language, name="set_language"),
    # One-click unsubscribe (RFC 8058): public, signed token, linked from every email we send.
    path("u/<str:token>/", unsubscribe, name="unsubscribe"),
    path("outreach/review/", include("console.urls_review")),
    path("outreach/", include("console.urls")),
]
