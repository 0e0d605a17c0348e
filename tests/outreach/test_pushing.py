"""Cold email in bulk (outreach.pushing): the one send path's rules, many at a time."""

from __future__ import annotations

import pytest
import time_machine

from cerniq.provider_errors import InvalidRecipient, ProviderUnavailable
from cerniq.providers import get_backend
from email_channels.models import EmailCampaign
from outreach import delivery, dispatch
from outreach.dispatch import dispatch_due
from outreach.models import Channel, Journey, Lead, Message, Stage
from outreach.pushing import HOUR, push_due
from tests.factories import make_outreach_world
from tests.whatsapp.conftest import MONDAY_10

pytestmark = pytest.mark.django_db
Status = Message.Status


@pytest.fixture
def pushes(monkeypatch):
    planned: list[int] = []

    def plan(tenant_id, at=None):
        planned.append(tenant_id)

    monkeypatch.setattr(delivery, "plan_push", plan)
    monkeypatch.setattr(dispatch, "plan_push", plan)
    return planned


@pytest.fixture
def world(tenant, settings, pushes, django_capture_on_commit_callbacks):
    settings.PROVIDERS = {
        **settings.PROVIDERS,
        "email.instantly": {"BACKEND": "tests.fakes.FakeBulkEmail"},
    }
    with time_machine.travel(MONDAY_10, tick=False):
        world = make_outreach_world(tenant, leads=7, phones=0, channel=Channel.EMAIL_COLD)
        for n, lead in enumerate(world["leads"]):
            lead.email, lead.email_status = f"ferma{n}@agro.ro", Lead.EmailStatus.VALID
            lead.save()
        with django_capture_on_commit_callbacks(execute=True):
            dispatch_due(tenant)
        yield world


def statuses() -> dict[str, int]:
    found: dict[str, int] = {}
    for status in Message.objects.values_list("status", flat=True):
        found[status] = found.get(status, 0) + 1
    return found


def test_dispatch_plans_one_push_for_the_whole_batch(world, tenant, pushes):
    assert Message.objects.filter(channel=Channel.EMAIL_COLD, status=Status.QUEUED).count() == 7
    assert pushes == [tenant.pk]


def test_due_cold_email_goes_out_in_calls_of_max_batch(world, tenant):
    backend = get_backend("email.instantly")
    with time_machine.travel(MONDAY_10, tick=False):
        outcome = push_due(tenant.pk)
    assert (outcome.sent, outcome.calls) == (7, 3)
    assert [len(b) for b in backend.batches] == [3, 3, 1]
    assert statuses() == {Status.SENT: 7}
    # Each one recorded as a single send would be: stage, provider id, campaign key.
    assert set(Journey.objects.values_list("stage", flat=True)) == {Stage.CONTACTED_EMAIL}
    assert all(Message.objects.values_list("provider_message_id", flat=True))
    sequence = world["sequence"]
    assert {e.campaign for e in backend.emails} == {f"tenant:{tenant.pk}:sequence:{sequence.pk}"}
    # A second push (a duplicate broker message) finds nothing to hand over.
    with time_machine.travel(MONDAY_10, tick=False):
        assert push_due(tenant.pk).calls == 0


def test_an_unwanted_message_is_cancelled_not_pushed(world, tenant):
    lead = world["leads"][0]
    Journey.objects.filter(lead=lead).update(email_opted_out=True)
    with time_machine.travel(MONDAY_10, tick=False):
        outcome = push_due(tenant.pk)
    assert (outcome.sent, outcome.cancelled) == (6, 1)
    assert "ferma0@agro.ro" not in sum(get_backend("email.instantly").batches, [])
    assert Message.objects.get(lead=lead).status == Status.CANCELLED


def test_the_campaigns_hourly_limit_holds_the_rest_for_the_next_hour(world, tenant):
    EmailCampaign.objects.create(
        tenant=tenant, name="Cold", external_id="c-1", sequence=world["sequence"], hourly_limit=4
    )
    with time_machine.travel(MONDAY_10, tick=False):
        outcome = push_due(tenant.pk)
    assert (outcome.sent, outcome.waiting) == (4, 3)
    waiting = Message.objects.filter(status=Status.QUEUED)
    assert {m.scheduled_for for m in waiting} == {MONDAY_10 + HOUR}
    with time_machine.travel(MONDAY_10 + HOUR, tick=False):
        assert push_due(tenant.pk).sent == 3
    assert statuses() == {Status.SENT: 7}


def test_one_bad_address_fails_alone(world, tenant):
    backend = get_backend("email.instantly")
    backend.fail_for["ferma2@agro.ro"] = InvalidRecipient("invalid email")
    with time_machine.travel(MONDAY_10, tick=False):
        outcome = push_due(tenant.pk)
    assert (outcome.sent, outcome.failed) == (6, 1)
    bad = Message.objects.get(counterpart="ferma2@agro.ro")
    assert bad.status == Status.FAILED
    assert Lead.objects.get(email="ferma2@agro.ro").email_status == Lead.EmailStatus.INVALID


def test_a_failed_call_leaves_every_message_to_retry_with_the_same_key(world, tenant):
    backend = get_backend("email.instantly")
    backend.fail_call_with = ProviderUnavailable("503 from the provider", uncertain=True)
    with time_machine.travel(MONDAY_10, tick=False):
        outcome = push_due(tenant.pk)
    assert (outcome.sent, outcome.failed) == (0, 7)
    retrying = Message.objects.filter(status=Status.QUEUED)
    assert retrying.count() == 7 and all(m.needs_reconcile for m in retrying)
    assert all(m.scheduled_for > MONDAY_10 for m in retrying)
