"""Failed webhook events as dead letters: listed, retried, discarded, expired.

A stored event whose handler raised is FAILED (cerniq.webhooks.process_event) and Dramatiq
retries it a few times; one still FAILED waits for a person. Retrying reprocesses it through
the intake's own path (`webhooks.replay`, FAILED rows only): processing claims the row, so
two clicks process it once. Discarding marks it IGNORED, who and why written ahead of the
handler's error. The row and its raw body stay either way: they are the record of what the
provider sent, and the admin can still replay an IGNORED event.

Every function takes the tenant: another tenant's ids are ignored.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from django.db.models import Count, F, QuerySet, Value
from django.db.models.functions import Concat
from django.utils import timezone

from cerniq import webhooks
from cerniq.models import Tenant, WebhookEvent

Status = WebhookEvent.Status


def failed(tenant: Tenant) -> QuerySet[WebhookEvent]:
    """The tenant's FAILED events, the latest first (the raw body is not loaded)."""
    return (
        WebhookEvent.objects.filter(tenant=tenant, status=Status.FAILED)
        .defer("raw_body", "headers")
        .order_by("-received_at", "-pk")
    )


def retry(tenant: Tenant, ids: Iterable[int]) -> int:
    """Process the tenant's FAILED events among `ids` again; how many were queued."""
    return sum(
        webhooks.replay(event, only=(Status.FAILED,)) for event in failed(tenant).filter(pk__in=ids)
    )


def discard(tenant: Tenant, ids: Iterable[int], note: str) -> int:
    """Mark the tenant's FAILED events among `ids` IGNORED, `note` (who, why) kept ahead of
    their error; how many were discarded. A FAILED row only, so an event a retry is
    processing meanwhile is left alone."""
    return _ignore(failed(tenant).filter(pk__in=list(ids)), note)


def expire(before: datetime, note: str) -> int:
    """Discard every tenant's events FAILED since before `before` (the retention period)."""
    return _ignore(WebhookEvent.objects.filter(status=Status.FAILED, received_at__lt=before), note)


def counts_by_tenant() -> dict[int, int]:
    """FAILED events per tenant, in one query."""
    return dict(
        WebhookEvent.objects.filter(status=Status.FAILED, tenant__isnull=False)
        .order_by()
        .values("tenant")
        .annotate(n=Count("pk"))
        .values_list("tenant", "n")
    )


def _ignore(events: QuerySet[WebhookEvent], note: str) -> int:
    return events.order_by().update(
        status=Status.IGNORED,
        processed_at=timezone.now(),
        error=Concat(Value(f"{note}\n\n"), F("error")),
    )
