"""End to end: dispatched cold email pushed by outreach.pushing through the real
InstantlyEmail (`email.instantly`) against faked HTTP: one campaign created and activated,
one leads/add call, SENT rows carrying Instantly's lead ids."""

from __future__ import annotations

import pytest
import time_machine

from email_channels.models import EmailCampaign
from outreach import delivery, dispatch
from outreach.dispatch import dispatch_due
from outreach.models import Channel, Journey, Lead, Message, Stage
from outreach.pushing import push_due
from tests.factories import make_outreach_world
from tests.integrations.instantly import instantly_fake as fake
from tests.integrations.instantly.conftest import BASE, CAMPAIGN_ID
from tests.whatsapp.conftest import MONDAY_10

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(tenant, settings, api_key, monkeypatch, django_capture_on_commit_callbacks):
    monkeypatch.setattr(delivery, "plan_push", lambda tenant_id, at=None: None)
    monkeypatch.setattr(dispatch, "plan_push", lambda tenant_id, at=None: None)
    settings.PROVIDERS = {
        **settings.PROVIDERS,
        "email.instantly": {
            "BACKEND": "integrations.instantly.backend.InstantlyEmail",
            "OPTIONS": {
                "api_key": api_key,
                "base_url": BASE,
                "senders": "vanzari@cerniq-mail.ro, oferte@cerniq-mail.ro",
                "daily_limit": "30",
            },
        },
    }
    with time_machine.travel(MONDAY_10, tick=False):
        world = make_outreach_world(tenant, leads=4, phones=0, channel=Channel.EMAIL_COLD)
        for n, lead in enumerate(world["leads"]):
            lead.email, lead.email_status = f"ferma{n}@agro.ro", Lead.EmailStatus.VALID
            lead.save()
        with django_capture_on_commit_callbacks(execute=True):
            dispatch_due(tenant)
        yield world


def test_due_cold_email_is_pushed_into_one_instantly_campaign(rsps, world, tenant):
    fake.mock_campaign_creation(rsps)
    rsps.add_callback("POST", fake.ADD_URL, callback=fake.leads_add())
    with time_machine.travel(MONDAY_10, tick=False):
        outcome = push_due(tenant.pk)
    assert (outcome.sent, outcome.failed, outcome.calls) == (4, 0, 1)

    paths = [(c.request.method, c.request.url.removeprefix(BASE)) for c in rsps.calls]
    assert paths == [
        ("POST", "/api/v2/campaigns"),
        ("POST", f"/api/v2/campaigns/{CAMPAIGN_ID}/activate"),
        ("POST", "/api/v2/leads/add"),
    ]
    campaign = fake.body(rsps.calls[0])
    assert campaign["name"] == f"Agro Demo · {world['sequence'].name}"
    assert campaign["email_list"] == ["vanzari@cerniq-mail.ro", "oferte@cerniq-mail.ro"]
    assert campaign["daily_limit"] == 30

    add = rsps.calls[2]
    leads = {lead["email"]: lead["custom_variables"] for lead in fake.body(add)["leads"]}
    created = {row["email"]: row["id"] for row in add.response.json()["created_leads"]}
    for message in Message.objects.filter(channel=Channel.EMAIL_COLD):
        assert message.status == Message.Status.SENT
        assert message.provider_message_id == created[message.counterpart]
        sent = leads[message.counterpart]
        assert sent["cerniq_key"] == message.idempotency_key
        assert sent["subject_1"] == message.subject and "Pasul 1" in sent["subject_1"]
        assert message.body.splitlines()[0] in sent["body_1"]
    row = EmailCampaign.objects.get(tenant=tenant, sequence=world["sequence"])
    assert (row.provider, row.external_id, row.status) == ("instantly", CAMPAIGN_ID, "ACTIVE")
    assert set(Journey.objects.values_list("stage", flat=True)) == {Stage.CONTACTED_EMAIL}

    with time_machine.travel(MONDAY_10, tick=False):  # a duplicate push hands nothing over
        assert push_due(tenant.pk).calls == 0
    assert len(rsps.calls) == 3


def test_a_rate_limited_push_leaves_every_message_to_retry(rsps, world, tenant):
    fake.mock_campaign_creation(rsps)
    rsps.post(fake.ADD_URL, status=429, json={"statusCode": 429, "error": "Too Many Requests"})
    with time_machine.travel(MONDAY_10, tick=False):
        outcome = push_due(tenant.pk)
    assert (outcome.sent, outcome.failed) == (0, 4)
    retrying = Message.objects.filter(channel=Channel.EMAIL_COLD, status=Message.Status.QUEUED)
    assert retrying.count() == 4
    assert all("RateLimited" in m.error or "429" in m.error for m in retrying)
