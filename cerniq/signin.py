"""Sign-in lockouts (django-axes) for /login/ and /admin/login/: the two limits, the page a
locked-out sign-in gets, and unlocking (docs/security.md).

An account locks after SIGNIN_ACCOUNT_FAILURES failed sign-ins from any address (guessing
one password from many machines); an address locks after SIGNIN_ADDRESS_FAILURES failures
across accounts (trying many accounts from one machine). Either lasts SIGNIN_LOCKOUT_MINUTES
after the last attempt: an attempt while locked, even with the right password, is refused
and restarts the wait (axes' default), so the page can say how long to wait.
"""

from __future__ import annotations

from collections.abc import Iterable

from axes.handlers.database import AxesDatabaseHandler
from axes.models import AccessAttempt
from axes.utils import reset
from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm
from django.db.models import Sum
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import ngettext

LOCKED_STATUS = 429


class LockoutHandler(AxesDatabaseHandler):
    """axes' database handler with a limit per account and another per address.

    axes compares one number with one limit (AXES_FAILURE_LIMIT, the account's): the
    address's failures are scaled so that SIGNIN_ADDRESS_FAILURES of them reach it."""

    def get_failures(self, request: HttpRequest, credentials: dict | None = None) -> int:
        # In the order of AXES_LOCKOUT_PARAMETERS: ["username", "ip_address"].
        by_account, by_address = (
            attempts.aggregate(total=Sum("failures_since_start"))["total"] or 0
            for attempts in self.get_user_attempts(request, credentials)
        )
        scaled = by_address * settings.SIGNIN_ACCOUNT_FAILURES // settings.SIGNIN_ADDRESS_FAILURES
        return max(by_account, scaled)

    def reset_user_attempts(self, request: HttpRequest, credentials: dict | None = None) -> int:
        """After a successful sign-in, forget that account's failures only: signing in to
        one's own account must not wipe the address's failures on other accounts."""
        username = (credentials or {}).get(settings.AXES_USERNAME_FORM_FIELD)
        if not username:
            return 0
        count, _ = AccessAttempt.objects.filter(username=username).delete()
        return count


def lockout_message() -> str:
    minutes = settings.SIGNIN_LOCKOUT_MINUTES
    return ngettext(
        "Too many failed sign-in attempts. Try again in %(minutes)d minute, "
        "or ask an admin to unlock your account.",
        "Too many failed sign-in attempts. Try again in %(minutes)d minutes, "
        "or ask an admin to unlock your account.",
        minutes,
    ) % {"minutes": minutes}


def lockout_response(
    request: HttpRequest,
    original_response: HttpResponse | None = None,
    credentials: dict | None = None,
) -> HttpResponse:
    """The login page again, saying why and for how long, as 429 with Retry-After."""
    username = (credentials or {}).get(settings.AXES_USERNAME_FORM_FIELD) or ""
    context = {
        "form": AuthenticationForm(request, initial={"username": username}),
        "locked_out": lockout_message(),
        "next": request.POST.get("next") or request.GET.get("next") or "",
        "password_reset_by_email": settings.PASSWORD_RESET_BY_EMAIL,
    }
    response = render(request, "registration/login.html", context, status=LOCKED_STATUS)
    response["Retry-After"] = str(settings.SIGNIN_LOCKOUT_MINUTES * 60)
    return response


def unlock_accounts(usernames: Iterable[str]) -> int:
    """Lift the lockout of these accounts (their failed sign-ins are forgotten); an address
    that is locked stays locked (axes' admin, `manage.py axes_reset_ip`). Returns the
    attempt rows removed."""
    return sum(reset(username=username) for username in usernames)
