"""The analytics page: replies and positive replies per day by channel, per template
version and per phone, over a chosen date range.

It reads the roll-up tables only (DailyStats / TemplateDailyStats, filled by
`manage.py rollup_stats`), in a fixed number of queries whatever the range.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from django import forms
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.db.models import Sum
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_GET

from cerniq.tenancy import scope_for
from email_channels.models import CampaignDailyStats
from hitl.response_times import response_times
from outreach.analytics import (
    RangeInvalid,
    analytics_report,
    default_range,
    local_today,
    rate,
    report_range,
)


class DateRangeForm(forms.Form):
    """From/to dates (both included); empty fields default to the last 30 days."""

    start = forms.DateField(
        label=_("From"),
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
    )
    end = forms.DateField(
        label=_("To"),
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
    )

    def __init__(self, *args: Any, today: date, **kwargs: Any) -> None:
        self.today = today
        self.default_start, self.default_end = default_range(today)
        kwargs.setdefault("initial", {"start": self.default_start, "end": self.default_end})
        super().__init__(*args, **kwargs)

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        if self.errors:
            return data
        try:
            start, end = report_range(self.today, data.get("start"), data.get("end"))
        except RangeInvalid as invalid:
            raise ValidationError(str(invalid), code=invalid.code) from None
        data["start"], data["end"] = start, end
        return data

    def range(self) -> tuple[date, date]:
        """The chosen range (the default one when the form is not bound)."""
        if self.is_bound:
            return self.cleaned_data["start"], self.cleaned_data["end"]
        return self.default_start, self.default_end


CAMPAIGN_FIELDS = ("sent", "opened", "replied", "clicked", "bounced", "unsubscribed")


def campaign_totals(scope, start: date, end: date) -> list[dict]:
    """Each cold-email campaign's results in the range (CampaignDailyStats: the provider's
    daily analytics and the webhooks), with rates per email sent; one query."""
    rows = (
        scope.queryset(CampaignDailyStats)
        .filter(day__gte=start, day__lte=end)
        .values("campaign_id", "campaign__name")
        .annotate(**{name: Sum(name) for name in CAMPAIGN_FIELDS})
        .order_by("campaign__name")
    )
    return [
        {
            **row,
            "open_rate": rate(row["opened"], row["sent"]),
            "reply_rate": rate(row["replied"], row["sent"]),
            "bounce_rate": rate(row["bounced"], row["sent"]),
        }
        for row in rows
    ]


@login_required
@require_GET
def analytics(request: HttpRequest) -> HttpResponse:
    scope = scope_for(request)
    today = local_today(scope.tenant, timezone.now())
    bound = "start" in request.GET or "end" in request.GET
    form = DateRangeForm(request.GET if bound else None, today=today)
    report = None
    if not form.is_bound or form.is_valid():
        start, end = form.range()
        report = analytics_report(scope.tenant, start, end)
        campaigns = campaign_totals(scope, start, end)
        times = response_times(scope.tenant, start, end)
    return render(
        request,
        "outreach/analytics.html",
        {
            "form": form,
            "report": report,
            "campaigns": campaigns if report else [],
            "response_times": times if report else None,
            "chart_data": report.chart_data() if report else None,
            "chart_labels": {
                "sent": str(_("Sent")),
                "replies": str(_("Replies")),
                "positive_replies": str(_("Positive replies")),
            },
        },
    )
