"""The public one-click unsubscribe page (outreach.unsubscribe; RFC 8058). No login, no
CSRF token: a mail client POSTs here on the recipient's behalf without cookies. A GET only
shows the button (link scanners GET every URL in an email)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from outreach import unsubscribe as service


def _masked(email: str) -> str:
    """ion.popescu@agro.ro → i***@agro.ro: enough to recognise, nothing for a stranger."""
    local, _, domain = email.partition("@")
    return f"{local[:1]}***@{domain}" if domain else ""


@csrf_exempt
@never_cache
@require_http_methods(["GET", "POST"])
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    recipient = service.recipient_for(token)
    if recipient is None:
        return render(request, "public/unsubscribe.html", {"state": "invalid"}, status=404)
    context = {"sender": recipient.lead.tenant.name, "address": _masked(recipient.lead.email)}
    if request.method == "POST":
        service.unsubscribe(recipient)
        return render(request, "public/unsubscribe.html", {**context, "state": "done"})
    state = "done" if recipient.already_out else "ask"
    return render(request, "public/unsubscribe.html", {**context, "state": state})
