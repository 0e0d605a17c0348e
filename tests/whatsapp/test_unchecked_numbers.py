"""Numbers nobody has checked: tried under the tenant's policy, checked by the provider's
answer (never a bulk lookup), and an enrollment dispatch cannot move is stalled, visibly."""

from __future__ import annotations

from datetime import timedelta

import responses
from django.utils import timezone

from cerniq import reasons
from cerniq.models import Tenant
from outreach import reasons as codes
from outreach import stalls
from outreach.dispatch import dispatch_due
from outreach.models import (
    Enrollment,
    Journey,
    Lead,
    Message,
    Sequence,
    SequenceStep,
    Template,
    TemplateVersion,
)
from outreach.sending import send_message
from tests.whatsapp.conftest import BASE, api_body

SEND_URL = f"{BASE}/messages"


def _unchecked(lead: Lead, **fields) -> None:
    Lead.objects.filter(pk=lead.pk).update(
        phone_reachable=None, email_status=Lead.EmailStatus.UNKNOWN, **fields
    )


@responses.activate
def test_an_unchecked_number_is_tried_and_the_sent_message_checks_it(queued_unchecked):
    message = queued_unchecked
    assert message.channel == "WHATSAPP"
    responses.post(SEND_URL, json=api_body("send_ok.json"))
    assert send_message(message.pk).kind == "sent"
    assert Lead.objects.get(pk=message.lead_id).phone_reachable is True
    # only the send itself went to the provider: no lookup of whether the number exists
    assert [call.request.url for call in responses.calls] == [SEND_URL]


@responses.activate
def test_not_on_whatsapp_marks_the_number_and_the_lead_falls_back_to_email(
    queued_unchecked, tenant
):
    message = queued_unchecked
    lead = message.lead
    Lead.objects.filter(pk=lead.pk).update(email_status=Lead.EmailStatus.VALID)
    sequence = Sequence.objects.get(pk=message.sequence_id)
    email_template = Template.objects.create(tenant=tenant, name="Ofertă", channel="EMAIL_COLD")
    TemplateVersion.objects.create(
        tenant=tenant, template=email_template, version=1, subject="Ofertă", body="Bună ziua"
    )
    fallback = Sequence.objects.create(tenant=tenant, name="Email")
    SequenceStep.objects.create(
        tenant=tenant, sequence=fallback, position=1, channel="EMAIL_COLD", template=email_template
    )
    Sequence.objects.filter(pk=sequence.pk).update(fallback_sequence=fallback)
    responses.post(SEND_URL, status=400, json=api_body("error_invalid_phone_format.json"))

    assert send_message(message.pk).kind == "failed"
    assert Lead.objects.get(pk=lead.pk).phone_reachable is False

    dispatch_due(tenant)
    email = Message.objects.exclude(pk=message.pk).get(lead=lead)
    assert email.channel == "EMAIL_COLD"
    assert "not on WhatsApp" in reasons.render(email.channel_reason)


def test_a_policy_against_unchecked_contacts_stalls_the_enrollment_with_its_reason(
    tenant, clock, timelinesai
):
    from tests.factories import make_outreach_world

    world = make_outreach_world(tenant, leads=2, phones=1)
    first, second = world["leads"]
    for lead in world["leads"]:
        _unchecked(lead)
    Tenant.objects.filter(pk=tenant.pk).update(
        contact_unverified_whatsapp=False, contact_unverified_email=False
    )
    tenant.refresh_from_db()

    result = dispatch_due(tenant)

    assert result.skipped[codes.NO_CHANNEL] == 2 and not Message.objects.exists()
    enrollment = Enrollment.objects.get(lead=first)
    assert enrollment.status == "ACTIVE" and enrollment.stalled_since == timezone.now()
    assert reasons.is_code(enrollment.stalled_reason, codes.NO_CHANNEL)
    assert "not checked yet" in reasons.render(enrollment.stalled_reason)
    assert set(stalls.stalled_leads(Lead.objects.all())) == {first, second}

    # An hour later the number is known good: the lead is due again, moves, is unstalled;
    # the other lead's stall keeps its first date.
    clock.shift(timedelta(hours=1))
    Lead.objects.filter(pk=first.pk).update(phone_reachable=True)
    assert stalls.wake([first.pk, second.pk]) == 2
    dispatch_due(tenant)
    assert Message.objects.get().lead == first
    assert Enrollment.objects.get(lead=first).stalled_since is None
    assert Enrollment.objects.get(lead=second).stalled_since == timezone.now() - timedelta(hours=1)
    assert list(stalls.stalled_leads(Lead.objects.all())) == [second]


def test_no_sending_phone_in_the_workspace_is_a_stall_not_a_silent_skip(tenant, clock):
    from tests.factories import make_outreach_world
    from whatsapp.models import Phone

    world = make_outreach_world(tenant, leads=1, phones=1)
    Phone.objects.filter(tenant=tenant).update(status="PAUSED")
    dispatch_due(tenant)
    enrollment = Enrollment.objects.get(lead=world["leads"][0])
    assert reasons.is_code(enrollment.stalled_reason, codes.NO_SENDING_PHONE)
    # still due: it goes as soon as a number can send again
    assert Journey.objects.get(lead=world["leads"][0]).next_action_at is not None


def test_turning_the_policy_on_from_the_settings_page_wakes_the_stalled_leads(
    tenant, clock, timelinesai, client
):
    """An admin allows unchecked numbers on the sending settings page: the leads stalled
    for want of a checked number are due again and the next dispatch sends to them."""
    from tests.factories import make_outreach_world, make_user
    from tests.outreach.test_pages_sending_window import _form

    world = make_outreach_world(tenant, leads=2, phones=1)
    for lead in world["leads"]:
        _unchecked(lead)
    Tenant.objects.filter(pk=tenant.pk).update(
        contact_unverified_whatsapp=False, contact_unverified_email=False
    )
    tenant.refresh_from_db()
    dispatch_due(tenant)
    assert stalls.stalled_leads(Lead.objects.all()).count() == 2

    client.force_login(make_user(tenant, role="ADMIN"))
    page = client.get("/outreach/settings/sending/").content.decode()
    assert 'name="contact_unverified_whatsapp"' in page
    assert 'name="contact_unverified_whatsapp" checked' not in page  # off, as saved
    response = client.post(
        "/outreach/settings/sending/",
        _form(contact_unverified_email=""),  # WhatsApp on, email stays off
        follow=True,
    )
    assert "2 stalled leads are looked at again" in response.content.decode()
    tenant.refresh_from_db()
    assert (tenant.contact_unverified_whatsapp, tenant.contact_unverified_email) == (True, False)

    dispatch_due(tenant)
    assert Message.objects.filter(channel="WHATSAPP").count() == 2
    assert not stalls.stalled_leads(Lead.objects.all()).exists()


def test_saving_the_same_policy_wakes_nobody(tenant, clock):
    from outreach.contact_policy import change_contact_policy

    assert change_contact_policy(tenant, whatsapp=True, email=True) == 0
    assert change_contact_policy(tenant, whatsapp=False, email=True) == 0  # nobody stalled
    tenant.refresh_from_db()
    assert tenant.contact_unverified_whatsapp is False
