"""Entry point: `/` sends a signed-in operator to the dashboard, others to the login page;
the login page itself (Django's, saying whether a password can be reset by e-mail)."""

from typing import Any

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect


@login_required
def home(request: HttpRequest) -> HttpResponse:
    return redirect("outreach:dashboard")


class Login(auth_views.LoginView):
    """Sign-in lockouts are django-axes' (cerniq.signin), on this page and /admin/login/."""

    redirect_authenticated_user = True

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context["password_reset_by_email"] = settings.PASSWORD_RESET_BY_EMAIL
        return context
