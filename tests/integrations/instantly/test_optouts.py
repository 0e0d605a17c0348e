"""An opt-out on any channel reaches Instantly (issue #11 §8): a lead we pushed into a
campaign is deleted there, once, after the opt-out commits; a lead Instantly never had
costs no call."""

from __future__ import annotations

import pytest

from integrations.instantly import tasks
from outreach import optout
from outreach.models import Channel, Lead, Message
from tests.factories import make_lead, make_message
from tests.integrations.instantly.conftest import BASE

pytestmark = pytest.mark.usefixtures("registered")
INSTANTLY_LEAD = "019ffad3-aaaa-7bbb-8ccc-ddddeeeeffff"


def pushed_lead(tenant):
    """A lead whose cold email was pushed: Instantly knows it as INSTANTLY_LEAD."""
    lead = make_lead(tenant, email="ion@agro.ro", email_status=Lead.EmailStatus.VALID)
    make_message(
        lead,
        channel=Channel.EMAIL_COLD,
        status=Message.Status.SENT,
        counterpart=lead.email,
        provider_message_id=INSTANTLY_LEAD,
    )
    return lead


@pytest.fixture
def forgotten(monkeypatch):
    calls: list[str] = []
    monkeypatch.setattr(tasks.forget_lead, "send", calls.append)
    return calls


def test_a_pushed_lead_who_says_stop_on_whatsapp_is_deleted_at_instantly(
    tenant, forgotten, django_capture_on_commit_callbacks
):
    lead = pushed_lead(tenant)
    with django_capture_on_commit_callbacks(execute=True):
        optout.opt_out(lead, Channel.WHATSAPP)
    assert forgotten == [INSTANTLY_LEAD]
    with django_capture_on_commit_callbacks(execute=True):
        optout.opt_out(lead, Channel.EMAIL_COLD)  # already out everywhere: no second call
    assert forgotten == [INSTANTLY_LEAD]


def test_a_lead_instantly_never_had_costs_no_call(
    tenant, forgotten, django_capture_on_commit_callbacks
):
    lead = make_lead(tenant)
    with django_capture_on_commit_callbacks(execute=True):
        optout.opt_out(lead, Channel.WHATSAPP)
    assert forgotten == []


@pytest.mark.parametrize("status", [200, 404])
def test_the_actor_deletes_the_lead_and_a_lead_already_gone_is_fine(rsps, monkeypatch, status):
    monkeypatch.setenv("INSTANTLY_API_KEY", "test-key-optouts")
    call = rsps.delete(
        f"{BASE}/api/v2/leads/{INSTANTLY_LEAD}",
        status=status,
        json={"id": INSTANTLY_LEAD}
        if status == 200
        else {"statusCode": 404, "error": "Not Found", "message": "Lead not found"},
    )
    tasks.forget_lead.fn(INSTANTLY_LEAD)
    assert call.call_count == 1


def test_the_demo_sandbox_has_no_lead_at_instantly_to_delete_or_update(
    tenant, forgotten, settings, monkeypatch, django_capture_on_commit_callbacks
):
    """`make run` pushes cold email into the sandbox: the hooks must not call Instantly."""
    settings.PROVIDERS = {
        **settings.PROVIDERS,
        "email.instantly": {"BACKEND": "integrations.sandbox.email.SandboxEmail"},
    }
    interest_calls: list = []
    monkeypatch.setattr(tasks.push_interest, "send", lambda *a: interest_calls.append(a))
    lead = pushed_lead(tenant)
    from outreach import stages
    from outreach.models import Journey, Stage

    with django_capture_on_commit_callbacks(execute=True):
        stages.transition(Journey.objects.get(lead=lead), Stage.WARM_REPLY, reason="demo")
        optout.opt_out(lead, Channel.WHATSAPP)
    assert (forgotten, interest_calls) == ([], [])


# --- a stopped sequence withdraws the pushes Instantly has not sent yet ---------------------


@pytest.fixture
def withdrawn(monkeypatch):
    calls: list[str] = []
    monkeypatch.setattr(tasks.withdraw_lead, "send", calls.append)
    return calls


@pytest.mark.parametrize("stop", ["pause", "reply", "dead"])
def test_a_sequence_that_stops_withdraws_its_pushed_lead(
    tenant, withdrawn, monkeypatch, django_capture_on_commit_callbacks, stop
):
    """The lead answered on WhatsApp, or an operator paused or closed it, while its cold
    email waits at Instantly for the campaign's schedule: Instantly must not send it."""
    from outreach import stages
    from outreach.models import Journey, Stage

    monkeypatch.setattr(tasks.push_interest, "send", lambda *a: None)
    journey = Journey.objects.get(lead=pushed_lead(tenant))
    with django_capture_on_commit_callbacks(execute=True):
        if stop == "pause":
            stages.pause(journey, reason="operator")
        else:
            target = Stage.WARM_REPLY if stop == "reply" else Stage.DEAD
            stages.transition(journey, target, reason="test")
    assert withdrawn == [INSTANTLY_LEAD]


def test_a_move_between_automated_stages_withdraws_nothing(
    tenant, withdrawn, django_capture_on_commit_callbacks
):
    from outreach import stages
    from outreach.models import Journey, Stage

    journey = Journey.objects.get(lead=pushed_lead(tenant))
    with django_capture_on_commit_callbacks(execute=True):
        stages.transition(journey, Stage.CONTACTED_EMAIL, reason="pushed")
    assert withdrawn == []


@pytest.mark.parametrize(
    ("lead_status", "last_contact", "deleted"),
    [
        (1, None, True),  # Active, never written to: withdrawn
        (1, "2026-10-06T09:02:11.000Z", False),  # already emailed: its thread stays
        (3, None, False),  # Completed
        (-2, None, False),  # Unsubscribed at Instantly
        (None, None, False),  # 404: Instantly no longer has it
    ],
)
def test_the_actor_deletes_only_a_lead_instantly_has_not_emailed(
    rsps, monkeypatch, lead_status, last_contact, deleted
):
    from tests.integrations.instantly.conftest import api_body

    monkeypatch.setenv("INSTANTLY_API_KEY", "test-key-optouts")
    url = f"{BASE}/api/v2/leads/{INSTANTLY_LEAD}"
    if lead_status is None:
        rsps.get(url, status=404, json={"statusCode": 404, "error": "Not Found", "message": "x"})
    else:
        body = api_body("lead_get")
        body.update(status=lead_status, timestamp_last_contact=last_contact)
        rsps.get(url, json=body)
    delete = rsps.delete(url, json={"id": INSTANTLY_LEAD})
    tasks.withdraw_lead.fn(INSTANTLY_LEAD)
    assert delete.call_count == (1 if deleted else 0)
