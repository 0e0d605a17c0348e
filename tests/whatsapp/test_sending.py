"""The send path against TimelinesAI's HTTP, one test per row of the retry table."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
import requests
import responses
from django.utils import timezone

from cerniq.models import Alert
from outreach.models import Enrollment, Journey, Lead, Message
from outreach.sending import send_message
from tests.whatsapp.conftest import BASE, MONDAY_10, api_body
from whatsapp.models import Phone, QuotaUsage

SEND_URL = f"{BASE}/messages"


def used_quota() -> int:
    return QuotaUsage.objects.get().used


def reload(message: Message) -> Message:
    message.refresh_from_db()
    return message


@responses.activate
def test_send_posts_the_documented_body_and_records_everything(queued):
    responses.post(SEND_URL, json=api_body("send_ok.json"))
    outcome = send_message(queued.pk)
    assert outcome.kind == "sent"
    request = responses.calls[0].request
    assert json.loads(request.body.decode("utf-8")) == {
        "phone": "+40722000111",
        "text": queued.body,
        "whatsapp_account_phone": "+40740000101",
    }
    assert request.headers["Authorization"] == "Bearer test-token-123"
    message = reload(queued)
    assert message.status == "SENT"
    assert message.provider_message_id == "a5bbb005-37f2-402c-96fa-e479a2e09b02"
    journey = Journey.objects.get(lead=message.lead)
    assert journey.stage == "CONTACTED_WA" and journey.last_channel == "WHATSAPP"
    enrollment = Enrollment.objects.get(lead=message.lead)
    assert enrollment.current_step == 1
    assert journey.next_action_at == MONDAY_10 + timedelta(days=1)  # one working day later
    assert used_quota() == 1
    assert message.template_version.sent_count == 1


@responses.activate
def test_read_timeout_keeps_it_sending_and_retries_with_backoff(queued):
    responses.post(SEND_URL, body=requests.exceptions.ReadTimeout("read timed out"))
    outcome = send_message(queued.pk)
    assert outcome.kind == "retry" and outcome.retry_at == MONDAY_10 + timedelta(seconds=15)
    message = reload(queued)
    assert message.status == "QUEUED" and message.needs_reconcile  # may have gone out
    assert message.attempts == 1 and "ProviderTimeout" in message.error


@responses.activate
def test_after_a_timeout_a_send_that_went_through_is_not_repeated(queued, clock):
    post = responses.post(SEND_URL, body=requests.exceptions.ReadTimeout("read timed out"))
    send_message(queued.pk)
    clock.shift(timedelta(seconds=15))
    history = api_body("chat_messages_page1.json")
    history["data"]["has_more_pages"] = False
    history["data"]["messages"][0].update(text=queued.body, timestamp="2026-11-23 10:00:05 +0200")
    responses.get(f"{BASE}/chats", json=api_body("chats_by_phone.json"))
    responses.get(f"{BASE}/chats/27616435/messages", json=history)
    outcome = send_message(queued.pk)
    assert outcome.kind == "reconciled" and post.call_count == 1
    message = reload(queued)
    assert message.status == "SENT" and not message.needs_reconcile


@responses.activate
def test_server_error_retries_three_times_then_dead_letters(queued, clock):
    responses.post(SEND_URL, status=500, json=api_body("error_internal.json"))
    # A 500 on a send may hide an accepted message: it is looked for before each resend,
    # over the reconcile window (TimelinesAI queues sends), and before giving up.
    lookups = responses.get(f"{BASE}/chats", json=api_body("chats_empty.json"))
    delays, outcomes = [], []
    while len(outcomes) < 40:
        outcome = send_message(queued.pk)
        outcomes.append(outcome.kind)
        if outcome.retry_at is None:
            break
        if outcome.kind == "retry":
            delays.append(outcome.retry_at - timezone.now())
        clock.move_to(outcome.retry_at)
        Phone.objects.update(next_send_at=None)
    assert delays[:3] == [timedelta(seconds=s) for s in (15, 30, 60)]
    assert outcomes.count("sent") == 0 and outcomes[-1] == "dead"
    message = reload(queued)
    assert message.status == "DEAD_LETTER" and message.attempts == 4
    assert message.retries["unavailable"] == 4 and "not at the provider" in message.error
    assert lookups.call_count >= 4
    assert len(responses.calls) - lookups.call_count == 4  # four POSTs, never a fifth
    assert used_quota() == 0  # confirmed not sent: the slot went back


@responses.activate
def test_rate_limit_retries_after_a_fixed_60_seconds(queued):
    responses.post(SEND_URL, status=429, json=api_body("error_rate_limited.json"))
    outcome = send_message(queued.pk)
    assert outcome.kind == "retry" and outcome.retry_at == MONDAY_10 + timedelta(seconds=60)
    assert reload(queued).status == "QUEUED"


@responses.activate
def test_invalid_number_fails_marks_phone_unreachable_and_frees_quota(queued):
    responses.post(SEND_URL, status=400, json=api_body("error_invalid_phone_format.json"))
    outcome = send_message(queued.pk)
    assert outcome.kind == "failed" and outcome.retry_at is None
    assert reload(queued).status == "FAILED"
    assert Lead.objects.get().phone_reachable is False
    assert used_quota() == 0
    assert Journey.objects.get().next_action_at == MONDAY_10  # due again: email fallback


@responses.activate
def test_bad_credentials_dead_letter_and_alert(queued):
    responses.post(SEND_URL, status=401, json=api_body("error_invalid_token.json"))
    outcome = send_message(queued.pk)
    assert outcome.kind == "dead"
    assert reload(queued).status == "DEAD_LETTER"
    assert Alert.objects.get().severity == "CRITICAL"
    assert used_quota() == 0


@responses.activate
def test_disconnected_account_takes_the_phone_offline_and_replans(queued):
    responses.post(SEND_URL, status=409, json=api_body("error_account_inactive.json"))
    outcome = send_message(queued.pk)
    assert outcome.kind == "cancelled"
    message = reload(queued)
    assert message.status == "CANCELLED" and message.idempotency_key.endswith(
        f"#cancelled-{message.pk}"
    )
    phone = Phone.objects.get()
    assert phone.status == "OFFLINE" and "not active" in phone.status_reason
    assert Alert.objects.get(kind="PHONE_OFFLINE").subject == "phone:+40740000101"
    journey = Journey.objects.get()
    assert journey.next_action_at == MONDAY_10 and journey.assigned_phone is None
    assert used_quota() == 0


@responses.activate
def test_crashed_send_is_reconciled_not_sent_twice(queued, clock):
    """The provider accepted the send, then the worker died before recording it."""
    Message.objects.filter(pk=queued.pk).update(
        status="SENDING", attempts=1, attempt_started_at=MONDAY_10
    )
    clock.shift(timedelta(minutes=5))
    chats = api_body("chats_by_phone.json")
    history = api_body("chat_messages_page1.json")
    history["data"]["has_more_pages"] = False
    history["data"]["messages"][0].update(
        text=queued.body, timestamp="2026-11-23 10:00:02 +0200", uid="uid-of-the-lost-send"
    )
    responses.get(f"{BASE}/chats", json=chats)
    responses.get(f"{BASE}/chats/27616435/messages", json=history)
    post = responses.post(SEND_URL, json=api_body("send_ok.json"))
    outcome = send_message(queued.pk)
    assert outcome.kind == "reconciled"
    assert post.call_count == 0
    message = reload(queued)
    assert (message.status, message.provider_message_id) == ("SENT", "uid-of-the-lost-send")
    assert message.provider_thread_id == "27616435"
    assert Journey.objects.get().stage == "CONTACTED_WA"


@responses.activate
def test_redelivered_message_not_found_is_sent_again_after_the_lease(queued, clock):
    Message.objects.filter(pk=queued.pk).update(
        status="SENDING", attempts=1, attempt_started_at=MONDAY_10
    )
    empty = api_body("chats_empty.json")
    responses.get(f"{BASE}/chats", json=empty)
    early = send_message(queued.pk)
    assert early.kind == "deferred"  # the first attempt may still be talking to TimelinesAI
    clock.shift(timedelta(minutes=3))
    outcome = send_message(queued.pk)
    assert outcome.kind == "retry" and reload(queued).status == "QUEUED"


@pytest.mark.parametrize("blocker", ["whatsapp_opted_out", "requires_human_review"])
@responses.activate
def test_lead_stopped_after_queueing_is_not_sent(queued, blocker):
    changes = {blocker: True}
    if blocker == "requires_human_review":
        changes["review_priority"] = "HIGH"
    Journey.objects.update(**changes)
    outcome = send_message(queued.pk)
    assert outcome.kind == "cancelled"
    assert len(responses.calls) == 0
    assert reload(queued).status == "CANCELLED" and used_quota() == 0


def test_outside_the_window_waits_for_the_opening(queued, clock):
    clock.move_to(MONDAY_10.replace(hour=19))
    outcome = send_message(queued.pk)
    assert outcome.kind == "deferred"
    assert outcome.retry_at == MONDAY_10.replace(day=24, hour=9)
    assert reload(queued).status == "QUEUED"


@responses.activate
def test_busy_phone_defers_without_sending(queued):
    Phone.objects.update(next_send_at=MONDAY_10 + timedelta(seconds=45))
    outcome = send_message(queued.pk)
    assert outcome.kind == "deferred" and outcome.retry_at == MONDAY_10 + timedelta(seconds=45)
    assert len(responses.calls) == 0


@responses.activate
def test_provider_quota_exceeded_waits_for_the_next_days_window(queued):
    responses.post(SEND_URL, status=429, json=api_body("error_quota_exceeded.json"))
    outcome = send_message(queued.pk)
    assert outcome.kind == "retry"
    assert outcome.retry_at == MONDAY_10.replace(day=24, hour=9)
    assert reload(queued).status == "QUEUED"
