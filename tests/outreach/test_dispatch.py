"""Dispatch: bulk selection, channel choice, phone allocation, quota, window, idempotency."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext

from cerniq import reasons
from outreach import pacing
from outreach import reasons as codes
from outreach.dispatch import dispatch_due
from outreach.models import (
    Channel,
    Enrollment,
    Journey,
    Message,
    Sequence,
    SequenceStep,
    Template,
    TemplateVersion,
)
from tests.factories import make_lead, make_outreach_world
from whatsapp.models import Phone, QuotaUsage

BUCHAREST = ZoneInfo("Europe/Bucharest")
MONDAY_10 = datetime(2026, 11, 23, 10, 0, tzinfo=BUCHAREST)
SATURDAY_10 = datetime(2026, 11, 28, 10, 0, tzinfo=BUCHAREST)


@pytest.fixture
def monday():
    with time_machine.travel(MONDAY_10, tick=False):
        yield MONDAY_10


def dispatch(tenant, **kwargs):
    return dispatch_due(tenant, **kwargs)


def test_first_messages_are_queued_with_keys_and_quota(
    tenant, monday, django_capture_on_commit_callbacks, monkeypatch
):
    world = make_outreach_world(tenant, leads=6)
    runs: list[int] = []
    monkeypatch.setattr(pacing, "_enqueue_run", lambda phone_id, at: runs.append(phone_id))
    with django_capture_on_commit_callbacks(execute=True):
        result = dispatch(tenant)
    assert result.dispatched == {Channel.WHATSAPP: 6}
    messages = Message.objects.filter(tenant=tenant)
    # One planned run per phone picks its messages up in turn: 3 runs, not 6 enqueues.
    assert messages.count() == 6 and sorted(runs) == sorted(p.pk for p in world["phones"])
    assert Phone.objects.filter(tenant=tenant, wake_at__isnull=False).count() == 3
    for message in messages:
        assert message.status == Message.Status.QUEUED
        assert message.quota_cost == 1
        assert message.idempotency_key.startswith(f"{message.lead_id}:{world['sequence'].pk}:")
        assert "Pasul 1" in message.body and "{" not in message.body
        assert reasons.render(message.channel_reason) == "the step's channel (WhatsApp)"
    # Spread over the phones by remaining quota: 2 each.
    used = sorted(QuotaUsage.objects.values_list("used", flat=True))
    assert used == [2, 2, 2]
    assert not Journey.objects.filter(tenant=tenant, next_action_at__isnull=False).exists()


def test_second_run_dispatches_nothing_more(tenant, monday):
    make_outreach_world(tenant, leads=4)
    dispatch(tenant)
    again = dispatch(tenant)
    assert again.eligible == 0
    assert Message.objects.count() == 4


def test_step_already_queued_is_not_queued_twice(tenant, monday):
    make_outreach_world(tenant, leads=3)
    dispatch(tenant)
    Journey.objects.update(next_action_at=MONDAY_10)  # as if a crash lost the journey update
    result = dispatch(tenant)
    assert result.skipped[codes.ALREADY_QUEUED] == 3
    assert Message.objects.count() == 3


def test_query_count_does_not_grow_with_the_batch(tenant, other_tenant, monday):
    make_outreach_world(tenant, leads=10)
    make_outreach_world(other_tenant, leads=500)
    with CaptureQueriesContext(connection) as small:
        assert dispatch(tenant).dispatched[Channel.WHATSAPP] == 10
    with CaptureQueriesContext(connection) as big:
        assert dispatch(other_tenant, batch_size=500).dispatched[Channel.WHATSAPP] == 500

    def selects(ctx):
        return sum(q["sql"].lstrip().upper().startswith("SELECT") for q in ctx.captured_queries)

    assert selects(small) == selects(big)
    if connection.vendor == "postgresql":
        assert len(small.captured_queries) == len(big.captured_queries)
    else:  # SQLite caps bound parameters per statement, so bulk writes split into chunks
        assert len(big.captured_queries) - len(small.captured_queries) <= 60


def test_sticky_phone_follow_up_costs_no_quota(tenant, monday):
    world = make_outreach_world(tenant, leads=1)
    lead, phone = world["leads"][0], world["phones"][2]
    first_step = world["sequence"].steps.get(position=1)
    Message.objects.create(
        tenant=tenant,
        lead=lead,
        channel=Channel.WHATSAPP,
        direction="OUT",
        status="SENT",
        phone=phone,
        counterpart=lead.phone,
        provider_thread_id="555",
        idempotency_key="old",
        sequence=world["sequence"],
        step=first_step,
    )
    Enrollment.objects.filter(lead=lead).update(current_step=1)
    Journey.objects.filter(lead=lead).update(stage="CONTACTED_WA", assigned_phone=phone)
    dispatch(tenant)
    follow_up = Message.objects.get(lead=lead, status="QUEUED")
    assert (follow_up.phone, follow_up.quota_cost, follow_up.provider_thread_id) == (
        phone,
        0,
        "555",
    )
    assert "Pasul 2" in follow_up.body
    assert not QuotaUsage.objects.filter(used__gt=0).exists()


def test_full_phone_is_skipped_and_all_full_waits_for_tomorrow(tenant, monday):
    world = make_outreach_world(tenant, leads=4, phones=2)
    full, free = world["phones"]
    QuotaUsage.objects.create(tenant=tenant, phone=full, day=monday.date(), used=200, limit=200)
    QuotaUsage.objects.create(tenant=tenant, phone=free, day=monday.date(), used=197, limit=200)
    result = dispatch(tenant)
    assert result.dispatched[Channel.WHATSAPP] == 3
    assert result.skipped[codes.QUOTA_EXHAUSTED] == 1
    assert set(Message.objects.values_list("phone", flat=True)) == {free.pk}
    waiting = Journey.objects.get(next_action_at__isnull=False)
    assert waiting.next_action_at == datetime(2026, 11, 24, 9, 0, tzinfo=BUCHAREST)


def test_outside_the_window_nothing_is_sent_and_leads_wait_for_the_opening(tenant):
    with time_machine.travel(SATURDAY_10, tick=False):
        make_outreach_world(tenant, leads=3)
        Journey.objects.update(next_action_at=SATURDAY_10)
        result = dispatch(tenant)
    assert result.skipped[codes.OUTSIDE_WINDOW] == 3
    assert not Message.objects.exists()
    # Monday 30 November (St Andrew) and Tuesday 1 December are public holidays in Romania.
    wednesday_9 = datetime(2026, 12, 2, 9, 0, tzinfo=BUCHAREST)
    assert set(Journey.objects.values_list("next_action_at", flat=True)) == {wednesday_9}


def test_dry_run_writes_nothing(tenant, monday):
    make_outreach_world(tenant, leads=5)
    result = dispatch(tenant, dry_run=True)
    assert result.dispatched[Channel.WHATSAPP] == 5 and result.dry_run
    assert not Message.objects.exists() and not QuotaUsage.objects.filter(used__gt=0).exists()
    assert Journey.objects.filter(next_action_at__isnull=False).count() == 5


def test_no_phone_falls_back_to_the_email_sequence(tenant, monday):
    world = make_outreach_world(tenant, leads=2)
    email_template = Template.objects.create(tenant=tenant, name="Email", channel="EMAIL_COLD")
    TemplateVersion.objects.create(
        tenant=tenant,
        template=email_template,
        version=1,
        subject="Ofertă {{company_name}}",
        body="Bună ziua, {{contact_name|stimate client}}",
    )
    fallback = Sequence.objects.create(tenant=tenant, name="Email fallback")
    SequenceStep.objects.create(
        tenant=tenant, sequence=fallback, position=1, channel="EMAIL_COLD", template=email_template
    )
    Sequence.objects.filter(pk=world["sequence"].pk).update(fallback_sequence=fallback)
    no_wa = world["leads"][0]
    no_wa.phone_reachable, no_wa.email_status = False, "valid"
    no_wa.save()
    result = dispatch(tenant)
    assert result.dispatched == {Channel.WHATSAPP: 1, Channel.EMAIL_COLD: 1}
    email = Message.objects.get(lead=no_wa)
    assert email.channel == Channel.EMAIL_COLD and email.counterpart == no_wa.email
    assert email.subject == f"Ofertă {no_wa.name}"
    assert reasons.render(email.channel_reason) == (
        "Cold email instead of the step's channel: number not on WhatsApp"
    )
    assert email.quota_cost == 0 and email.phone is None
    statuses = dict(Enrollment.objects.filter(lead=no_wa).values_list("sequence", "status"))
    assert statuses == {world["sequence"].pk: "STOPPED", fallback.pk: "ACTIVE"}


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"requires_human_review": True, "review_priority": "HIGH"}, None),
        ({"stage": "PAUSED"}, None),
        ({"whatsapp_opted_out": True, "email_opted_out": True}, codes.NO_CHANNEL),
        ({"whatsapp_opted_out": True}, codes.NO_FALLBACK),  # email unchecked, tried
    ],
)
def test_leads_under_review_paused_or_unreachable_are_not_sent(tenant, monday, change, reason):
    world = make_outreach_world(tenant, leads=1)
    Journey.objects.filter(lead=world["leads"][0]).update(**change)
    result = dispatch(tenant)
    assert not Message.objects.exists()
    if reason:
        assert result.skipped[reason] == 1
    else:
        assert result.eligible == 0


def test_lead_without_enrollment_is_skipped(tenant, monday):
    lead = make_lead(tenant)
    Journey.objects.filter(lead=lead).update(next_action_at=MONDAY_10)
    result = dispatch(tenant)
    assert result.skipped[codes.NOT_ENROLLED] == 1


def test_a_phones_messages_and_emails_go_to_their_queues(tenant):
    from outreach.delivery import queue_for
    from tests.factories import make_phone

    phone = make_phone(tenant)
    slot = (phone.pk - 1) % 20 + 1
    first = Message(channel="WHATSAPP", phone=phone, quota_cost=1)
    follow_up = Message(channel="WHATSAPP", phone=phone, quota_cost=0)
    assert queue_for(first) == f"wa.phone_{slot:02d}" == phone.queue_name
    assert queue_for(follow_up) == f"wa.phone_{slot:02d}"  # one run picks by priority
    assert queue_for(Message(channel="EMAIL_COLD")) == "email.cold"
    assert queue_for(Message(channel="EMAIL_WARM")) == "email.warm"
