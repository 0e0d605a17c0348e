"""The whole leads list sorted by stage or by phone, read from the journey table alone.

With no filter but the tenant, "the tenant's leads that have a journey, by stage" is "the
tenant's journeys by stage": an index-only walk of (tenant, stage, lead) reaches a deep
page (page 500 of 1,000) in milliseconds, where joining every lead to its journey and
sorting them all cost hundreds (bench/pages.py). By phone, the tenant's few phones are the
buckets: each one's journeys are counted once (index (tenant, assigned phone, lead)), in
the phones' number order, and a page reads only the buckets it falls in. The order is the
joined query's: the column (no phone last, either way), then the lead's id.
"""

from __future__ import annotations

from collections.abc import Iterator

from django.db.models import Count, QuerySet

from outreach.models import Journey
from whatsapp.models import Phone


def by_stage(tenant_id: int, descending: bool) -> QuerySet:
    """The ids of the tenant's leads with a journey, by stage then id."""
    sign = "-" if descending else ""
    return (
        Journey.objects.filter(tenant_id=tenant_id)
        .order_by(f"{sign}stage", f"{sign}lead_id")
        .values_list("lead_id", flat=True)
    )


class ByPhone:
    """The ids of the tenant's leads with a journey, by their phone's number (leads with
    no phone last), then id: sliced, counted and iterated like a values_list."""

    def __init__(self, tenant_id: int, descending: bool) -> None:
        self.tenant_id, self.descending = tenant_id, descending
        journeys = Journey.objects.filter(tenant_id=tenant_id).order_by()
        counts: dict[int | None, int] = dict(
            journeys.values_list("assigned_phone_id")
            # COUNT(*), not COUNT(id): the count is then an index-only walk of
            # (tenant, assigned phone, lead), not a read of every journey row.
            .annotate(n=Count("*"))
            .values_list("assigned_phone_id", "n")
        )
        numbers = dict(
            Phone.objects.filter(pk__in=[pk for pk in counts if pk])
            .order_by()
            .values_list("pk", "number")
        )
        phones = sorted(numbers, key=lambda pk: (numbers[pk], pk), reverse=descending)
        self.buckets = [(pk, counts[pk]) for pk in phones]
        if None in counts:
            self.buckets.append((None, counts[None]))

    def _bucket(self, phone_id: int | None) -> QuerySet:
        journeys = Journey.objects.filter(tenant_id=self.tenant_id)
        if phone_id is None:
            journeys = journeys.filter(assigned_phone__isnull=True)
        else:
            journeys = journeys.filter(assigned_phone_id=phone_id)
        order = "-lead_id" if self.descending else "lead_id"
        return journeys.order_by(order).values_list("lead_id", flat=True)

    def count(self) -> int:
        return sum(n for _, n in self.buckets)

    def __iter__(self) -> Iterator[int]:
        for phone_id, _ in self.buckets:
            yield from self._bucket(phone_id)

    def __getitem__(self, window: slice) -> list[int]:
        start, stop = window.start or 0, window.stop
        found: list[int] = []
        at = 0
        for phone_id, n in self.buckets:
            if stop is not None and at >= stop:
                break
            if at + n > start:
                low, high = max(start - at, 0), n if stop is None else min(stop - at, n)
                found += self._bucket(phone_id)[low:high]
            at += n
        return found
