"""The plan page: what goes out on the next working day (outreach.plan_preview), for
the workspace, one sequence or one phone. A thin page over the service."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import translation
from django.utils.formats import date_format
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_GET

from cerniq.tenancy import TenantScope, scope_for
from outreach.models import Sequence
from outreach.plan_preview import PlanPreview, preview
from whatsapp.models import Phone

PER_PAGE = 50


class PhoneChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, obj: Phone) -> str:
        return obj.label or obj.number


class PlanFilterForm(forms.Form):
    sequence = forms.ModelChoiceField(
        label=_("Sequence"), queryset=Sequence.objects.none(), required=False
    )
    phone = PhoneChoiceField(label=_("Phone"), queryset=Phone.objects.none(), required=False)
    page = forms.IntegerField(min_value=1, max_value=100_000, required=False)

    def __init__(self, *args: Any, scope: TenantScope, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        sequence = self.fields["sequence"]
        phone = self.fields["phone"]
        assert isinstance(sequence, forms.ModelChoiceField)
        assert isinstance(phone, forms.ModelChoiceField)
        sequence.queryset = scope.queryset(Sequence).order_by("name", "pk")
        sequence.empty_label = str(_("All sequences"))
        phone.queryset = scope.queryset(Phone).order_by("pk")
        phone.empty_label = str(_("All phones"))


@login_required
@require_GET
def plan(request: HttpRequest) -> HttpResponse:
    scope = scope_for(request)
    form = PlanFilterForm(request.GET or None, scope=scope)
    if request.GET and not form.is_valid():
        return render(request, "outreach/plan.html", {"form": form}, status=400)
    data = form.cleaned_data if request.GET else {}
    result = preview(scope.tenant, sequence=data.get("sequence"), phone=data.get("phone"))
    return render(request, "outreach/plan.html", _context(request, form, result, data))


def _context(
    request: HttpRequest, form: PlanFilterForm, result: PlanPreview, data: dict[str, Any]
) -> dict[str, Any]:
    page = Paginator(result.sends, PER_PAGE).get_page(data.get("page") or 1)
    query = request.GET.copy()
    query.pop("page", None)
    busiest = max((h.total for h in result.hours), default=0)
    return {
        "form": form,
        "plan": result,
        "day": _day_text(result),
        "opens": result.opening.time(),
        "closes": result.closing.time(),
        "page": page,
        "query_without_page": query.urlencode(),
        "hours": [
            {"bucket": h, "at": h.start.time(), "percent": _percent(h.total, busiest)}
            for h in result.hours
        ],
        "sends": [
            {"send": s, "at": s.send_at.time() if s.send_at else None, "queued": s.queued_at.time()}
            for s in page.object_list
        ],
    }


def _day_text(result: PlanPreview) -> str:
    """ "Wednesday, 2 Dec 2026" / "miercuri, 02.12.2026": the weekday, then DATE_FORMAT
    (Romanian writes day names in lower case)."""
    day = result.opening.date()
    text = f"{date_format(day, 'l')}, {date_format(day, 'DATE_FORMAT')}"
    return text.lower() if translation.get_language() == "ro" else text


def _percent(count: int, busiest: int) -> int:
    return round(100 * count / busiest) if busiest else 0
