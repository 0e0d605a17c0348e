"""Human review's metrics: the open queue and its SLA breaches per priority (one query),
and triage timed where the reply path calls it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from hitl import metrics
from hitl.models import ReviewItem
from hitl.replies import analyse
from outreach.models import Priority
from tests.factories import make_lead, make_tenant
from tests.scrape import scrape, value

pytestmark = pytest.mark.django_db


def open_item(lead, priority, *, due_in, status=ReviewItem.Status.OPEN):
    now = timezone.now()
    return ReviewItem.objects.create(
        tenant=lead.tenant,
        lead=lead,
        reason="reply",
        priority=priority,
        status=status,
        sla_due_at=now + due_in,
        resolved_at=now if status in ("RESOLVED", "DISMISSED") else None,
    )


def collected():
    with CaptureQueriesContext(connection) as queries:
        found = {family.name: family for family in metrics.collect()}
    by_key = {
        name: {(s.labels["tenant"], s.labels["priority"]): s.value for s in family.samples}
        for name, family in found.items()
    }
    return by_key, len(queries)


def test_open_items_and_breaches_by_tenant_and_priority():
    tenant, other = make_tenant(), make_tenant()
    lead, other_lead = make_lead(tenant), make_lead(other)
    open_item(lead, Priority.URGENT, due_in=timedelta(minutes=-5))  # breached
    open_item(lead, Priority.URGENT, due_in=timedelta(minutes=30))
    open_item(lead, Priority.HIGH, due_in=timedelta(hours=-1))  # breached
    open_item(lead, Priority.HIGH, due_in=timedelta(hours=-1), status="RESOLVED")  # closed
    open_item(other_lead, Priority.MEDIUM, due_in=timedelta(hours=2))
    found, queries = collected()
    assert queries == 1
    assert found["cerniq_review_open_items"] == {
        (tenant.slug, "urgent"): 2,
        (tenant.slug, "high"): 1,
        (other.slug, "medium"): 1,
    }
    assert found["cerniq_review_sla_breaches"] == {
        (tenant.slug, "urgent"): 1,
        (tenant.slug, "high"): 1,
        (other.slug, "medium"): 0,
    }
    for _ in range(4):
        open_item(make_lead(make_tenant()), Priority.LOW, due_in=timedelta(hours=1))
    assert collected()[1] == 1


def test_triage_is_timed_by_backend(client, settings, tenant):
    labels = {"backend": "offline", "fell_back": "false"}
    before = value(scrape(client, settings), "cerniq_triage_duration_seconds_count", **labels)
    result = analyse(make_lead(tenant), "Bună ziua, sunt interesat. Cât costă?")
    assert result.backend == "offline"
    after = value(scrape(client, settings), "cerniq_triage_duration_seconds_count", **labels)
    assert after - before == 1
