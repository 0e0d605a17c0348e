"""A phone's runs under faults, against TimelinesAI's HTTP: the reconciler never wakes a
phone in the middle of its run; a second run that reconciles a slow send does not count it
twice; a send found by reconciliation counts on its phone like any other."""

from __future__ import annotations

from datetime import timedelta

import pytest
import requests
import responses
from django.utils import timezone

from outreach import delivery, pacing
from outreach.dispatch import dispatch_due
from outreach.models import Message
from outreach.sending import send_message
from tests.factories import make_outreach_world
from tests.whatsapp.conftest import API_FIXTURES, BASE, api_body
from whatsapp.models import Phone

SEND_URL = f"{BASE}/messages"
ACCEPTED = (API_FIXTURES / "send_ok.json").read_text(encoding="utf-8")
UID = api_body("send_ok.json")["data"]["message_uid"]
OTHER_UID = "0b7c9d6e-2a41-4c36-8f8a-6a1e3d2c4b55"  # another send of the fixtures
GRACE = timedelta(minutes=2)  # manage.py requeue_stale's default


@pytest.fixture
def two_queued(tenant, clock, timelinesai):
    """Two first messages QUEUED on phone +40740000101 (TimelinesAI), the first to
    +40722000111 (Ion Popescu of the fixtures)."""
    world = make_outreach_world(tenant, leads=2, phones=1, steps=1)
    Phone.objects.update(
        number="+40740000101", provider="timelinesai", account_id="40740000101@s.whatsapp.net"
    )
    first, second = world["leads"]
    first.phone, second.phone = "+40722000111", "+40722000112"
    first.save()
    second.save()
    dispatch_due(tenant)
    return list(Message.objects.order_by("pk"))


def visible_in_the_chat(message: Message, at: str, uid: str = UID) -> None:
    """The provider's chat history shows `message` sent at `at` as `uid` (whatever became
    of its answer)."""
    history = api_body("chat_messages_page1.json")
    history["data"]["has_more_pages"] = False
    history["data"]["messages"][0].update(uid=uid, text=message.body, timestamp=at)
    chats = api_body("chats_by_phone.json")
    chats["data"]["chats"][0].update(
        phone=message.counterpart, jid=f"{message.counterpart[1:]}@s.whatsapp.net"
    )
    responses.get(f"{BASE}/chats", json=chats)
    responses.get(f"{BASE}/chats/27616435/messages", json=history)


def counters(phone_id: int) -> tuple[int, int]:
    phone = Phone.objects.get(pk=phone_id)
    return phone.total_sent, phone.total_new_contacts


@responses.activate
def test_the_reconciler_leaves_a_phone_alone_while_its_run_sends(two_queued, clock):
    phone_id = two_queued[0].phone_id
    during_the_run = []

    def slow_provider(request):
        clock.shift(timedelta(minutes=1))  # the reconciler runs every minute
        during_the_run.append(delivery.requeue_stale(GRACE))
        during_the_run.append(Phone.objects.get(pk=phone_id).wake_at)
        return 200, {}, ACCEPTED

    responses.add_callback(responses.POST, SEND_URL, callback=slow_provider)
    assert pacing.run_phone(phone_id).startswith(f"message {two_queued[0].pk}: sent")
    assert during_the_run == [(0, 0), None]  # no phone woken, no second run planned
    phone = Phone.objects.get(pk=phone_id)
    # The run planned its successor for the second message, and freed the phone.
    assert phone.run_until is None and phone.wake_at is not None
    assert delivery.requeue_stale(GRACE) == (0, 0)


@responses.activate
def test_a_second_run_reconciling_a_slow_send_leaves_it_counted_once(two_queued, clock):
    """The provider answers run A after every lease has ended; meanwhile run B (woken by the
    reconciler) finds the message in the chat and records it. A's answer then records
    nothing more: the phone's totals and the template's sent count move once."""
    first = two_queued[0]
    version = first.template_version
    second_run = []

    def answers_after_the_leases(request):
        clock.shift(pacing.RUN_LEASE + timedelta(seconds=1))
        visible_in_the_chat(first, "2026-11-23 10:00:01 +0200")
        second_run.append(pacing.run_phone(first.phone_id))
        return 200, {}, ACCEPTED

    responses.add_callback(responses.POST, SEND_URL, callback=answers_after_the_leases)
    outcome = pacing.run_phone(first.phone_id)
    version.refresh_from_db()
    assert counters(first.phone_id) == (1, 1)
    assert version.sent_count == 1
    assert second_run == [f"message {first.pk}: reconciled {UID}"]
    assert "recorded already" in outcome
    first.refresh_from_db()
    assert first.status == Message.Status.SENT and first.provider_message_id == UID
    assert len([c for c in responses.calls if c.request.method == "POST"]) == 1


@responses.activate
def test_a_send_found_by_reconciliation_counts_on_its_phone(two_queued, clock):
    """Whichever way reconciliation finds a send (after a timeout; after its worker died),
    the phone's totals and last send move once, as the health guard (failures since the
    last send) expects."""
    timed_out, orphaned = two_queued
    responses.post(SEND_URL, body=requests.exceptions.ReadTimeout("read timed out"))
    assert send_message(timed_out.pk).kind == "retry"
    assert counters(timed_out.phone_id) == (0, 0)
    clock.shift(timedelta(seconds=15))
    visible_in_the_chat(timed_out, "2026-11-23 10:00:05 +0200")
    assert send_message(timed_out.pk).kind == "reconciled"
    assert counters(timed_out.phone_id) == (1, 1)
    assert Phone.objects.get(pk=timed_out.phone_id).last_sent_at == timezone.now()

    responses.reset()
    Message.objects.filter(pk=orphaned.pk).update(
        status=Message.Status.SENDING, attempts=1, attempt_started_at=timezone.now()
    )
    clock.shift(pacing.SEND_LEASE)
    visible_in_the_chat(orphaned, "2026-11-23 10:00:20 +0200", uid=OTHER_UID)
    assert send_message(orphaned.pk).kind == "reconciled"
    assert send_message(orphaned.pk).kind == "skipped"  # a copy of its broker message
    assert counters(orphaned.phone_id) == (2, 2)
