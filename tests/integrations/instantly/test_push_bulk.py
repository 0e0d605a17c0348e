"""A push whose `leads/add` answer was lost, through the real InstantlyEmail against faked
HTTP shaped as docs/providers.md §2.2–2.3: the batch is looked up in Instantly's lead list
(one `leads/list` search for its addresses) before anything is pushed again; what
Instantly holds under our key is recorded sent, and only a lead it never took is pushed
again, failing alone if Instantly refuses it."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
import requests
import time_machine

from outreach import delivery, dispatch
from outreach.dispatch import dispatch_due
from outreach.models import Channel, Lead, Message
from outreach.pushing import push_due
from outreach.send_failures import RECONCILE_DEADLINE
from tests.factories import make_outreach_world
from tests.integrations.instantly import instantly_fake as fake
from tests.integrations.instantly.conftest import BASE
from tests.whatsapp.conftest import MONDAY_10

pytestmark = pytest.mark.django_db
Status = Message.Status


@pytest.fixture
def world(tenant, settings, api_key, monkeypatch, django_capture_on_commit_callbacks):
    monkeypatch.setattr(delivery, "plan_push", lambda tenant_id, at=None: None)
    monkeypatch.setattr(dispatch, "plan_push", lambda tenant_id, at=None: None)
    settings.PROVIDERS = {
        **settings.PROVIDERS,
        "email.instantly": {
            "BACKEND": "integrations.instantly.backend.InstantlyEmail",
            "OPTIONS": {"api_key": api_key, "base_url": BASE, "senders": "vanzari@cerniq-mail.ro"},
        },
    }
    with time_machine.travel(MONDAY_10, tick=False):
        world = make_outreach_world(tenant, leads=5, phones=0, channel=Channel.EMAIL_COLD)
        for n, lead in enumerate(world["leads"]):
            lead.email, lead.email_status = f"ferma{n}@agro.ro", Lead.EmailStatus.VALID
            lead.save()
        with django_capture_on_commit_callbacks(execute=True):
            dispatch_due(tenant)
        yield world


class Workspace:
    """Instantly's leads as `leads/list` answers for them: those its lost answer created."""

    def __init__(self) -> None:
        self.leads: dict[str, dict] = {}
        self.searched: list[list[str]] = []

    def took(self, message: Message, lead_id: str) -> None:
        self.leads[message.counterpart] = fake.listed_lead(
            message.counterpart, key=message.idempotency_key, lead_id=lead_id
        )

    def listed(self, request):
        body = json.loads(request.body)
        self.searched.append(body["contacts"])
        assert body["limit"] == 100
        items = [self.leads[c] for c in body["contacts"] if c in self.leads]
        return 200, {}, json.dumps({"items": items, "next_starting_after": None})


def push(tenant, at):
    with time_machine.travel(at, tick=False):
        return push_due(tenant.pk)


def lost_answer(rsps, tenant) -> None:
    """The first push: Instantly's campaign created, its leads/add answer never read."""
    fake.mock_campaign_creation(rsps)
    timeout = requests.exceptions.ReadTimeout("read timed out")
    rsps.post(fake.ADD_URL, body=timeout)
    outcome = push(tenant, MONDAY_10)
    assert (outcome.sent, outcome.failed, outcome.calls) == (0, 5, 1)
    assert Message.objects.filter(status=Status.QUEUED, needs_reconcile=True).count() == 5


def test_a_batch_whose_answer_was_lost_is_found_in_one_search_and_not_pushed_again(
    rsps, world, tenant
):
    lost_answer(rsps, tenant)
    workspace = Workspace()
    messages = list(Message.objects.filter(channel=Channel.EMAIL_COLD).order_by("pk"))
    for n, message in enumerate(messages):
        workspace.took(message, f"0199a1f0-0000-7000-8000-00000000000{n}")
    rsps.add_callback("POST", fake.LIST_URL, callback=workspace.listed)

    outcome = push(tenant, MONDAY_10 + timedelta(seconds=20))
    assert (outcome.reconciled, outcome.calls, outcome.sent) == (5, 0, 0)
    assert workspace.searched == [[m.counterpart for m in messages]]  # one search
    assert len(fake.calls_to(rsps, fake.ADD_URL)) == 1  # never pushed again
    for n, message in enumerate(messages):
        message.refresh_from_db()
        assert message.status == Status.SENT and not message.needs_reconcile
        assert message.provider_message_id == f"0199a1f0-0000-7000-8000-00000000000{n}"
    assert push(tenant, MONDAY_10 + RECONCILE_DEADLINE * 2).calls == 0


def test_only_the_lead_instantly_never_took_is_pushed_again_and_fails_alone(rsps, world, tenant):
    lost_answer(rsps, tenant)
    workspace = Workspace()
    messages = list(Message.objects.filter(channel=Channel.EMAIL_COLD).order_by("pk"))
    bad = messages[2]
    for n, message in enumerate(messages):
        if message != bad:  # Instantly counted this address invalid and created the others
            workspace.took(message, f"0199a1f0-0000-7000-8000-00000000001{n}")
    rsps.add_callback("POST", fake.LIST_URL, callback=workspace.listed)

    outcome = push(tenant, MONDAY_10 + timedelta(seconds=20))
    assert (outcome.reconciled, outcome.deferred, outcome.calls) == (4, 1, 0)

    # Past the deadline the one not found goes again, alone; Instantly refuses it.
    refused = fake.leads_add(refuse=lambda lead: True, invalid_email_count=1)
    rsps.add_callback("POST", fake.ADD_URL, callback=refused)
    outcome = push(tenant, MONDAY_10 + RECONCILE_DEADLINE + timedelta(seconds=1))
    assert (outcome.calls, outcome.failed, outcome.sent) == (1, 1, 0)
    again = fake.calls_to(rsps, fake.ADD_URL)[-1]
    assert [lead["email"] for lead in fake.body(again)["leads"]] == [bad.counterpart]
    assert fake.body(again)["leads"][0]["custom_variables"]["cerniq_key"] == bad.idempotency_key
    statuses = dict(Message.objects.values_list("pk", "status"))
    assert statuses.pop(bad.pk) == Status.FAILED
    assert set(statuses.values()) == {Status.SENT}
    assert Lead.objects.get(pk=bad.lead_id).email_status == Lead.EmailStatus.INVALID
