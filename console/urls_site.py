"""Operator pages: login, password reset by e-mail, the language switch, and the pages under
/outreach/; the public one-click unsubscribe page."""

from django.contrib.auth import views as auth_views
from django.urls import include, path
from django.views.i18n import set_language

from console.views import password_reset
from console.views.auth import Login, home
from console.views.unsubscribe import unsubscribe

urlpatterns = [
    path("", home, name="home"),
    path("login/", Login.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("password-reset/", password_reset.RequestReset.as_view(), name="password_reset"),
    path("password-reset/sent/", password_reset.ResetSent.as_view(), name="password_reset_done"),
    path(
        "password-reset/<uidb64>/<token>/",
        password_reset.SetNewPassword.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "password-reset/done/",
        password_reset.PasswordSet.as_view(),
        name="password_reset_complete",
    ),
    path("i18n/setlang/", set_language, name="set_language"),
    # One-click unsubscribe (RFC 8058): public, signed token, linked from every email we send.
    path("u/<str:token>/", unsubscribe, name="unsubscribe"),
    path("outreach/review/", include("console.urls_review")),
    path("outreach/", include("console.urls")),
]
