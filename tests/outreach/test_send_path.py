"""The one send path, run once per channel: a rule cannot hold for one and not the other.

WhatsApp runs against the TimelinesAI client with its HTTP faked by `responses`
(payloads from docs/providers.md); email against a provider double (no email client exists
yet) that, like Resend, answers a repeated idempotency key with the first send.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import pytest
import responses
import time_machine
from django.utils import timezone

from cerniq import reasons
from cerniq.provider_errors import ProviderUnavailable, QuotaExceeded, RateLimited
from cerniq.providers import get_backend
from outreach.dispatch import dispatch_due
from outreach.email_transport import outgoing_email
from outreach.models import Channel, Enrollment, Journey, Message, Stage
from outreach.reasons import STOP_COMPANY_REPLIED
from outreach.sending import LOOKUP_LIMIT, RECONCILE_DEADLINE, send_message
from tests.factories import make_outreach_world, make_user
from tests.whatsapp.conftest import BASE, MONDAY_10, api_body
from whatsapp.models import QuotaUsage

SEND_URL = f"{BASE}/messages"
TUESDAY_9 = MONDAY_10.replace(day=24, hour=9)


@dataclass
class Harness:
    """One channel's message and a handle on its provider."""

    channel: str
    message: Message
    provider: Any
    contacted: str
    extra: dict[str, Any] = field(default_factory=dict)

    # --- what the provider will do ---------------------------------------------------
    def accepts(self) -> None:
        if self.channel == "whatsapp":
            self.provider.post(SEND_URL, json=api_body("send_ok.json"))

    def refuses_with_quota_exceeded(self) -> None:
        if self.channel == "whatsapp":
            self.provider.post(SEND_URL, status=429, json=api_body("error_quota_exceeded.json"))
        else:
            self.provider.fail_with = QuotaExceeded("Daily sending quota exceeded")

    def holds_the_earlier_attempt(self) -> None:
        if self.channel == "whatsapp":
            history = api_body("chat_messages_page1.json")
            history["data"]["has_more_pages"] = False
            history["data"]["messages"][0].update(
                text=self.message.body,
                timestamp="2026-11-23 10:00:02 +0200",
                uid="uid-of-the-lost-send",
            )
            self.provider.get(f"{BASE}/chats", json=api_body("chats_by_phone.json"))
            self.provider.get(f"{BASE}/chats/27616435/messages", json=history)
        else:
            self.provider.send(
                outgoing_email(self.message), idempotency_key=self.message.idempotency_key
            )
            self.provider.calls = 0

    def has_no_trace(self) -> None:
        if self.channel == "whatsapp":
            self.provider.get(f"{BASE}/chats", json=api_body("chats_empty.json"))

    def lookups_fail(self) -> None:
        if self.channel == "whatsapp":
            self.provider.get(f"{BASE}/chats", status=500, json=api_body("error_internal.json"))
        else:
            self.provider.fail_lookups_with = ProviderUnavailable("503 Service Unavailable")

    def recover_lookups(self) -> None:
        if self.channel == "whatsapp":
            self.provider.replace(responses.GET, f"{BASE}/chats", json=api_body("chats_empty.json"))
        else:
            self.provider.fail_lookups_with = None

    # --- what it saw ----------------------------------------------------------------
    @property
    def quota_at_start(self) -> int:
        return self.message.quota_cost  # dispatch took one slot for a WhatsApp first message

    def quota_used(self) -> int:
        return sum(QuotaUsage.objects.values_list("used", flat=True))

    @property
    def send_calls(self) -> int:
        if self.channel == "whatsapp":
            return sum(1 for c in self.provider.calls if c.request.method == "POST")
        return self.provider.calls

    @property
    def sent_bodies(self) -> list[str]:
        if self.channel == "whatsapp":
            return [
                json.loads(c.request.body)["text"]
                for c in self.provider.calls
                if c.request.method == "POST"
            ]
        return [self.message.body] * len(self.provider.sent)


@pytest.fixture
def clock():
    with time_machine.travel(MONDAY_10, tick=False) as traveller:
        yield traveller


@pytest.fixture(params=["whatsapp", "email"])
def path(request, tenant, clock, settings):
    """A first message of a 3-step sequence, QUEUED by dispatch on the channel."""
    if request.param == "whatsapp":
        settings.PROVIDERS = {
            **settings.PROVIDERS,
            "whatsapp.timelinesai": {
                "BACKEND": "integrations.timelinesai.client.TimelinesAI",
                "OPTIONS": {"api_token": "test-token-123", "base_url": BASE},
            },
        }
        world = make_outreach_world(tenant, leads=1, phones=1)
        phone = world["phones"][0]
        phone.number, phone.provider = "+40740000101", "timelinesai"
        phone.account_id = "40740000101@s.whatsapp.net"
        phone.save()
        world["leads"][0].phone = "+40722000111"
        world["leads"][0].save()
        dispatch_due(tenant)
        with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
            yield Harness(
                "whatsapp", Message.objects.get(), mock, Stage.CONTACTED_WA, {"world": world}
            )
        return
    settings.PROVIDERS = {
        **settings.PROVIDERS,
        "email.instantly": {"BACKEND": "tests.fakes.FakeEmail"},
    }
    world = make_outreach_world(tenant, leads=1, phones=0, channel=Channel.EMAIL_COLD)
    world["leads"][0].email_status = "valid"
    world["leads"][0].save()
    dispatch_due(tenant)
    message = Message.objects.get()
    assert message.channel == Channel.EMAIL_COLD
    yield Harness("email", message, get_backend("email.instantly"), Stage.CONTACTED_EMAIL)


def reload(message: Message) -> Message:
    message.refresh_from_db()
    return message


def crashed_while_sending(message: Message, retries: dict | None = None) -> None:
    """The worker took the row and called the provider, then died before recording."""
    Message.objects.filter(pk=message.pk).update(
        status=Message.Status.SENDING,
        attempts=1 + sum((retries or {}).values()),
        attempt_started_at=MONDAY_10,
        retries=retries or {},
    )


def test_a_queued_message_is_sent_once_and_recorded(path):
    path.accepts()
    assert send_message(path.message.pk).kind == "sent"
    assert send_message(path.message.pk).kind == "skipped"  # a redelivery changes nothing
    assert path.send_calls == 1 and path.sent_bodies == [path.message.body]
    message = reload(path.message)
    assert message.status == Message.Status.SENT and message.provider_message_id
    journey = Journey.objects.get(lead=message.lead)
    assert journey.stage == path.contacted and journey.last_channel == message.channel
    assert Enrollment.objects.get(lead=message.lead).current_step == 1
    assert journey.next_action_at == MONDAY_10 + timedelta(days=1)


def test_a_sending_row_the_provider_has_is_recorded_without_a_second_call(path, clock):
    crashed_while_sending(path.message)
    clock.shift(timedelta(minutes=5))
    path.holds_the_earlier_attempt()
    path.accepts()
    outcome = send_message(path.message.pk)
    assert outcome.kind == "reconciled"
    assert path.send_calls == 0
    message = reload(path.message)
    assert message.status == Message.Status.SENT
    assert Journey.objects.get(lead=message.lead).stage == path.contacted
    assert Enrollment.objects.get(lead=message.lead).current_step == 1


def test_a_sending_row_the_provider_has_not_seen_follows_the_retry_rule(path, clock):
    crashed_while_sending(path.message)
    path.has_no_trace()
    early = send_message(path.message.pk)
    assert early.kind == "deferred"  # the attempt may still be talking to the provider
    assert reload(path.message).status == Message.Status.SENDING
    clock.shift(timedelta(minutes=3))
    lost = send_message(path.message.pk)
    # The lost attempt is the first timeout of the retry table: back off 15 s, no resend now.
    assert lost.kind == "retry" and lost.retry_at == MONDAY_10 + timedelta(minutes=3, seconds=15)
    message = reload(path.message)
    assert message.status == Message.Status.QUEUED and message.scheduled_for == lost.retry_at
    assert "attempt lost" in message.error and message.needs_reconcile
    assert message.retries == {"timeout": 1}
    # The provider queues sends: it is looked for until the deadline before a resend.
    clock.shift(timedelta(seconds=15))
    still = send_message(path.message.pk)
    assert still.kind == "deferred" and still.retry_at == MONDAY_10 + timedelta(seconds=225)
    assert path.send_calls == 0
    clock.move_to(MONDAY_10 + RECONCILE_DEADLINE)
    path.accepts()
    assert send_message(path.message.pk).kind == "sent"
    assert path.send_calls == 1 and reload(path.message).attempts == 2


def test_an_uncertain_last_attempt_the_provider_has_is_recorded_not_dead_lettered(path, clock):
    crashed_while_sending(path.message, retries={"timeout": 3})
    clock.shift(timedelta(minutes=3))
    path.has_no_trace()
    looking = send_message(path.message.pk)
    assert looking.kind == "retry" and "looking for it at the provider first" in looking.detail
    assert reload(path.message).status == Message.Status.QUEUED
    clock.shift(timedelta(minutes=1))
    path.holds_the_earlier_attempt()  # it shows up in the chat history late
    assert send_message(path.message.pk).kind == "reconciled"
    message = reload(path.message)
    assert message.status == Message.Status.SENT and path.send_calls == 0
    assert path.quota_used() == path.quota_at_start


def test_a_lost_attempt_after_the_last_retry_is_a_dead_letter(path, clock):
    crashed_while_sending(path.message, retries={"timeout": 3})
    clock.shift(timedelta(minutes=3))
    path.has_no_trace()
    assert send_message(path.message.pk).kind == "retry"
    clock.move_to(MONDAY_10 + RECONCILE_DEADLINE)
    assert send_message(path.message.pk).kind == "dead"
    message = reload(path.message)
    assert message.status == Message.Status.DEAD_LETTER and "not at the provider" in message.error
    assert path.send_calls == 0
    assert path.quota_used() == 0  # confirmed not sent: its slot goes back


def test_when_the_provider_cannot_say_the_message_is_held_not_resent(path, clock):
    crashed_while_sending(path.message, retries={"timeout": 3})
    clock.shift(timedelta(minutes=3))
    path.lookups_fail()
    outcomes = []
    while timezone.now() < MONDAY_10 + LOOKUP_LIMIT + timedelta(minutes=1):
        outcome = send_message(path.message.pk)
        outcomes.append(outcome.kind)
        if outcome.retry_at is None:
            break
        clock.move_to(outcome.retry_at)
    assert outcomes[-1] == "dead" and set(outcomes[:-1]) == {"retry"}
    message = reload(path.message)
    assert message.status == Message.Status.DEAD_LETTER and "held, not resent" in message.error
    assert path.send_calls == 0
    assert path.quota_used() == path.quota_at_start  # it may have gone out: the slot stays used


def test_one_failed_lookup_at_the_deadline_does_not_hold_a_send(path, clock):
    """A throttled lookup says nothing: it is asked again, and a send the provider never
    got goes out (bench/faults.py found sends held after one 429 on the last lookup)."""
    crashed_while_sending(path.message)
    path.lookups_fail()
    clock.move_to(MONDAY_10 + RECONCILE_DEADLINE)
    assert send_message(path.message.pk).kind == "retry"
    assert reload(path.message).status == Message.Status.SENDING
    path.recover_lookups()
    clock.shift(timedelta(seconds=15))
    path.accepts()
    outcomes = [send_message(path.message.pk).kind for _ in range(3)]
    clock.shift(timedelta(seconds=15))
    outcomes.append(send_message(path.message.pk).kind)
    assert "sent" in outcomes and path.send_calls == 1


def test_after_the_window_a_failed_resend_follows_its_own_class(path, clock):
    """Not found after the window, resent, then refused with a 429: that refusal cannot
    have sent anything, so it waits Retry-After, not another reconcile window."""
    crashed_while_sending(path.message)
    path.has_no_trace()
    clock.move_to(MONDAY_10 + timedelta(minutes=3))
    send_message(path.message.pk)  # lost → uncertain, reconciled until the deadline
    clock.move_to(MONDAY_10 + RECONCILE_DEADLINE)
    if path.channel == "whatsapp":
        path.provider.post(SEND_URL, status=429, json=api_body("error_rate_limited.json"))
    else:
        path.provider.fail_with = RateLimited("Too Many Requests")
    outcome = send_message(path.message.pk)
    assert outcome.kind == "retry"
    assert outcome.retry_at == MONDAY_10 + RECONCILE_DEADLINE + timedelta(seconds=60)
    assert not reload(path.message).needs_reconcile


def stop_by_takeover(path, tenant):
    Journey.objects.update(taken_over_by=make_user(tenant), taken_over_at=MONDAY_10)
    return "a colleague took the conversation over"


def stop_by_pause(path, tenant):
    Journey.objects.update(stage=Stage.PAUSED, previous_stage=Stage.COLD)
    return "the lead was paused"


def stop_by_review(path, tenant):
    Journey.objects.update(requires_human_review=True, review_priority="HIGH")
    return "the lead is held for human review"


def stop_enrollment(path, tenant):
    """The enrollment's own stop reason is what the message is refused for."""
    stopped = reasons.code(STOP_COMPANY_REPLIED)
    Enrollment.objects.update(status=Enrollment.Status.STOPPED, stop_reason=stopped)
    return "another contact of the company replied"


def stop_by_opt_out(path, tenant):
    field = "whatsapp_opted_out" if path.channel == "whatsapp" else "email_opted_out"
    Journey.objects.update(**{field: True})
    return f"The lead opted out of {'WhatsApp' if path.channel == 'whatsapp' else 'Cold email'}"


@pytest.mark.parametrize(
    "stop", [stop_by_takeover, stop_by_pause, stop_by_review, stop_enrollment, stop_by_opt_out]
)
def test_a_lead_stopped_after_queueing_is_not_sent_and_the_reason_is_kept(path, tenant, stop):
    """The state changed after the message was queued (and after anything that cancels
    queued messages ran): the send-time check is what keeps it from going out."""
    reason = stop(path, tenant)
    path.accepts()
    outcome = send_message(path.message.pk)
    assert (outcome.kind, reasons.render(outcome.detail)) == ("cancelled", reason)
    assert path.send_calls == 0
    message = reload(path.message)
    assert message.status == Message.Status.CANCELLED and reasons.render(message.error) == reason


def test_provider_quota_exceeded_waits_for_the_next_windows_opening(path):
    path.refuses_with_quota_exceeded()
    outcome = send_message(path.message.pk)
    assert outcome.kind == "retry" and outcome.retry_at == TUESDAY_9
    message = reload(path.message)
    assert message.status == Message.Status.QUEUED and message.scheduled_for == TUESDAY_9
    assert "QuotaExceeded" in message.error
    assert Journey.objects.get(lead=message.lead).stage == Stage.COLD


def test_outside_the_window_the_message_waits_for_the_opening(path, clock):
    clock.move_to(MONDAY_10.replace(hour=19))
    outcome = send_message(path.message.pk)
    assert outcome.kind == "deferred" and outcome.retry_at == TUESDAY_9
    assert reload(path.message).scheduled_for == TUESDAY_9
    assert path.send_calls == 0


def test_each_error_class_counts_its_own_retries(path):
    """Three timeouts spent the timeout budget; 429s after them still get their own five
    (one shared counter would give up here: six failed calls so far)."""
    Message.objects.filter(pk=path.message.pk).update(
        retries={"timeout": 3, "rate_limited": 2}, attempts=6
    )
    if path.channel == "whatsapp":
        path.provider.post(SEND_URL, status=429, json=api_body("error_rate_limited.json"))
    else:
        path.provider.fail_with = RateLimited("Too Many Requests")
    outcome = send_message(path.message.pk)
    assert outcome.kind == "retry" and outcome.retry_at == MONDAY_10 + timedelta(seconds=60)
    assert reload(path.message).retries == {"timeout": 3, "rate_limited": 3}
