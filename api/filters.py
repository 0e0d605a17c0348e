"""The leads list's filters, declared for django-filter (validation, schema) and applied by
the one owner of their meaning, outreach.lead_filters (the leads page uses it too)."""

from __future__ import annotations

import django_filters
from django import forms
from django.db.models import Q, QuerySet
from drf_spectacular.utils import extend_schema_field

from cerniq.params import MAX_ID
from outreach.lead_filters import filter_leads
from outreach.models import Channel, Lead, Stage

OPTED_OUT = [("whatsapp", "WhatsApp"), ("email", "Email"), ("any", "Any"), ("none", "None")]


@extend_schema_field({"type": "integer", "minimum": 1, "maximum": MAX_ID})
class IdFilter(django_filters.NumberFilter):
    """A row's id: a whole number in the ids' range, else a 400 naming the parameter
    (django-filter's NumberFilter takes any decimal, and `1e300` reached the database)."""

    field_class = forms.IntegerField

    def __init__(self, **kwargs: object) -> None:
        super().__init__(min_value=1, max_value=MAX_ID, **kwargs)


class IdOrNone(django_filters.CharFilter):
    """An id, or `none` for leads without one."""

    def __init__(self, **kwargs):
        super().__init__(method="keep", **kwargs)


def _flag(value: bool | None) -> str:
    return "" if value is None else ("true" if value else "false")


class LeadFilter(django_filters.FilterSet):
    stage = django_filters.ChoiceFilter(choices=Stage.choices, method="keep")
    channel = django_filters.ChoiceFilter(
        choices=Channel.choices, method="keep", help_text="The channel last used."
    )
    county = django_filters.CharFilter(method="keep", help_text="Exact, case-insensitive.")
    phone = IdOrNone(help_text="The assigned sending phone's id, or `none`.")
    sequence = IdOrNone(help_text="The current sequence's id, or `none`.")
    needs_review = django_filters.BooleanFilter(method="keep")
    opted_out = django_filters.ChoiceFilter(choices=OPTED_OUT, method="keep")
    email_status = django_filters.ChoiceFilter(choices=Lead.EmailStatus.choices, method="keep")
    contactable = django_filters.BooleanFilter(
        method="keep",
        help_text="`false`: only leads outreach cannot reach now on any channel (see each "
        "lead's `readiness`); `true`: only those it can.",
    )
    stalled = django_filters.BooleanFilter(
        method="keep",
        help_text="`true`: only leads whose running enrollment is stalled (dispatch cannot "
        "move it on; `readiness.stalled` says why).",
    )
    company = IdFilter(method="keep", help_text="A company's id: only its contacts.")
    updated_since = django_filters.IsoDateTimeFilter(
        method="keep", help_text="Lead or journey changed at or after this time (ISO 8601)."
    )
    search = django_filters.CharFilter(
        method="keep",
        help_text=(
            "Every word in the company name, contact name, email or phone (any part; 'Stirbei' "
            "finds 'Știrbei' and 'Ştirbei'); a CUI or phone number however written "
            "(RO prefix, spaces, +40, 0040) finds its lead exactly."
        ),
    )

    class Meta:
        model = Lead
        fields: list[str] = []

    def keep(self, queryset: QuerySet, name: str, value: object) -> QuerySet:
        return queryset  # applied together in filter_queryset

    def filter_queryset(self, queryset: QuerySet[Lead]) -> QuerySet[Lead]:
        data = self.form.cleaned_data
        review = data.get("needs_review")
        params = {
            "stage": data.get("stage"),
            "channel": data.get("channel"),
            "county": data.get("county"),
            "phone": data.get("phone"),
            "sequence": data.get("sequence"),
            "review": "" if review is None else ("1" if review else "0"),
            "opted_out": data.get("opted_out"),
            "email_status": data.get("email_status"),
            "q": data.get("search"),
            "contactable": _flag(data.get("contactable")),
            "stalled": _flag(data.get("stalled")),
            "company": data.get("company") or "",
        }
        queryset = filter_leads(queryset, params)
        since = data.get("updated_since")
        if since is not None:
            queryset = queryset.filter(Q(updated_at__gte=since) | Q(journey__updated_at__gte=since))
        return queryset
