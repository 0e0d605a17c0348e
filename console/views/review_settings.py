"""Review deadlines (/outreach/settings/review/): how long a reply may wait for a person, per
priority, in working time. Tenant admins change them (403 for others); every operator sees
them on the review page. The rules (defaults, bounds, order) live in hitl.sla."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods

from cerniq.tenancy import AuthenticatedHttpRequest, scope_for
from console.views.alerts import is_channel_admin
from hitl import sla
from outreach.models import Priority


class DeadlinesForm(forms.Form):
    """Minutes of working time per priority; hitl.sla.check says what is wrong."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        for priority in sla.ORDER:
            self.fields[priority] = forms.IntegerField(
                label=Priority(priority).label,
                min_value=sla.MIN_MINUTES,
                max_value=sla.MAX_MINUTES,
                help_text=gettext_lazy("minutes of working time"),
                widget=forms.NumberInput(attrs={"step": 5}),
            )

    def clean(self) -> dict:
        super().clean()
        cleaned = self.cleaned_data
        if all(cleaned.get(p) is not None for p in sla.ORDER):
            for priority, problem in sla.check(cleaned).items():
                self.add_error(priority, problem)
        return cleaned


def working_time(minutes: int) -> str:
    """1 h 30 min, 24 h: what an operator reads beside a number of minutes."""
    hours, rest = divmod(minutes, 60)
    if hours and rest:
        return _("%(hours)s h %(minutes)s min") % {"hours": hours, "minutes": rest}
    if hours:
        return _("%(hours)s h") % {"hours": hours}
    return _("%(minutes)s min") % {"minutes": rest}


def deadline_rows(minutes: dict[str, int]) -> list[dict]:
    """Each priority's deadline and the default, as an operator reads them."""
    return [
        {
            "priority": p,
            "label": Priority(p).label,
            "shown": working_time(minutes[p]),
            "default": working_time(sla.DEFAULT_MINUTES[p]),
        }
        for p in sla.ORDER
    ]


@login_required
@require_http_methods(["GET", "POST"])
def review_settings(request: AuthenticatedHttpRequest) -> HttpResponse:
    scope = scope_for(request)
    if not is_channel_admin(request, scope):
        raise PermissionDenied(_("Only the workspace's admins change the review deadlines."))
    current = sla.deadlines(scope.tenant)
    form = DeadlinesForm(request.POST or None, initial=current.minutes)
    if request.method == "POST":
        if form.is_valid():
            sla.save(scope.tenant, {p: form.cleaned_data[p] for p in sla.ORDER}, by=request.user)
            messages.success(
                request,
                _(
                    "Review deadlines saved. Items opened from now on use them; "
                    "open items keep their due time."
                ),
            )
            return redirect("outreach:review_settings")
        messages.error(request, _("Nothing was saved: correct the fields marked below."))
    context = {
        "form": form,
        "rows": deadline_rows(current.minutes),
        "customised": current.customised,
    }
    return render(request, "hitl/review_settings.html", context, status=400 if form.errors else 200)
