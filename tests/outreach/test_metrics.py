"""Outreach's metrics: cancellations counted once committed, dead letters and 7-day reply
rates read at scrape time in a constant number of queries."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from outreach import metrics
from outreach.models import Channel, DailyStats, Message
from outreach.sequences import cancel_message
from tests.factories import make_lead, make_message, make_phone, make_tenant
from tests.scrape import scrape, value

pytestmark = pytest.mark.django_db

MESSAGES = "cerniq_outreach_messages_total"


class Rollback(Exception):
    pass


def cancelled_count(client, settings) -> float:
    return value(scrape(client, settings), MESSAGES, channel="email_warm", status="cancelled")


def test_a_cancellation_counts_once_committed_never_when_rolled_back(
    client, settings, tenant, django_capture_on_commit_callbacks
):
    lead = make_lead(tenant)
    kept, undone = (make_message(lead, channel=Channel.EMAIL_WARM) for _ in range(2))
    before = cancelled_count(client, settings)
    with django_capture_on_commit_callbacks(execute=True):
        try:
            with transaction.atomic():
                assert cancel_message(undone, "no longer wanted") == 1
                raise Rollback
        except Rollback:
            pass
        assert cancel_message(kept, "no longer wanted") == 1
        assert cancel_message(kept, "twice") == 0  # already cancelled: nothing recorded
    assert cancelled_count(client, settings) - before == 1


def families(collect):
    with CaptureQueriesContext(connection) as queries:
        found = {family.name: family for family in collect()}
    return found, len(queries)


def samples(family) -> dict[tuple[str, str], float]:
    return {(s.labels["tenant"], s.labels["channel"]): s.value for s in family.samples}


def test_dead_letters_per_tenant_and_channel():
    tenant, other = make_tenant(), make_tenant()
    for owner, channel, count in (
        (tenant, "WHATSAPP", 2),
        (tenant, "EMAIL_COLD", 1),
        (other, "WHATSAPP", 1),
    ):
        lead = make_lead(owner)
        for _ in range(count):
            make_message(lead, channel=channel, status=Message.Status.DEAD_LETTER)
    make_message(make_lead(tenant), status=Message.Status.FAILED)  # failed is not dead
    found, _ = families(metrics.collect)
    assert samples(found["cerniq_outreach_dead_letters"]) == {
        (tenant.slug, "whatsapp"): 2,
        (tenant.slug, "email_cold"): 1,
        (other.slug, "whatsapp"): 1,
    }


def test_reply_rates_over_seven_days_from_the_channel_totals(time_machine):
    time_machine.move_to(timezone.now(), tick=False)
    tenant = make_tenant()
    today = timezone.localdate()
    phone = make_phone(tenant)
    rows = [
        (today, Channel.WHATSAPP, None, 100, 12),
        (today - timedelta(days=6), Channel.WHATSAPP, None, 100, 8),
        (today - timedelta(days=7), Channel.WHATSAPP, None, 1000, 0),  # outside the window
        (today, Channel.WHATSAPP, phone, 100, 12),  # per-phone row: already in the total
        (today, Channel.EMAIL_COLD, None, 50, 1),
        (today, Channel.EMAIL_WARM, None, 0, 0),  # nothing sent: no rate
    ]
    for day, channel, on_phone, sent, replies in rows:
        DailyStats.objects.create(
            tenant=tenant, day=day, channel=channel, phone=on_phone, sent=sent, replies=replies
        )
    found, queries = families(metrics.collect)
    assert queries == 2
    assert samples(found["cerniq_outreach_sent_7d"])[(tenant.slug, "whatsapp")] == 200
    assert samples(found["cerniq_outreach_replies_7d"])[(tenant.slug, "whatsapp")] == 20
    rates = samples(found["cerniq_outreach_reply_rate_7d"])
    assert rates == {(tenant.slug, "whatsapp"): 0.1, (tenant.slug, "email_cold"): 0.02}


def test_the_collector_costs_the_same_queries_for_many_tenants():
    def setup(count):
        for _ in range(count):
            tenant = make_tenant()
            make_message(make_lead(tenant), status=Message.Status.DEAD_LETTER)
            DailyStats.objects.create(
                tenant=tenant, day=timezone.localdate(), channel="WHATSAPP", sent=5, replies=1
            )

    setup(1)
    _, few = families(metrics.collect)
    setup(5)
    _, many = families(metrics.collect)
    assert few == many == 2
