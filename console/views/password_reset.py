"""Password reset by e-mail for operators: Django's views with our pages and e-mail.

The answer never says whether an address belongs to an account (the same "check your
e-mail" page either way; Django sends only to active accounts with that address). Requests
are limited per address and per e-mail address (PASSWORD_RESET_PER_ADDRESS / _PER_EMAIL an
hour), and a new password set from the link also lifts a sign-in lockout of that account:
whoever reads its mailbox proved enough. Without a way to send e-mail
(PASSWORD_RESET_BY_EMAIL off) these pages are 404 and the login page says to ask an admin.
"""

from __future__ import annotations

import math
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import PasswordResetForm, SetPasswordForm
from django.http import Http404, HttpRequest, HttpResponse
from django.utils.decorators import method_decorator
from django.utils.translation import ngettext
from django.views.decorators.cache import never_cache

from cerniq import signin
from cerniq.attempt_limits import AttemptLimit
from cerniq.client_ip import client_ip

HOUR = timedelta(hours=1)


def reset_limits() -> tuple[AttemptLimit, AttemptLimit]:
    """Reset requests per address, and per e-mail address (a mailbox is not flooded)."""
    return (
        AttemptLimit("password-reset-address", settings.PASSWORD_RESET_PER_ADDRESS, HOUR, HOUR),
        AttemptLimit("password-reset-email", settings.PASSWORD_RESET_PER_EMAIL, HOUR, HOUR),
    )


def link_minutes() -> int:
    return settings.PASSWORD_RESET_TIMEOUT // 60


class ByEmailOnly:
    """The pages exist only where e-mail can be sent."""

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not settings.PASSWORD_RESET_BY_EMAIL:
            raise Http404
        return super().dispatch(request, *args, **kwargs)  # type: ignore[misc]


@method_decorator(never_cache, name="dispatch")
class RequestReset(ByEmailOnly, auth_views.PasswordResetView):
    template_name = "registration/password_reset_form.html"
    email_template_name = "registration/password_reset_email.txt"
    subject_template_name = "registration/password_reset_subject.txt"

    def form_valid(self, form: PasswordResetForm) -> HttpResponse:
        by_address, by_email = reset_limits()
        callers = [
            (by_address, client_ip(self.request)),
            (by_email, form.cleaned_data["email"].strip().lower()),
        ]
        wait = max(limit.retry_after(caller) for limit, caller in callers)
        if wait:
            minutes = math.ceil(wait / 60)
            message = ngettext(
                "Too many password reset requests. Try again in %(minutes)d minute.",
                "Too many password reset requests. Try again in %(minutes)d minutes.",
                minutes,
            ) % {"minutes": minutes}
            context = self.get_context_data(form=form, throttled=message)
            response = self.render_to_response(context, status=429)
            response["Retry-After"] = str(wait)
            return response
        for limit, caller in callers:
            limit.record(caller)
        self.extra_email_context = {
            "base_url": settings.PUBLIC_BASE_URL.rstrip("/")
            or self.request.build_absolute_uri("/").rstrip("/"),
            "timeout_minutes": link_minutes(),
        }
        return super().form_valid(form)


@method_decorator(never_cache, name="dispatch")
class ResetSent(ByEmailOnly, auth_views.PasswordResetDoneView):
    template_name = "registration/password_reset_done.html"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        return {**super().get_context_data(**kwargs), "timeout_minutes": link_minutes()}


class SetNewPassword(ByEmailOnly, auth_views.PasswordResetConfirmView):
    template_name = "registration/password_reset_confirm.html"

    def form_valid(self, form: SetPasswordForm) -> HttpResponse:
        response = super().form_valid(form)
        signin.unlock_accounts([form.user.get_username()])
        return response


@method_decorator(never_cache, name="dispatch")
class PasswordSet(ByEmailOnly, auth_views.PasswordResetCompleteView):
    template_name = "registration/password_reset_complete.html"
