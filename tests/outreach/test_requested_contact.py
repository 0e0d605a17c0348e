"""A form lead that asked to be contacted (`requested_contact=True`, as Meta Lead Ads says):
its first message is dispatched at once inside the sending window, before the cold leads
due earlier, costs no cold new-contact quota (quota_cost 0) yet counts as a first contact,
goes first on its phone with only the minimum pacing gap, and waits for the window when it
is closed."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.utils import timezone

from cerniq import reasons
from outreach import pacing, tasks
from outreach import reasons as codes
from outreach.analytics.definitions import FIRST_CONTACT, FOLLOW_UP
from outreach.dispatch import dispatch_due
from outreach.hours import SendingWindow
from outreach.lead_rules import leads_created
from outreach.lead_rules import reasons as rule_codes
from outreach.models import Journey, LeadRule, Message, SequenceStep
from tests.factories import make_lead, make_message, make_outreach_world
from whatsapp import quota
from whatsapp.models import Phone, QuotaUsage

# Every test travels to its moment before it makes anything: the clock phase skips them.
pytestmark = pytest.mark.own_moment

BUCHAREST = ZoneInfo("Europe/Bucharest")
TUESDAY_10 = datetime(2026, 11, 24, 10, 0, tzinfo=BUCHAREST)
SATURDAY_10 = datetime(2026, 11, 28, 10, 0, tzinfo=BUCHAREST)


@pytest.fixture(autouse=True)
def no_broker(monkeypatch):
    """Pacing's planned runs are not enqueued; the dispatch actor runs in the test."""
    monkeypatch.setattr(pacing, "_enqueue_run", lambda phone_id, at: None)
    monkeypatch.setattr(
        tasks.dispatch_requested, "send", lambda *args: tasks.dispatch_requested.fn(*args)
    )


def world(tenant):
    """One phone whose new-contact quota for the day is used up, three cold leads due
    since yesterday, and a rule enrolling Lead Ads leads in the same sequence."""
    found = make_outreach_world(tenant, phones=1, leads=3)
    Journey.objects.filter(tenant=tenant).update(next_action_at=TUESDAY_10 - timedelta(days=1))
    phone = found["phones"][0]
    day = quota.quota_day(tenant, TUESDAY_10)
    QuotaUsage.objects.create(tenant=tenant, phone=phone, day=day, used=5, limit=5)
    LeadRule.objects.create(
        tenant=tenant, name="Formular", source="lead_ads", sequence=found["sequence"]
    )
    return found


def asked_lead(tenant, django_capture_on_commit_callbacks, **kw):
    lead = make_lead(tenant, name="Ferma care a cerut", **kw)
    with django_capture_on_commit_callbacks(execute=True):
        (firing,) = leads_created(
            tenant, [lead], source="lead_ads", form_id="F-1", requested_contact=True
        )
    return lead, firing


def test_the_first_message_goes_at_once_first_and_costs_no_quota(
    tenant, django_capture_on_commit_callbacks
):
    with time_machine.travel(TUESDAY_10, tick=False):
        world(tenant)
        lead, firing = asked_lead(tenant, django_capture_on_commit_callbacks)

        # Dispatched on commit, not at the next periodic run, though the quota is full.
        message = Message.objects.get(lead=lead)
        assert (message.quota_cost, message.quota_day, message.solicited) == (0, None, True)
        assert message.status == Message.Status.QUEUED and message.phone_id is not None
        assert QuotaUsage.objects.get().used == 5
        assert rule_codes.ASKED in [reasons.parse(d)[0] for d in firing.done]
        # A first contact in the figures, not a follow-up.
        assert Message.objects.filter(FIRST_CONTACT, pk=message.pk).exists()
        assert not Message.objects.filter(FOLLOW_UP, pk=message.pk).exists()

        # The cold leads due since yesterday still wait for quota.
        result = dispatch_due(tenant)
        assert result.skipped[codes.QUOTA_EXHAUSTED] == 3
        assert Message.objects.filter(tenant=tenant).count() == 1


def test_dispatch_takes_those_who_asked_before_cold_leads_due_earlier(tenant):
    with time_machine.travel(TUESDAY_10, tick=False):
        found = world(tenant)
        QuotaUsage.objects.update(used=0, limit=50)
        lead = make_lead(tenant)
        leads_created(tenant, [lead], source="lead_ads", requested_contact=True)

        result = dispatch_due(tenant, batch_size=1)

        assert result.eligible == 1
        assert list(Message.objects.values_list("lead_id", flat=True)) == [lead.pk]
        assert not Message.objects.filter(lead__in=found["leads"]).exists()


def test_outside_the_window_the_first_message_waits_for_the_opening(
    tenant, django_capture_on_commit_callbacks
):
    with time_machine.travel(SATURDAY_10, tick=False):
        world(tenant)
        lead, _ = asked_lead(tenant, django_capture_on_commit_callbacks)
        opening = SendingWindow.for_tenant(tenant).next_opening(SATURDAY_10)
        assert not Message.objects.filter(lead=lead).exists()
        assert Journey.objects.get(lead=lead).next_action_at == opening
    # 30 Nov and 1 Dec are public holidays: the window opens on Wednesday 2 Dec at 09:00.
    assert opening == datetime(2026, 12, 2, 9, 0, tzinfo=BUCHAREST)
    with time_machine.travel(opening, tick=False):
        dispatch_due(tenant, batch_size=1)
        message = Message.objects.get(lead=lead)
        assert (message.quota_cost, message.solicited) == (0, True)


def test_the_first_steps_delay_is_not_waited_for_someone_who_asked(tenant):
    with time_machine.travel(TUESDAY_10, tick=False):
        found = world(tenant)
        SequenceStep.objects.filter(sequence=found["sequence"], position=1).update(
            delay_value=2, delay_unit=SequenceStep.DelayUnit.WORKING_DAYS
        )
        asked, cold = make_lead(tenant), make_lead(tenant)
        leads_created(tenant, [asked], source="lead_ads", requested_contact=True)
        leads_created(tenant, [cold], source="lead_ads")
        assert Journey.objects.get(lead=asked).next_action_at == TUESDAY_10
        assert Journey.objects.get(lead=cold).next_action_at > TUESDAY_10 + timedelta(days=1)
        assert Journey.objects.get(lead=asked).contact_requested_at == TUESDAY_10
        assert Journey.objects.get(lead=cold).contact_requested_at is None


def test_on_its_phone_it_goes_before_follow_ups_and_new_contacts_after_the_minimum_gap(tenant):
    with time_machine.travel(TUESDAY_10, tick=False):
        found = world(tenant)
        tenant.pacing_min_seconds, tenant.pacing_jitter_seconds = 30, 120
        tenant.save(update_fields=["pacing_min_seconds", "pacing_jitter_seconds"])
        phone = found["phones"][0]
        step = found["sequence"].steps.get(position=1)
        early = timezone.now() - timedelta(minutes=30)
        cold, follow, asked = found["leads"][0], found["leads"][1], make_lead(tenant)
        make_message(cold, phone=phone, step=step, quota_cost=1, scheduled_for=early)
        make_message(follow, phone=phone, step=step, quota_cost=0, scheduled_for=early)
        solicited = make_message(asked, phone=phone, step=step, solicited=True)

        window = SendingWindow.for_tenant(tenant)
        assert pacing.next_due(phone, window, timezone.now()) == solicited.pk

        finished = pacing.finish_send(phone.pk, tenant)
        rest = Phone.objects.get(pk=phone.pk).next_send_at - finished
        assert rest == timedelta(seconds=30)  # the minimum, no random part

        Message.objects.filter(pk=solicited.pk).update(status=Message.Status.SENT)
        finished = pacing.finish_send(phone.pk, tenant)
        assert Phone.objects.get(pk=phone.pk).next_send_at - finished > timedelta(seconds=30)


def test_a_phone_resting_after_restriction_signs_starts_no_chat_even_one_asked_for(tenant):
    with time_machine.travel(TUESDAY_10, tick=False):
        found = world(tenant)
        Phone.objects.filter(pk=found["phones"][0].pk).update(
            new_contacts_paused_until=TUESDAY_10 + timedelta(days=2)
        )
        lead = make_lead(tenant)
        leads_created(tenant, [lead], source="lead_ads", requested_contact=True)
        result = dispatch_due(tenant, lead_ids=[lead.pk])
        assert result.skipped[codes.QUOTA_EXHAUSTED] == 1
        assert not Message.objects.filter(lead=lead).exists()
