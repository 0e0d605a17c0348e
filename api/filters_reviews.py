"""The review list's filters, declared for django-filter (validation, schema)."""

from __future__ import annotations

import django_filters
from django import forms
from django.db.models import QuerySet
from django.utils import timezone

from hitl.models import ReviewItem
from hitl.review import past_due
from outreach.models import Priority


class IdOrNone(django_filters.CharFilter):
    """A user's id, or `none`; anything else is a 400 naming the parameter."""

    field_class = forms.RegexField

    def __init__(self, **kwargs):
        super().__init__(regex=r"^(\d{1,18}|none)$", **kwargs)


class ReviewFilter(django_filters.FilterSet):
    priority = django_filters.ChoiceFilter(choices=Priority.choices)
    status = django_filters.MultipleChoiceFilter(
        choices=ReviewItem.Status.choices,
        help_text="One or more (repeat the parameter); all statuses when absent.",
    )
    assignee = IdOrNone(
        method="by_assignee", help_text="A user's id, or `none` for unassigned items."
    )
    sla_breached = django_filters.BooleanFilter(
        method="by_breach",
        help_text="Open items past their SLA due time (true), or every other item (false).",
    )

    class Meta:
        model = ReviewItem
        fields: list[str] = []

    def by_assignee(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        if value == "none":
            return queryset.filter(assignee__isnull=True)
        return queryset.filter(assignee_id=int(value))

    def by_breach(self, queryset: QuerySet, name: str, value: bool | None) -> QuerySet:
        if value is None:
            return queryset
        breached = past_due(timezone.now())
        return queryset.filter(breached) if value else queryset.exclude(breached)
