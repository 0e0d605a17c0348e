"""A signed-in person whose account belongs to no workspace gets a page that says so and
what to do, instead of a bare "Not Found" from every operator page."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from cerniq.tenancy import NoTenant


class NoWorkspaceMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, NoTenant) or not request.user.is_authenticated:
            return None
        return render(request, "outreach/no_workspace.html", status=403)
