"""Cold email in bulk (outreach.pushing), batch by batch: a batch costs the same SQL
statements whatever its size, and every rule of the one send path still holds for each of
its messages (still wanted, idempotency keys, uncertain attempts, failures per message,
what a send records and announces)."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext

from cerniq import reasons
from cerniq.models import WebhookDelivery
from cerniq.provider_errors import ProviderTimeout, ProviderUnavailable, SendResult
from cerniq.providers import get_backend
from email_channels.models import EmailCampaign
from outreach import delivery, dispatch
from outreach import reasons as codes
from outreach.dispatch import dispatch_due
from outreach.models import (
    Channel,
    Enrollment,
    Journey,
    Lead,
    Message,
    Stage,
    StageTransition,
    TemplateVersion,
)
from outreach.pushing import push_due
from outreach.send_failures import RECONCILE_DEADLINE, SPENT
from outreach.suppression_list import add_entry
from tests.factories import make_outreach_world, make_tenant, make_user, make_webhook_endpoint
from tests.whatsapp.conftest import MONDAY_10

pytestmark = pytest.mark.django_db
Status = Message.Status


@pytest.fixture(autouse=True)
def bulk_email(settings, monkeypatch):
    """A cold-email provider with a bulk call (tests.fakes.FakeBulkEmail) taking 200 a call;
    dispatch's planned pushes dropped (each test pushes itself)."""
    monkeypatch.setattr(delivery, "plan_push", lambda tenant_id, at=None: None)
    monkeypatch.setattr(dispatch, "plan_push", lambda tenant_id, at=None: None)
    settings.PROVIDERS = {
        **settings.PROVIDERS,
        "email.instantly": {"BACKEND": "tests.fakes.FakeBulkEmail"},
    }
    backend = get_backend("email.instantly")
    backend.max_batch = 200
    return backend


def queued_world(leads: int, tenant=None, django_capture_on_commit_callbacks=None) -> dict:
    """A tenant with `leads` enrolled leads whose first cold email is queued (MONDAY_10),
    its campaign taking them all this hour."""
    tenant = tenant or make_tenant()
    with time_machine.travel(MONDAY_10, tick=False):
        world = make_outreach_world(tenant, leads=leads, phones=0, channel=Channel.EMAIL_COLD)
        Lead.objects.filter(tenant=tenant).update(email_status=Lead.EmailStatus.VALID)
        EmailCampaign.objects.create(
            tenant=tenant, name="Cold", sequence=world["sequence"], hourly_limit=1000
        )
        dispatch_due(tenant, batch_size=1000)
    assert Message.objects.filter(tenant=tenant, status=Status.QUEUED).count() == leads
    return {**world, "tenant": tenant}


def push(tenant, at=MONDAY_10):
    with time_machine.travel(at, tick=False):
        return push_due(tenant.pk)


def statements_of_push(tenant) -> list[str]:
    with CaptureQueriesContext(connection) as captured:
        push(tenant)
    return [query["sql"] for query in captured.captured_queries]


# --- the cost of a batch -------------------------------------------------------------------


def test_a_batch_of_100_costs_the_statements_a_batch_of_10_does(bulk_email):
    small, large = queued_world(10), queued_world(100)
    few, many = statements_of_push(small["tenant"]), statements_of_push(large["tenant"])
    assert len(many) == len(few) < 60
    assert Message.objects.filter(status=Status.SENT).count() == 110
    assert [len(b) for b in bulk_email.batches] == [10, 100]


def test_a_whole_batch_failing_costs_the_statements_of_one_failure_too(bulk_email):
    small, large = queued_world(10), queued_world(100)
    bulk_email.fail_call_with = ProviderUnavailable("503 from the provider", uncertain=True)
    few, many = statements_of_push(small["tenant"]), statements_of_push(large["tenant"])
    assert len(many) == len(few)
    retrying = Message.objects.filter(status=Status.QUEUED, needs_reconcile=True)
    assert retrying.count() == 110
    assert {tuple(m.retries.items()) for m in retrying} == {(("unavailable", 1),)}


# --- every rule of the send path, per message ------------------------------------------------


def test_leads_no_longer_wanted_are_cancelled_each_with_its_reason_and_the_rest_pushed(
    bulk_email,
):
    world = queued_world(12)
    tenant, leads = world["tenant"], world["leads"]
    Journey.objects.filter(lead__in=leads[0:2]).update(email_opted_out=True)
    for lead in leads[2:4]:
        add_entry(tenant, kind="domain", value=lead.email.split("@")[1], reason="asked")
    Journey.objects.filter(lead__in=leads[4:6]).update(taken_over_by=make_user(tenant))
    Enrollment.objects.filter(lead__in=leads[6:8]).update(status=Enrollment.Status.PAUSED)
    statements = statements_of_push(tenant)
    assert set(bulk_email.batches[0]) == {lead.email for lead in leads[8:]}
    expected = {
        codes.NOT_SENT_OPTED_OUT: leads[0:2],
        codes.NOT_SENT_SUPPRESSED: leads[2:4],
        codes.STOP_TAKEOVER: leads[4:6],
        codes.STOP_PAUSED: leads[6:8],
    }
    for code, dropped in expected.items():
        for message in Message.objects.filter(lead__in=dropped):
            assert message.status == Status.CANCELLED
            assert reasons.is_code(message.error, code), message.error
            assert message.idempotency_key.endswith(f"#cancelled-{message.pk}")  # key freed
    assert Message.objects.filter(tenant=tenant, status=Status.SENT).count() == 4
    # One UPDATE per reason, not one per message.
    cancels = [sql for sql in statements if "UPDATE" in sql and "CANCELLED" in sql]
    assert len(cancels) == 4


def test_a_repeated_push_hands_nothing_over_and_a_retry_sends_the_same_email_under_its_key(
    bulk_email,
):
    world = queued_world(5)
    tenant = world["tenant"]
    bulk_email.fail_call_with = ProviderUnavailable("503", uncertain=False)
    assert push(tenant).failed == 5
    # Rendered once, when the first attempt claimed it: its unsubscribe link is signed
    # with the moment, so a second rendering would differ.
    stored = dict(Message.objects.filter(tenant=tenant).values_list("pk", "raw_request"))
    assert push(tenant).calls == 0  # not due again yet: a duplicate push hands nothing over

    bulk_email.fail_call_with = None
    later = MONDAY_10 + timedelta(minutes=1)
    assert push(tenant, at=later).sent == 5
    handed = dict(zip(bulk_email.keys, bulk_email.emails, strict=True))
    for message in Message.objects.filter(tenant=tenant):
        assert (message.status, message.attempts) == (Status.SENT, 2)
        email = handed[message.idempotency_key]  # the message's own key
        assert email.to == message.counterpart
        assert email.headers == dict(stored[message.pk]["email"]["headers"])
    assert push(tenant, at=later).calls == 0


def test_an_uncertain_batch_is_looked_for_first_and_what_went_out_is_not_pushed_again(
    bulk_email,
):
    world = queued_world(6)
    tenant = world["tenant"]
    bulk_email.fail_call_with = ProviderTimeout("read timed out", uncertain=True)
    push(tenant)
    # The provider took four of them before its answer was lost (their keys).
    reached = list(Message.objects.filter(tenant=tenant).order_by("pk")[:4])
    for n, message in enumerate(reached):
        bulk_email.sent[message.idempotency_key] = SendResult(f"lead-{n}", {"id": f"lead-{n}"})
    bulk_email.fail_call_with = None
    calls = len(bulk_email.batches)

    # Due again before the reconcile deadline: the four are found, the two others wait.
    outcome = push(tenant, at=MONDAY_10 + timedelta(seconds=20))
    assert (outcome.reconciled, outcome.calls, outcome.deferred) == (4, 0, 2)
    assert len(bulk_email.batches) == calls  # nothing pushed
    for n, message in enumerate(reached):
        message.refresh_from_db()
        assert (message.status, message.provider_message_id) == (Status.SENT, f"lead-{n}")
    # Past the deadline the two not found are pushed again, once.
    outcome = push(tenant, at=MONDAY_10 + RECONCILE_DEADLINE + timedelta(seconds=1))
    assert (outcome.sent, outcome.calls) == (2, 1)
    assert len(bulk_email.batches[-1]) == 2
    assert Message.objects.filter(tenant=tenant, status=Status.SENT).count() == 6
    assert not Message.objects.filter(tenant=tenant, needs_reconcile=True).exists()


def test_an_uncertain_message_whose_retries_are_spent_is_never_pushed_again(bulk_email):
    world = queued_world(3)
    tenant = world["tenant"]
    spent = {"timeout": 4, SPENT: "ProviderTimeout: gave up after 3 retries"}
    Message.objects.filter(tenant=tenant).update(
        needs_reconcile=True, retries=spent, attempt_started_at=MONDAY_10
    )
    outcome = push(tenant, at=MONDAY_10 + RECONCILE_DEADLINE + timedelta(seconds=1))
    assert (outcome.calls, outcome.failed) == (0, 3)
    assert bulk_email.batches == []
    assert set(Message.objects.values_list("status", flat=True)) == {Status.DEAD_LETTER}


def test_a_failed_lookup_pushes_nothing_and_looks_again(bulk_email):
    world = queued_world(3)
    tenant = world["tenant"]
    Message.objects.filter(tenant=tenant).update(needs_reconcile=True, attempt_started_at=MONDAY_10)
    bulk_email.fail_lookups_with = ProviderUnavailable("503 on the lookup")
    outcome = push(tenant, at=MONDAY_10 + timedelta(seconds=30))
    assert (outcome.calls, outcome.deferred) == (0, 3)
    waiting = Message.objects.filter(tenant=tenant, status=Status.QUEUED, needs_reconcile=True)
    assert waiting.count() == 3
    assert all(m.scheduled_for > MONDAY_10 + timedelta(seconds=30) for m in waiting)


def test_what_a_send_changes_is_recorded_for_every_message_of_the_batch_at_once(
    bulk_email, django_capture_on_commit_callbacks
):
    tenant = make_tenant()
    make_webhook_endpoint(tenant, events=["lead.stage_changed"])
    world = queued_world(12, tenant=tenant)
    with django_capture_on_commit_callbacks(execute=False):
        statements = statements_of_push(tenant)
    journeys = Journey.objects.filter(tenant=tenant)
    assert {j.stage for j in journeys} == {Stage.CONTACTED_EMAIL}
    assert {(j.last_channel, j.sequence_step) for j in journeys} == {(Channel.EMAIL_COLD, 1)}
    assert all(j.first_contact_at == j.last_contact_at == MONDAY_10 for j in journeys)
    moves = StageTransition.objects.filter(tenant=tenant, to_stage=Stage.CONTACTED_EMAIL)
    assert moves.count() == 12 and {m.by_system for m in moves} == {"send"}
    events = WebhookDelivery.objects.filter(tenant=tenant, event_type="lead.stage_changed")
    assert sorted(e.payload["data"]["lead_id"] for e in events) == sorted(
        lead.pk for lead in world["leads"]
    )
    first_step = world["sequence"].steps.get(position=1)
    version = TemplateVersion.objects.get(template=first_step.template)
    assert version.sent_count == 12
    enrollments = Enrollment.objects.filter(tenant=tenant)
    assert {(e.current_step, e.status) for e in enrollments} == {(1, Enrollment.Status.ACTIVE)}
    due = {e.next_run_at for e in enrollments}
    assert len(due) == 1 and due.pop() > MONDAY_10  # the second step, a working day later
    # The history rows and the events of the twelve moves: one INSERT each.
    for table in ("outreach_stagetransition", "cerniq_webhookdelivery"):
        assert len([sql for sql in statements if sql.startswith(f'INSERT INTO "{table}"')]) == 1
