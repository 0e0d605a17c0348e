from __future__ import annotations

import json
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
import time_machine

from integrations.timelinesai import integration as timelinesai
from outreach.dispatch import dispatch_due
from outreach.models import Message
from tests.factories import make_outreach_world

API_FIXTURES = timelinesai.package_dir / "fixtures" / "api"
WEBHOOK_FIXTURES = timelinesai.package_dir / "fixtures" / "webhooks"
BASE = "https://app.timelines.ai/integrations/api"
MONDAY_10 = datetime(2026, 11, 23, 10, 0, tzinfo=ZoneInfo("Europe/Bucharest"))


def api_body(name: str) -> dict:
    return json.loads((API_FIXTURES / name).read_text(encoding="utf-8"))


@pytest.fixture
def timelinesai(settings):
    """Route TimelinesAI phones to the real client (its HTTP is faked with `responses`)."""
    settings.PROVIDERS = {
        **settings.PROVIDERS,
        "whatsapp.timelinesai": {
            "BACKEND": "integrations.timelinesai.client.TimelinesAI",
            "OPTIONS": {"api_token": "test-token-123", "base_url": BASE},
        },
    }


@pytest.fixture
def clock():
    with time_machine.travel(MONDAY_10, tick=False) as traveller:
        yield traveller


@pytest.fixture
def queued(tenant, clock, timelinesai):
    """One first message QUEUED for +40722000111 on phone +40740000101 (TimelinesAI)."""
    world = make_outreach_world(tenant, leads=1, phones=1)
    phone = world["phones"][0]
    phone.number, phone.provider = "+40740000101", "timelinesai"  # active in the fixtures
    phone.account_id = "40740000101@s.whatsapp.net"
    phone.save()
    lead = world["leads"][0]
    lead.phone = "+40722000111"
    lead.save()
    dispatch_due(tenant)
    return Message.objects.get()


def contacted_over_whatsapp(tenant):
    """Ion Popescu (+40722000111) got step 1 of 2 from +40740000101 (the numbers of the
    TimelinesAI webhook fixtures), on MONDAY_10; the outreach world."""
    from outreach.dispatch import dispatch_due
    from outreach.models import Message
    from outreach.sending import send_message
    from tests.factories import make_outreach_world

    with time_machine.travel(MONDAY_10, tick=False):
        world = make_outreach_world(tenant, leads=1, phones=1, steps=2)
        phone = world["phones"][0]
        phone.number, phone.account_id = "+40740000101", "40740000101@s.whatsapp.net"
        phone.save()
        lead = world["leads"][0]
        lead.phone, lead.contact_name = "+40722000111", "Ion Popescu"
        lead.save()
        dispatch_due(tenant)
        assert send_message(Message.objects.get().pk).kind == "sent"
    return world


@pytest.fixture
def queued_unchecked(tenant, clock, timelinesai):
    """As `queued`, for a lead imported without any check: number and address unchecked."""
    from outreach.models import Lead

    world = make_outreach_world(tenant, leads=1, phones=1)
    phone = world["phones"][0]
    phone.number, phone.provider = "+40740000101", "timelinesai"
    phone.account_id = "40740000101@s.whatsapp.net"
    phone.save()
    Lead.objects.filter(pk=world["leads"][0].pk).update(
        phone="+40722000111", phone_reachable=None, email_status=Lead.EmailStatus.UNKNOWN
    )
    dispatch_due(tenant)
    return Message.objects.get()
