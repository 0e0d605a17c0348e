"""The admin says a step's conditions in words (list and inline), refuses a conditions value
outreach.step_conditions does not read, and lists and filters a sequence's company reply
option."""

from __future__ import annotations

import pytest
from django.test import Client

from outreach.models import Sequence, SequenceStep
from tests.factories import make_sequence

pytestmark = pytest.mark.django_db

CONDITIONS = {"all": [{"kind": "replied"}, {"kind": "whatsapp_not_read", "hours": 24}]}


@pytest.fixture
def admin_client(superuser) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(superuser)
    return client


def test_conditions_are_said_in_words_in_the_list_and_the_inline(admin_client, tenant):
    sequence = make_sequence(tenant)
    sequence.steps.update(conditions=CONDITIONS)
    words = (
        "Only if the lead has replied (reply-first); "
        "Only if our last WhatsApp message was not read within 24 hours"
    )
    listed = admin_client.get("/admin/outreach/sequencestep/").content.decode()
    assert words in listed
    page = admin_client.get(f"/admin/outreach/sequence/{sequence.pk}/change/").content.decode()
    assert words in page


def test_the_sequence_list_shows_and_filters_the_company_reply_option(admin_client, tenant):
    make_sequence(tenant, name="Pauzata", company_reply=Sequence.CompanyReply.PAUSE)
    make_sequence(tenant, name="Oprita")
    listed = admin_client.get("/admin/outreach/sequence/?company_reply__exact=pause")
    assert listed.status_code == 200
    html = listed.content.decode()
    assert "Pauzata" in html and "Oprita" not in html
    assert "Pause the other contacts for some days" in html


def _step_change(step: SequenceStep, conditions: str) -> dict:
    return {
        "tenant": str(step.tenant_id),
        "sequence": str(step.sequence_id),
        "sequence_version": str(step.sequence_version),
        "position": str(step.position),
        "channel": step.channel,
        "delay_value": str(step.delay_value),
        "delay_unit": step.delay_unit,
        "template": str(step.template_id),
        "conditions": conditions,
    }


def test_a_conditions_value_step_conditions_refuses_is_refused(admin_client, tenant):
    step = make_sequence(tenant).steps.get()
    url = f"/admin/outreach/sequencestep/{step.pk}/change/"
    refused = admin_client.post(url, _step_change(step, '{"all": [{"kind": "whatsapp_not_read"}]}'))
    assert refused.status_code == 200
    assert "conditions.all[0].hours: whole hours from 1 to 720" in refused.content.decode()
    step.refresh_from_db()
    assert step.conditions == {}
    kept = admin_client.post(url, _step_change(step, '{"all": [{"kind": "no_phone", "hours": 3}]}'))
    assert kept.status_code == 302
    step.refresh_from_db()
    assert step.conditions == {"all": [{"kind": "no_phone"}]}  # as to_json writes it
