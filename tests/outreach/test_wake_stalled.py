"""A change that may unblock a stalled enrollment makes the lead due again, so the next
dispatch looks at it: an opt-out lifted, contact data edited (the API's update), a
takeover handed back. A number that can send again needs no wake: dispatch keeps leads
stalled for want of a sending number due, and they go at the next run."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
import time_machine

from cerniq import reasons
from hitl import takeover
from outreach import optout_manual, stalls
from outreach import reasons as codes
from outreach.dispatch import dispatch_due
from outreach.lead_entry import update_lead
from outreach.models import Enrollment, Journey, Lead, Message
from tests.factories import make_outreach_world
from whatsapp import phones
from whatsapp.models import Phone

pytestmark = pytest.mark.django_db

MONDAY_10 = datetime(2026, 11, 23, 10, 0, tzinfo=ZoneInfo("Europe/Bucharest"))


@pytest.fixture
def clock():
    with time_machine.travel(MONDAY_10, tick=False) as traveller:
        yield traveller


@pytest.fixture
def world(tenant, clock):
    return make_outreach_world(tenant, leads=1, phones=1)


def stalled(tenant, lead: Lead, code: str) -> Enrollment:
    """Dispatch runs and the lead's enrollment stalls with `code`; an hour passes."""
    dispatch_due(tenant)
    enrollment = Enrollment.objects.get(lead=lead)
    assert enrollment.stalled_since is not None
    assert reasons.is_code(enrollment.stalled_reason, code)
    assert Journey.objects.get(lead=lead).next_action_at is None  # nobody looks again
    return enrollment


def due(lead: Lead) -> bool:
    return Journey.objects.get(lead=lead).next_action_at is not None


def test_lifting_an_opt_out_wakes_the_stalled_lead(tenant, world, operator, clock):
    lead = world["leads"][0]
    Lead.objects.filter(pk=lead.pk).update(email="")
    Journey.objects.filter(lead=lead).update(whatsapp_opted_out=True)
    stalled(tenant, lead, codes.NO_CHANNEL)
    clock.shift(timedelta(hours=1))

    optout_manual.lift_opt_out(lead, user=operator, reason="He called back and asked for the offer")

    assert due(lead)
    dispatch_due(tenant)
    assert Message.objects.filter(lead=lead, channel="WHATSAPP").exists()
    assert Enrollment.objects.get(lead=lead).stalled_since is None


@pytest.mark.parametrize(
    ("blocked", "fixed"),
    [
        ({"phone": "", "email": ""}, {"phone": "0722 555 111"}),  # an address added
        ({"phone_reachable": False, "email": ""}, {"email": "office@ferma.ro"}),  # another
    ],
    ids=["address-added", "other-channel"],
)
def test_editing_contact_data_wakes_the_stalled_lead(tenant, world, blocked, fixed):
    lead = world["leads"][0]
    Lead.objects.filter(pk=lead.pk).update(**blocked)
    stalled(tenant, lead, codes.NO_CHANNEL)

    update_lead(Lead.objects.get(pk=lead.pk), fixed)

    assert due(lead)


def test_an_edit_that_changes_nothing_wakes_nobody(tenant, world):
    lead = world["leads"][0]
    Lead.objects.filter(pk=lead.pk).update(phone="", email="")
    stalled(tenant, lead, codes.NO_CHANNEL)
    update_lead(Lead.objects.get(pk=lead.pk), {})
    assert not due(lead)


def test_handing_a_takeover_back_wakes_an_enrollment_it_stalled(tenant, world, operator):
    lead = world["leads"][0]
    enrollment = Enrollment.objects.get(lead=lead)
    Enrollment.objects.filter(pk=enrollment.pk).update(
        stalled_reason=reasons.code(codes.NO_CHANNEL, whatsapp=codes.TAKEN_OVER, email=""),
        stalled_since=MONDAY_10,
    )
    Journey.objects.filter(lead=lead).update(taken_over_by=operator, next_action_at=None)

    takeover.hand_back(lead, operator, resume=False)

    assert due(lead)


def test_a_number_that_can_send_again_takes_the_stalled_lead_at_the_next_run(tenant, world, clock):
    lead, phone = world["leads"][0], world["phones"][0]
    Phone.objects.filter(pk=phone.pk).update(status=Phone.Status.PAUSED)
    dispatch_due(tenant)
    enrollment = Enrollment.objects.get(lead=lead)
    assert reasons.is_code(enrollment.stalled_reason, codes.NO_SENDING_PHONE)
    assert stalls.stalled_leads(Lead.objects.all()).exists()

    clock.shift(timedelta(minutes=5))
    phones.resume(Phone.objects.get(pk=phone.pk))
    dispatch_due(tenant)

    assert Message.objects.filter(lead=lead, phone=phone).exists()
    assert not stalls.stalled_leads(Lead.objects.all()).exists()
