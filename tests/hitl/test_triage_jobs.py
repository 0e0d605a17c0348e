"""A reply's triage runs in the `ai.triage` workers after the reply's transaction committed
(hitl.triage_jobs): the webhook never holds a transaction open during a model call, what
must happen at once (the stop, the opt-out) happens at once, the reply is visible as being
analysed, a failing triage is retried and then put in front of a person, a reply is routed
once however many runs it gets, and one whose broker message was lost is enqueued again."""

from __future__ import annotations

import uuid
from datetime import timedelta

import dramatiq
import pytest
from django.core.management import call_command
from django.db import connection, transaction
from django.utils import timezone

from cerniq import reasons
from cerniq.models import WebhookEvent
from cerniq.webhooks import process_event
from hitl import reasons as why
from hitl import replies, triage_jobs
from hitl.models import ReplyTriage, ReviewItem
from hitl.replies import process_reply
from hitl.tasks import triage_reply
from hitl.triage import OfflineTriage, TriageBackend
from outreach.dispatch import dispatch_due
from outreach.models import Enrollment, Journey, Lead, Message
from tests.drain import run_triage, running_workers, wait_until
from tests.factories import make_lead, make_message, make_outreach_world, make_tenant, make_user
from tests.whatsapp.conftest import WEBHOOK_FIXTURES, contacted_over_whatsapp

REPLY = (WEBHOOK_FIXTURES / "message_received_new__text.json").read_bytes()
BACKEND = "tests.hitl.test_triage_jobs.{}"


class OutsideTransactionTriage(TriageBackend):
    """The offline triage, refusing to answer inside a transaction (each call recorded)."""

    needs_credentials = False
    in_atomic_block: list[bool] = []

    def analyse(self, text: str, **kwargs) -> object:
        type(self).in_atomic_block.append(connection.in_atomic_block)
        assert not connection.in_atomic_block, "a model call inside a transaction"
        return OfflineTriage().analyse(text, **kwargs)


class BrokenTriage(TriageBackend):
    """A backend that fails every time (a bug, an outage its own fallback did not catch)."""

    needs_credentials = False
    calls = 0

    def analyse(self, text: str, **kwargs) -> object:
        type(self).calls += 1
        raise RuntimeError("model server exploded")


@pytest.fixture(autouse=True)
def ai_budget_of_its_own(monkeypatch):
    """A rate-limit key of this test's own: other tests in the same minute (a frozen clock)
    may have spent a tenant id's AI budget, and the offline fallback would answer then."""
    monkeypatch.setattr(replies, "AI_LIMIT_KEY", f"ai-test-{uuid.uuid4()}-{{tenant_id}}")


def use_backend(settings, name: str) -> None:
    settings.PROVIDERS = {
        **settings.PROVIDERS,
        "ai.triage": {"BACKEND": BACKEND.format(name), "OPTIONS": {}},
    }


def replied(lead: Lead, text: str) -> Message:
    message = make_message(
        lead,
        direction=Message.Direction.INBOUND,
        status=Message.Status.RECEIVED,
        idempotency_key=None,
        body=text,
    )
    process_reply(lead, message)
    return message


def post_reply(client, tenant):
    response = client.post(
        f"/webhooks/timelinesai/{tenant.webhook_token}/", REPLY, content_type="application/json"
    )
    assert response.status_code == 200 and response.json()["status"] == "accepted"
    return response.json()["id"]


# --- the webhook's transaction -------------------------------------------------------


def test_the_webhook_stores_stops_and_hands_over_without_calling_the_backend(
    client, tenant, settings, clock, django_capture_on_commit_callbacks
):
    use_backend(settings, "BrokenTriage")  # any call would fail the event
    BrokenTriage.calls = 0
    lead = contacted_over_whatsapp(tenant)["leads"][0]
    Journey.objects.filter(lead=lead).update(next_action_at=timezone.now())
    dispatch_due(tenant)
    follow_up = Message.objects.get(step__position=2)
    assert follow_up.status == "QUEUED"
    event_id = post_reply(client, tenant)
    with django_capture_on_commit_callbacks() as handed_over:
        assert process_event(event_id) == "processed"
    assert BrokenTriage.calls == 0
    inbound = Message.objects.get(direction="IN")
    job = ReplyTriage.objects.get(pk=inbound.pk)
    assert (job.state, job.attempts, job.lead_id) == ("PENDING", 0, lead.pk)
    # What must not wait for the triage happened in the webhook's transaction.
    follow_up.refresh_from_db()
    assert follow_up.status == "CANCELLED"
    assert Enrollment.objects.get(lead=lead).status == "STOPPED"
    assert Journey.objects.get(lead=lead).last_reply_at is not None
    assert inbound.analysis == {"decision": reasons.code(why.DECISION_PENDING), "pending": True}
    assert not ReviewItem.objects.exists()
    # ... and the triage goes to the workers once the transaction commits.
    sent = [c for c in handed_over if getattr(c, "func", None) == triage_reply.send]
    assert [c.args for c in sent] == [(inbound.pk,)]


def test_an_opt_out_is_honoured_in_the_webhooks_transaction(tenant, clock):
    world = make_outreach_world(tenant, leads=1, phones=1)
    lead = world["leads"][0]
    message = replied(lead, "STOP, nu mai trimiteți nimic.")
    journey = Journey.objects.get(lead=lead)
    assert journey.whatsapp_opted_out and journey.email_opted_out
    assert ReplyTriage.objects.get(pk=message.pk).opted_out
    assert run_triage() == [reasons.code(why.DECISION_OPT_OUT)]  # no complaint in it
    assert not ReviewItem.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_through_real_workers_the_backend_runs_outside_any_transaction(client, settings):
    use_backend(settings, "OutsideTransactionTriage")
    OutsideTransactionTriage.in_atomic_block = []
    tenant = make_tenant()
    lead = contacted_over_whatsapp(tenant)["leads"][0]
    with running_workers():
        post_reply(client, tenant)
        wait_until(
            lambda: ReplyTriage.objects.filter(state="DONE").exists(),
            what=lambda: list(ReplyTriage.objects.values("state", "attempts")),
        )
    assert OutsideTransactionTriage.in_atomic_block == [False]
    assert WebhookEvent.objects.get().status == "PROCESSED"
    item = ReviewItem.objects.get(lead=lead)
    assert item.priority == "URGENT"  # interest with a price question
    assert Journey.objects.get(lead=lead).stage == "WARM_REPLY"


# --- retries and the last failure ------------------------------------------------------


def test_a_failing_triage_is_retried_then_read_by_a_person(tenant, clock, settings):
    use_backend(settings, "BrokenTriage")
    BrokenTriage.calls = 0
    lead = make_outreach_world(tenant, leads=1, phones=1)["leads"][0]
    message = replied(lead, "Bună ziua, aș vrea mai multe detalii despre oferta voastră.")
    for attempt in range(1, triage_jobs.MAX_ATTEMPTS):
        with pytest.raises(RuntimeError):  # Dramatiq retries it, with back-off
            triage_jobs.run(message.pk)
        assert ReplyTriage.objects.get(pk=message.pk).attempts == attempt
        assert not ReviewItem.objects.exists()
    decision = triage_jobs.run(message.pk)  # the last attempt
    assert BrokenTriage.calls == triage_jobs.MAX_ATTEMPTS == 4
    job = ReplyTriage.objects.get(pk=message.pk)
    assert job.state == "FAILED" and job.error.startswith("RuntimeError: model server exploded")
    item = ReviewItem.objects.get(lead=lead)
    assert item.priority == "HIGH" and item.message_id == message.pk
    assert reasons.parse(item.reason) == (why.ROUTE_TRIAGE_FAILED, {"error": "RuntimeError"})
    assert reasons.parse(decision) == (
        why.DECISION_REVIEW,
        {"priority": "HIGH", "why": item.reason},
    )
    assert Message.objects.get(pk=message.pk).analysis["decision"] == decision
    journey = Journey.objects.get(lead=lead)
    assert journey.requires_human_review and journey.reply_count == 1
    assert triage_jobs.run(message.pk) == "skipped"  # a stray retry changes nothing


def test_the_actor_retries_as_the_retry_tables_transient_row():
    assert triage_reply.queue_name == "ai.triage"
    assert triage_reply.options["max_retries"] == triage_jobs.MAX_ATTEMPTS - 1 == 3
    assert triage_reply.options["min_backoff"] == 15_000  # 15 s, 30 s, 60 s (cerniq.retry)


class NackRecorder(dramatiq.Middleware):
    """Records the messages a worker sends to the dead letters (nacks)."""

    def __init__(self) -> None:
        self.messages: list[dramatiq.Message] = []

    def after_nack(self, broker: dramatiq.Broker, message: dramatiq.Message) -> None:
        self.messages.append(message)


@pytest.mark.django_db(transaction=True)
def test_through_real_workers_a_failing_triage_ends_in_front_of_a_person(settings, monkeypatch):
    use_backend(settings, "BrokenTriage")
    BrokenTriage.calls = 0
    # The same retries, milliseconds apart instead of seconds.
    monkeypatch.setitem(triage_reply.options, "min_backoff", 5)
    monkeypatch.setitem(triage_reply.options, "max_backoff", 50)
    # Any broker (the StubBroker here, Redis in CI): a message Dramatiq gives up on is nacked.
    nacked = NackRecorder()
    broker = dramatiq.get_broker()
    monkeypatch.setattr(broker, "middleware", [*broker.middleware, nacked])
    tenant = make_tenant()
    lead = make_outreach_world(tenant, leads=1, phones=1)["leads"][0]
    with running_workers():
        message = replied(lead, "Aveți și varianta de 50 kg?")
        wait_until(
            lambda: ReplyTriage.objects.filter(state="FAILED").exists(),
            what=lambda: list(ReplyTriage.objects.values("state", "attempts")),
        )
    assert BrokenTriage.calls == triage_jobs.MAX_ATTEMPTS
    assert ReviewItem.objects.get(message=message).priority == "HIGH"
    assert nacked.messages == []  # the last attempt ended it, not Dramatiq's dead letters


# --- once per reply ---------------------------------------------------------------------


def test_a_reply_triaged_twice_is_routed_once(tenant, clock):
    lead = make_outreach_world(tenant, leads=1, phones=1)["leads"][0]
    message = replied(lead, "Da, sunt interesat, cât costă?")
    first = triage_jobs.run(message.pk)
    assert reasons.is_code(first, why.DECISION_REVIEW)
    assert triage_jobs.run(message.pk) == "skipped"
    assert ReviewItem.objects.filter(message=message).count() == 1
    assert Journey.objects.get(lead=lead).reply_count == 1


def test_two_overlapping_runs_cannot_both_route(tenant, clock, monkeypatch):
    """A redelivery starts while the first run waits for the model: the one that reaches
    the routing first routes, the other finds the reply done."""
    lead = make_outreach_world(tenant, leads=1, phones=1)["leads"][0]
    message = replied(lead, "Da, sunt interesat, cât costă?")
    read = replies.read
    overtaken: list[str] = []

    def slow_read(lead, message, *, opted_out):
        if not overtaken:
            overtaken.append("running")
            overtaken.append(triage_jobs.run(message.pk))  # the other run, start to end
        return read(lead, message, opted_out=opted_out)

    monkeypatch.setattr(replies, "read", slow_read)
    assert triage_jobs.run(message.pk) == "skipped"
    assert reasons.is_code(overtaken[1], why.DECISION_REVIEW)
    assert ReviewItem.objects.filter(message=message).count() == 1
    assert Journey.objects.get(lead=lead).reply_count == 1
    assert ReplyTriage.objects.get(pk=message.pk).attempts == 2


# --- the reconciler ---------------------------------------------------------------------


def test_only_replies_waiting_past_the_threshold_are_enqueued_again(tenant, clock, monkeypatch):
    lead, other = make_outreach_world(tenant, leads=2, phones=1)["leads"]
    stuck = replied(lead, "Da, sunt interesat.")
    fresh = replied(other, "Cât costă?")
    ReplyTriage.objects.filter(pk=stuck.pk).update(
        queued_at=timezone.now() - triage_jobs.STALE_AFTER - timedelta(seconds=1)
    )
    sent: list[int] = []
    monkeypatch.setattr(triage_reply, "send", sent.append)
    call_command("requeue_triage")
    assert sent == [stuck.pk]
    assert ReplyTriage.objects.get(pk=stuck.pk).queued_at == timezone.now()
    call_command("requeue_triage")  # handed over again just now: not again
    assert sent == [stuck.pk]
    assert ReplyTriage.objects.get(pk=fresh.pk).state == "PENDING"


@pytest.mark.django_db(transaction=True)
def test_a_reply_whose_broker_message_was_lost_is_triaged_later():
    tenant = make_tenant()
    lead = make_outreach_world(tenant, leads=1, phones=1)["leads"][0]
    with transaction.atomic():
        message = replied(lead, "Da, sunt interesat, sunați-mă.")
    dramatiq.get_broker().flush_all()  # a crash between the commit and the enqueue
    ReplyTriage.objects.update(queued_at=timezone.now() - timedelta(hours=1))
    with running_workers():
        call_command("requeue_triage", "--minutes", "5")
        wait_until(lambda: ReplyTriage.objects.filter(state="DONE").exists(), what="the triage")
    assert ReviewItem.objects.get(message=message).priority == "URGENT"


# --- out of office: what the reply stopped at once is given back ------------------------


def test_an_out_of_office_answer_gets_back_what_its_arrival_stopped(tenant, clock):
    lead = make_outreach_world(tenant, leads=1, phones=1)["leads"][0]
    planned = timezone.now() + timedelta(days=2)
    Journey.objects.filter(lead=lead).update(next_action_at=planned)
    Enrollment.objects.filter(lead=lead).update(next_run_at=planned)
    message = replied(lead, "Răspuns automat: sunt în concediu.")
    assert Enrollment.objects.get(lead=lead).status == "STOPPED"  # at once
    (decision,) = run_triage()
    assert reasons.is_code(decision, why.DECISION_OUT_OF_OFFICE)
    enrollment = Enrollment.objects.get(lead=lead)
    assert (enrollment.status, enrollment.stop_reason, enrollment.next_run_at) == (
        "ACTIVE",
        "",
        planned,
    )
    journey = Journey.objects.get(lead=lead)
    assert journey.next_action_at == planned and journey.reply_count == 0
    assert ReplyTriage.objects.get(pk=message.pk).state == "DONE"


def test_an_out_of_office_answer_followed_by_a_real_reply_keeps_the_stop(tenant, clock):
    lead = make_outreach_world(tenant, leads=1, phones=1)["leads"][0]
    replied(lead, "Răspuns automat: sunt în concediu.")
    replied(lead, "Revin eu: da, ne interesează.")
    run_triage()
    assert Enrollment.objects.get(lead=lead).status == "STOPPED"
    assert Journey.objects.get(lead=lead).stage == "WARM_REPLY"


# --- what people see ------------------------------------------------------------------


@pytest.fixture
def web(client, tenant, clock):
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"
    client.force_login(make_user(tenant))
    return client


def test_a_reply_is_on_the_review_page_as_being_analysed_until_it_is_routed(web, tenant):
    lead = make_lead(tenant, name="Ferma Grabă SRL")
    message = replied(lead, "Da, sunt interesat. Cât costă tona?")
    page = web.get("/outreach/review/").content.decode()
    assert 'data-analysing-count="1"' in page and f'data-analysing="{message.pk}"' in page
    assert "Ferma Grabă SRL" in page and "Being analysed…" in page
    poll = f"/outreach/review/analysing/?shown={message.pk}"
    assert f'hx-get="{poll}"' in page
    still = web.get(poll)
    assert still.status_code == 200 and "HX-Refresh" not in still
    run_triage()
    done = web.get(poll)
    assert done.status_code == 204 and done["HX-Refresh"] == "true"
    page = web.get("/outreach/review/").content.decode()
    assert 'data-analysing-count="0"' in page and "Being analysed…" not in page
    assert f'id="item-{ReviewItem.objects.get(message=message).pk}"' in page


def test_the_lead_page_shows_the_reply_as_being_analysed_and_reloads_once_done(web, tenant):
    lead = make_lead(tenant)
    message = replied(lead, "Putem vorbi mâine?")
    page = web.get(f"/outreach/leads/{lead.pk}/").content.decode()
    assert f'hx-get="/outreach/review/analysing/{message.pk}/"' in page
    assert "Being analysed…" in page
    assert web.get(f"/outreach/review/analysing/{message.pk}/").status_code == 204
    run_triage()
    answer = web.get(f"/outreach/review/analysing/{message.pk}/")
    assert answer.status_code == 204 and answer["HX-Refresh"] == "true"
    page = web.get(f"/outreach/leads/{lead.pk}/").content.decode()
    assert "Being analysed…" not in page and "For a person (Urgent)" in page


def test_another_workspaces_reply_is_not_found(web, tenant):
    other = make_lead(make_tenant(name="Alt SRL", slug="alt"))
    message = replied(other, "Da, sunt interesat.")
    assert web.get(f"/outreach/review/analysing/{message.pk}/").status_code == 404
    page = web.get("/outreach/review/").content.decode()
    assert 'data-analysing-count="0"' in page and other.name not in page
