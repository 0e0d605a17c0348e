"""Our stage machine → the lead's interest at Instantly (issue #11 §2, both ways): only for
leads pushed to Instantly, only for stages that mean something there, never an echo of a
change Instantly itself made, and after the change commits."""

from __future__ import annotations

import json

import pytest

from integrations.instantly import tasks
from outreach import stages
from outreach.models import Channel, Journey, Lead, Message, Stage
from tests.factories import make_lead, make_message
from tests.integrations.instantly.conftest import BASE, api_body

pytestmark = pytest.mark.usefixtures("registered")
INTEREST_URL = f"{BASE}/api/v2/leads/update-interest-status"


@pytest.fixture
def pushed(tenant):
    lead = make_lead(tenant, email="ion@agro.ro", email_status=Lead.EmailStatus.VALID)
    Journey.objects.filter(lead=lead).update(stage=Stage.CONTACTED_EMAIL)
    make_message(
        lead,
        channel=Channel.EMAIL_COLD,
        status=Message.Status.SENT,
        counterpart=lead.email,
        provider_message_id="019ffad3-aaaa-7bbb-8ccc-ddddeeeeffff",
    )
    return lead


@pytest.fixture
def sent(monkeypatch):
    calls: list[tuple] = []
    monkeypatch.setattr(tasks.push_interest, "send", lambda *args: calls.append(args))
    return calls


def move(lead, to, *, by_system="", capture):
    with capture(execute=True):
        stages.transition(Journey.objects.get(lead=lead), to, reason="test", by_system=by_system)


def test_a_reply_we_saw_marks_the_lead_interested_at_instantly(
    pushed, sent, django_capture_on_commit_callbacks
):
    move(pushed, Stage.WARM_REPLY, capture=django_capture_on_commit_callbacks)
    assert sent == [(pushed.journey.pk, 1)]


def test_nothing_is_sent_for_a_change_instantly_made_or_a_lead_it_does_not_know(
    tenant, pushed, sent, django_capture_on_commit_callbacks
):
    move(
        pushed, Stage.WARM_REPLY, by_system="instantly", capture=django_capture_on_commit_callbacks
    )
    whatsapp_only = make_lead(tenant)
    move(whatsapp_only, Stage.WARM_REPLY, capture=django_capture_on_commit_callbacks)
    assert sent == []


def test_nothing_is_sent_when_the_change_is_rolled_back(pushed, sent):
    # Inside the test's transaction, never committed: the hook waits for a commit.
    stages.transition(Journey.objects.get(lead=pushed), Stage.WARM_REPLY, reason="test")
    assert sent == []


def test_the_actor_calls_instantly(pushed, rsps, monkeypatch):
    monkeypatch.setenv("INSTANTLY_API_KEY", "test-key-interest")
    call = rsps.post(INTEREST_URL, status=202, json=api_body("interest_status_accepted"))
    tasks.push_interest.fn(pushed.journey.pk, -1)
    assert call.call_count == 1
    assert json.loads(call.calls[0].request.body) == {
        "lead_email": "ion@agro.ro",
        "interest_value": -1,
    }
