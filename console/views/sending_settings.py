"""The sending settings page (/outreach/settings/sending/): tenant admins set the sending
hours, working days, holiday calendar, pacing and the contact policy; saving re-plans the
waiting work at once (outreach.window_replanning), wakes leads a looser policy may unblock
(outreach.contact_policy) and says how much moved."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods

from cerniq.tenancy import scope_for
from console.forms_sending import SendingSettingsForm
from console.views.alerts import is_channel_admin
from outreach.contact_policy import change_contact_policy
from outreach.next_send import next_send_at
from outreach.window_replanning import change_window


@login_required
@require_http_methods(["GET", "POST"])
def sending_settings(request: HttpRequest) -> HttpResponse:
    scope = scope_for(request)
    if not is_channel_admin(request, scope):
        raise PermissionDenied(_("Only an admin of this workspace can change the sending hours."))
    form = SendingSettingsForm(request.POST or None, tenant=scope.tenant)
    if request.method == "POST" and form.is_valid():
        moved = change_window(scope.tenant, form.settings)
        woken = change_contact_policy(
            scope.tenant,
            whatsapp=form.cleaned_data["contact_unverified_whatsapp"],
            email=form.cleaned_data["contact_unverified_email"],
        )
        messages.success(request, _saved(moved.messages, moved.leads))
        if woken:
            messages.info(request, _woken(woken))
        return redirect("outreach:sending_settings")
    context = {"form": form, "window_now": next_send_at(scope.tenant)}
    return render(request, "outreach/sending_settings.html", context)


def _saved(message_count: int, lead_count: int) -> str:
    if not message_count and not lead_count:
        return _("Sending settings saved. No waiting work needed a new time.")
    return _("Sending settings saved. Re-planned at once: %(messages)s and %(leads)s.") % {
        "messages": ngettext("%(count)s queued message", "%(count)s queued messages", message_count)
        % {"count": message_count},
        "leads": ngettext(
            "the next step of %(count)s lead", "the next steps of %(count)s leads", lead_count
        )
        % {"count": lead_count},
    }


def _woken(count: int) -> str:
    return ngettext(
        "Contact policy changed: %(count)s stalled lead is looked at again by the next dispatch.",
        "Contact policy changed: %(count)s stalled leads are looked at again by the next dispatch.",
        count,
    ) % {"count": count}
