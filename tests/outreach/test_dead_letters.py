"""Dead letters (outreach.deadletters): retried once through the one send path, discarded
with the lead re-planned or paused, purged after the retention period, alerted on above
the threshold. Providers are faked at their HTTP boundary (TimelinesAI, `responses`) or
by the email double of the send-path tests."""

from __future__ import annotations

import io
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import dramatiq
import pytest
import responses
import time_machine
from django.core.management import call_command
from django.utils import timezone

from cerniq import queues, reasons
from cerniq.models import Alert, WebhookEvent
from cerniq.provider_errors import ProviderUnavailable, RejectedRequest
from cerniq.providers import get_backend
from outreach import deadletters, stages
from outreach.dispatch import dispatch_due
from outreach.models import Channel, Enrollment, Journey, Message, Stage, StageTransition
from outreach.sending import LOOKUP_LIMIT, send_message
from tests.concurrency import run_at_once
from tests.drain import running_workers, wait_until
from tests.factories import make_lead, make_message, make_outreach_world, make_tenant, make_user
from whatsapp.models import QuotaUsage

BASE = "https://app.timelines.ai/integrations/api"
SEND_URL = f"{BASE}/messages"
MONDAY_10 = datetime(2026, 11, 23, 10, 0, tzinfo=ZoneInfo("Europe/Bucharest"))
DEAD = Message.Status.DEAD_LETTER
REFUSED = {"status": "error", "message": "Payload too large"}  # a 4xx: not retried
SENT_OK = {"status": "ok", "data": {"message_uid": "00000000-0000-4000-8000-000000000001"}}


@pytest.fixture
def clock():
    with time_machine.travel(MONDAY_10, tick=False) as traveller:
        yield traveller


@pytest.fixture
def broker():
    """The broker (Redis when REDIS_URL is set), empty before and after the test."""
    dramatiq.get_broker().flush_all()
    yield dramatiq.get_broker()
    dramatiq.get_broker().flush_all()


def use_timelinesai(settings) -> None:
    settings.PROVIDERS = {
        **settings.PROVIDERS,
        "whatsapp.timelinesai": {
            "BACKEND": "integrations.timelinesai.client.TimelinesAI",
            "OPTIONS": {"api_token": "test-token-123", "base_url": BASE},
        },
    }


def whatsapp_world(tenant, leads: int = 1) -> dict:
    """A 3-step WhatsApp sequence on one TimelinesAI phone; leads dispatched (QUEUED)."""
    world = make_outreach_world(tenant, leads=leads, phones=1)
    phone = world["phones"][0]
    phone.number, phone.provider = "+40740000101", "timelinesai"
    phone.account_id = "40740000101@s.whatsapp.net"
    phone.save()
    dispatch_due(tenant)
    return world


def quota_used() -> int:
    return sum(QuotaUsage.objects.values_list("used", flat=True))


@pytest.fixture
def dead_whatsapp(tenant, clock, settings):
    """A first WhatsApp message that TimelinesAI refused (4xx): a dead letter, its quota
    slot given back, its lead's journey with no next action."""
    use_timelinesai(settings)
    whatsapp_world(tenant)
    message = Message.objects.get()
    with responses.RequestsMock() as http:
        http.post(SEND_URL, status=400, json=REFUSED)
        assert send_message(message.pk).kind == "dead"
    message.refresh_from_db()
    assert message.status == DEAD and quota_used() == 0
    assert Journey.objects.get(lead=message.lead).next_action_at is None  # stalled
    return message


# --- retry ------------------------------------------------------------------------------


class RefuseOnce:
    """TimelinesAI refusing the first send (4xx), accepting every later one."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, request):
        self.calls += 1
        if self.calls == 1:
            return 400, {}, '{"status": "error", "message": "Payload too large"}'
        uid = f"00000000-0000-4000-8000-{self.calls:012d}"
        return 200, {}, f'{{"status": "ok", "data": {{"message_uid": "{uid}"}}}}'


@pytest.mark.own_moment  # travels to its moment first
@pytest.mark.django_db(transaction=True)
def test_a_dead_letter_retried_twice_at_once_is_sent_once_by_the_workers(settings):
    """Real broker and workers: the refused first send dead-letters; two retries at the
    same moment (a double click, two operators) re-queue it once; the phone's run sends it
    once; a later retry changes nothing."""
    use_timelinesai(settings)
    provider = RefuseOnce()
    with (
        time_machine.travel(MONDAY_10, tick=True),
        responses.RequestsMock() as http,
    ):
        http.add_callback(responses.POST, SEND_URL, callback=provider)
        tenant = make_tenant()
        with running_workers():
            whatsapp_world(tenant)
            wait_until(lambda: Message.objects.filter(status=DEAD).exists(), what="a dead letter")
        message = Message.objects.get()
        key = message.idempotency_key
        assert quota_used() == 0

        results = run_at_once(2, lambda: deadletters.retry(tenant, [message.pk]))
        assert sorted(r.done for r in results) == [0, 1]
        assert sum(sum(r.skipped.values()) for r in results) == 1  # the other: not one any more
        assert quota_used() == 1  # the new contact took a slot again, once

        with running_workers():
            wait_until(lambda: Message.objects.filter(status="SENT").exists(), what="the send")
        assert deadletters.retry(tenant, [message.pk]).done == 0
    assert provider.calls == 2  # the refused send, then one after the retry
    message.refresh_from_db()
    assert (message.status, message.idempotency_key, message.attempts) == ("SENT", key, 2)
    assert quota_used() == 1
    journey = Journey.objects.get(lead=message.lead)
    assert journey.stage == Stage.CONTACTED_WA and journey.next_action_at is not None
    assert Enrollment.objects.get(lead=message.lead).current_step == 1


@pytest.mark.django_db(transaction=True)
def test_a_retried_cold_email_is_pushed_once_with_its_idempotency_key(settings):
    settings.PROVIDERS = {
        **settings.PROVIDERS,
        "email.instantly": {"BACKEND": "tests.fakes.FakeBulkEmail"},
    }
    with time_machine.travel(MONDAY_10, tick=True):
        tenant = make_tenant()
        world = make_outreach_world(tenant, leads=1, phones=0, channel=Channel.EMAIL_COLD)
        lead = world["leads"][0]
        lead.email_status = "valid"
        lead.save()
        provider = get_backend("email.instantly")
        provider.fail_for[lead.email] = RejectedRequest("Invalid campaign", status_code=400)
        with running_workers():
            dispatch_due(tenant)
            wait_until(lambda: Message.objects.filter(status=DEAD).exists(), what="a dead letter")
        provider.fail_for.clear()
        message = Message.objects.get()
        results = run_at_once(2, lambda: deadletters.retry(tenant, [message.pk]))
        assert sorted(r.done for r in results) == [0, 1]
        with running_workers():
            wait_until(lambda: Message.objects.filter(status="SENT").exists(), what="the push")
    assert provider.batches == [[lead.email], [lead.email]]  # refused, then pushed once
    assert provider.keys == [message.idempotency_key]
    message.refresh_from_db()
    assert message.status == "SENT" and message.retries == {}


def test_a_dead_letter_that_may_have_gone_out_is_looked_for_before_any_resend(
    tenant, clock, settings, broker, django_capture_on_commit_callbacks
):
    """Held because the provider could not say whether it had the send (its slot kept):
    a retry asks the provider first, finds it there and records it; nothing is resent."""
    settings.PROVIDERS = {
        **settings.PROVIDERS,
        "email.resend": {"BACKEND": "tests.fakes.FakeEmail"},
    }
    world = make_outreach_world(tenant, leads=1, phones=0, channel=Channel.EMAIL_WARM)
    lead = world["leads"][0]
    lead.email_status = "valid"
    lead.save()
    Journey.objects.update(stage=Stage.CONTACTED_WA)  # no longer cold: warm email
    dispatch_due(tenant)
    message = Message.objects.get()
    assert message.channel == Channel.EMAIL_WARM
    provider = get_backend("email.resend")
    Message.objects.filter(pk=message.pk).update(  # its worker died after the call
        status=Message.Status.SENDING,
        attempts=4,
        attempt_started_at=MONDAY_10,
        retries={"timeout": 3},
    )
    provider.fail_lookups_with = ProviderUnavailable("503 Service Unavailable")
    clock.shift(timedelta(minutes=3))
    while True:
        outcome = send_message(message.pk)
        if outcome.retry_at is None:
            break
        clock.move_to(outcome.retry_at)
    assert outcome.kind == "dead" and timezone.now() >= MONDAY_10 + LOOKUP_LIMIT
    message.refresh_from_db()
    assert message.status == DEAD and message.needs_reconcile

    provider.fail_lookups_with = None
    provider.send(outgoing(message), idempotency_key=message.idempotency_key)  # it had gone out
    provider.calls = 0
    with django_capture_on_commit_callbacks(execute=True):
        assert deadletters.retry(tenant, [message.pk]).done == 1
    (warm,) = queues.snapshot(broker, ["email.warm"]).queues
    assert warm.ready == 1  # the warm-email actor's message
    assert send_message(message.pk).kind == "reconciled"  # what that actor runs
    assert provider.calls == 0
    assert Message.objects.get(pk=message.pk).status == "SENT"


def outgoing(message: Message):
    from outreach.email_transport import outgoing_email

    return outgoing_email(message)


def test_a_new_contact_is_not_retried_on_a_phone_with_no_quota_left_today(
    tenant, dead_whatsapp, broker, django_capture_on_commit_callbacks
):
    phone = dead_whatsapp.phone
    QuotaUsage.objects.filter(phone=phone).update(used=phone.daily_limit)
    with django_capture_on_commit_callbacks(execute=True):
        refused = deadletters.retry(tenant, [dead_whatsapp.pk])
    assert refused.done == 0
    assert refused.skipped == {f"{phone} has no new-contact quota left today": 1}
    assert Message.objects.get(pk=dead_whatsapp.pk).status == DEAD  # rolled back
    QuotaUsage.objects.filter(phone=phone).update(used=phone.daily_limit - 1)
    with django_capture_on_commit_callbacks(execute=True):
        assert deadletters.retry(tenant, [dead_whatsapp.pk]).done == 1
    message = Message.objects.get(pk=dead_whatsapp.pk)
    assert (message.status, message.retries, message.failed_at) == ("QUEUED", {}, None)
    assert quota_used() == phone.daily_limit
    phone.refresh_from_db()
    assert phone.wake_at == MONDAY_10  # the phone's run is planned: it sends it


def test_a_whatsapp_dead_letter_whose_phone_is_gone_is_not_retried(tenant, dead_whatsapp):
    dead_whatsapp.phone.delete()
    refused = deadletters.retry(tenant, [dead_whatsapp.pk])
    assert refused.done == 0
    assert refused.skipped == {"its phone is gone: discard it to re-plan the lead": 1}
    assert Message.objects.get(pk=dead_whatsapp.pk).status == DEAD


def test_another_tenants_dead_letters_are_ignored(tenant, other_tenant, dead_whatsapp):
    assert deadletters.retry(other_tenant, [dead_whatsapp.pk]).done == 0
    assert deadletters.discard(other_tenant, [dead_whatsapp.pk]).done == 0
    assert Message.objects.get(pk=dead_whatsapp.pk).status == DEAD


# --- discard ----------------------------------------------------------------------------


def test_discard_cancels_it_and_dispatch_plans_the_lead_again(tenant, dead_whatsapp, clock):
    operator = make_user(tenant, first_name="Ana", last_name="Pop")
    QuotaUsage.objects.update(used=5)  # other sends of the day: the slot is not given twice
    clock.shift(timedelta(minutes=10))
    result = deadletters.discard(tenant, [dead_whatsapp.pk], by_user=operator)
    assert (result.done, dict(result.skipped)) == (1, {})
    message = Message.objects.get(pk=dead_whatsapp.pk)
    assert message.status == Message.Status.CANCELLED
    assert message.error.startswith(
        "dead letter discarded by Ana Pop, the lead re-planned; it failed with: RejectedRequest"
    )
    assert message.idempotency_key.endswith(f"#cancelled-{message.pk}")
    assert quota_used() == 5
    journey = Journey.objects.get(lead=message.lead)
    assert journey.next_action_at == timezone.now()

    assert dispatch_due(tenant).dispatched == {Channel.WHATSAPP: 1}
    again = Message.objects.get(status="QUEUED")
    assert again.step_id == message.step_id and again.pk != message.pk
    assert quota_used() == 6
    assert deadletters.discard(tenant, [dead_whatsapp.pk]).skipped == {"no longer a dead letter": 1}


def test_a_discarded_dead_letter_still_counts_as_failed_on_its_day(tenant, dead_whatsapp):
    from outreach.analytics import local_today, rollup_day
    from outreach.models import DailyStats

    deadletters.discard(tenant, [dead_whatsapp.pk])
    rollup_day(tenant, local_today(tenant, timezone.now()))
    assert DailyStats.objects.get(channel=Channel.WHATSAPP, phone=None).failed == 1


def test_discard_and_pause_pauses_the_lead_until_an_operator_resumes_it(
    tenant, dead_whatsapp, clock
):
    operator = make_user(tenant)
    result = deadletters.discard(tenant, [dead_whatsapp.pk], pause=True, by_user=operator)
    assert result.done == 1
    journey = Journey.objects.get(lead=dead_whatsapp.lead)
    assert journey.stage == Stage.PAUSED
    assert Enrollment.objects.get(lead=journey.lead).status == Enrollment.Status.PAUSED
    transition = StageTransition.objects.get(to_stage=Stage.PAUSED)
    assert (transition.by_user, transition.reason) == (operator, "stage.dead_letter_discarded")
    assert dispatch_due(tenant).eligible == 0

    clock.shift(timedelta(hours=1))
    stages.resume(journey, reason="checked", by_user=operator)
    assert dispatch_due(tenant).dispatched == {Channel.WHATSAPP: 1}


def test_a_lead_that_cannot_be_paused_is_re_planned_instead(tenant, dead_whatsapp):
    stages.pause(Journey.objects.get(lead=dead_whatsapp.lead), reason="by hand")
    result = deadletters.discard(tenant, [dead_whatsapp.pk], pause=True)
    assert result.done == 1
    assert result.skipped == {"lead not paused: The lead is already Paused.": 1}
    assert Journey.objects.get(lead=dead_whatsapp.lead).next_action_at == timezone.now()


# --- purge and alert --------------------------------------------------------------------


def failed_event(tenant, received_at: datetime, **kw) -> WebhookEvent:
    event = WebhookEvent.objects.create(
        tenant=tenant,
        provider="sandbox",
        provider_event_id=f"evt-{WebhookEvent.objects.count()}",
        raw_body=b'{"type": "thing"}',
        verified=True,
        status=WebhookEvent.Status.FAILED,
        error="RuntimeError: inbound store unavailable",
        **kw,
    )
    WebhookEvent.objects.filter(pk=event.pk).update(received_at=received_at)
    return event


def test_purge_discards_what_waited_longer_than_the_retention_period(tenant, clock, settings):
    assert settings.DEAD_LETTER_RETENTION_DAYS == 7
    world = make_outreach_world(tenant, leads=2, phones=1)
    old_lead, new_lead = world["leads"]
    step = world["sequence"].steps.get(position=1)
    now = timezone.now()
    Journey.objects.update(next_action_at=None)
    old = make_message(
        old_lead, status=DEAD, step=step, failed_at=now - timedelta(days=7, minutes=1)
    )
    recent = make_message(new_lead, status=DEAD, step=step, failed_at=now - timedelta(days=6))
    old_event = failed_event(tenant, now - timedelta(days=8))
    new_event = failed_event(tenant, now - timedelta(days=1))

    call_command("purge_dead_letters", stdout=(out := io.StringIO()))
    assert "discarded 1 expired dead letters and 1 failed webhook events" in out.getvalue()
    old.refresh_from_db()
    assert old.status == Message.Status.CANCELLED
    assert old.error.startswith("dead letter for 7 days, discarded, the lead re-planned")
    assert Journey.objects.get(lead=old_lead).next_action_at == now
    assert Journey.objects.get(lead=new_lead).next_action_at is None
    assert Message.objects.get(pk=recent.pk).status == DEAD
    old_event.refresh_from_db()
    assert old_event.status == WebhookEvent.Status.IGNORED
    assert old_event.error.startswith("dead letter for 7 days, discarded\n\nRuntimeError")
    assert bytes(old_event.raw_body) == b'{"type": "thing"}'  # the record stays
    assert WebhookEvent.objects.get(pk=new_event.pk).status == WebhookEvent.Status.FAILED


def open_alerts(tenant) -> list[Alert]:
    return list(Alert.objects.filter(tenant=tenant, kind=Alert.Kind.DEAD_LETTERS, resolved_at=None))


def test_more_than_a_hundred_dead_letters_raise_an_alert_resolved_once_back_under(
    tenant, other_tenant, clock, settings
):
    assert settings.DEAD_LETTER_ALERT_THRESHOLD == 100
    lead = make_lead(tenant)
    Message.objects.bulk_create(
        Message(
            tenant=tenant,
            lead=lead,
            channel=Channel.WHATSAPP,
            direction=Message.Direction.OUTBOUND,
            status=DEAD,
            idempotency_key=f"dead-{n}",
            failed_at=timezone.now(),
        )
        for n in range(100)
    )
    theirs = make_lead(other_tenant)
    for n in range(101):
        make_message(theirs, status=Message.Status.SENT, idempotency_key=f"sent-{n}")
    assert deadletters.check_alerts() == []  # exactly 100 is not above
    event = failed_event(tenant, timezone.now())
    assert deadletters.check_alerts() == [tenant.pk]
    (alert,) = open_alerts(tenant)
    assert reasons.render(alert.message).startswith(
        "101 dead letters are waiting (alert above 100)"
    )
    assert open_alerts(other_tenant) == []
    assert deadletters.check_alerts() == [tenant.pk]  # still above: the same alert, counted
    (alert,) = open_alerts(tenant)
    assert alert.occurrences == 2

    from cerniq import failed_events

    assert failed_events.discard(tenant, [event.pk], "by hand") == 1
    assert deadletters.check_alerts() == []
    assert open_alerts(tenant) == []


def test_an_operators_discard_resolves_the_alert_at_once(tenant, dead_whatsapp, settings):
    settings.DEAD_LETTER_ALERT_THRESHOLD = 0
    assert deadletters.check_alerts() == [tenant.pk]
    deadletters.discard(tenant, [dead_whatsapp.pk])
    assert open_alerts(tenant) == []


# --- failed webhook events --------------------------------------------------------------


def test_a_failed_webhook_event_is_processed_again_once(
    tenant, other_tenant, clock, django_capture_on_commit_callbacks
):
    from cerniq import failed_events

    event = failed_event(tenant, timezone.now())
    processed = failed_event(tenant, timezone.now())
    WebhookEvent.objects.filter(pk=processed.pk).update(status=WebhookEvent.Status.PROCESSED)
    theirs = failed_event(other_tenant, timezone.now())
    with django_capture_on_commit_callbacks() as handed:
        assert failed_events.retry(tenant, [event.pk, processed.pk, theirs.pk]) == 1
        assert failed_events.retry(tenant, [event.pk]) == 0  # a second click
    assert len(handed) == 1  # to the workers once
    statuses = dict(WebhookEvent.objects.values_list("pk", "status"))
    assert statuses == {
        event.pk: WebhookEvent.Status.RECEIVED,
        processed.pk: WebhookEvent.Status.PROCESSED,
        theirs.pk: WebhookEvent.Status.FAILED,
    }
