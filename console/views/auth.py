"""Entry point: `/` sends a signed-in operator to the dashboard, others to the login page."""

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect


@login_required
def home(request: HttpRequest) -> HttpResponse:
    return redirect("outreach:dashboard")
