"""Recovery of lost broker work is fast and makes no copies of work waiting on purpose."""

from __future__ import annotations

from datetime import timedelta

import dramatiq
import pytest
import time_machine

from outreach import delivery, pacing
from outreach.dispatch import dispatch_due
from outreach.models import Channel, Lead, Message
from outreach.sending import send_message
from tests.factories import make_outreach_world, make_tenant
from tests.whatsapp.conftest import MONDAY_10
from whatsapp.models import Phone

GRACE = timedelta(minutes=2)


@pytest.fixture
def enqueued(monkeypatch):
    """Email enqueues, cold-email pushes and phone runs, as (kind, id) pairs."""
    calls: list[tuple[str, int]] = []
    monkeypatch.setattr(
        delivery, "enqueue_message", lambda m, at=None: calls.append(("email", m.pk))
    )
    monkeypatch.setattr(
        delivery, "plan_push", lambda tenant_id, at=None: calls.append(("push", tenant_id))
    )
    monkeypatch.setattr(
        pacing, "_enqueue_run", lambda phone_id, at: calls.append(("phone", phone_id))
    )
    return calls


@pytest.mark.django_db(transaction=True)
def test_an_email_waiting_for_the_window_is_not_copied_and_a_lost_one_comes_back_once(
    enqueued, settings
):
    settings.PROVIDERS = {
        **settings.PROVIDERS,
        "email.instantly": {"BACKEND": "tests.fakes.FakeEmail"},
    }
    with time_machine.travel(MONDAY_10, tick=False) as clock:
        tenant = make_tenant()
        make_outreach_world(tenant, leads=1, phones=0, channel=Channel.EMAIL_COLD)
        Lead.objects.update(email_status="valid")
        dispatch_due(tenant)
        message = Message.objects.get()
        clock.move_to(MONDAY_10.replace(hour=19))
        assert send_message(message.pk).kind == "deferred"  # waits for Tuesday 09:00
        enqueued.clear()
        for hour in (19, 22, 2, 8):  # the reconciler runs all night: no copy
            day = 23 if hour >= 19 else 24
            clock.move_to(MONDAY_10.replace(day=day, hour=hour, minute=30))
            assert delivery.requeue_stale(GRACE) == (0, 0)
        assert enqueued == []
        # Redis was flushed overnight: the 09:00 message is gone. Found within minutes.
        clock.move_to(MONDAY_10.replace(day=24, hour=9, minute=3))
        assert delivery.requeue_stale(GRACE) == (1, 0)
        clock.shift(timedelta(minutes=1))
        assert delivery.requeue_stale(GRACE) == (0, 0)  # already given back: no second copy
    # A cold email comes back as one push of its tenant's due cold email (outreach.pushing).
    assert enqueued == [("push", tenant.pk)]


@pytest.mark.django_db(transaction=True)
def test_a_phone_waiting_for_the_window_is_not_woken_and_a_lost_run_is_replanned_once(enqueued):
    with time_machine.travel(MONDAY_10.replace(hour=17, minute=59, second=59), tick=False) as clock:
        tenant = make_tenant()
        make_outreach_world(tenant, leads=3, phones=1, steps=1)
        dispatch_due(tenant)
        phone = Phone.objects.get()
        clock.move_to(MONDAY_10.replace(hour=18, minute=1))
        pacing.run_phone(phone.pk)  # the window closed: the run plans Tuesday 09:00
        phone.refresh_from_db()
        assert phone.wake_at == MONDAY_10.replace(day=24, hour=9)
        enqueued.clear()
        clock.move_to(MONDAY_10.replace(hour=23))
        assert delivery.requeue_stale(GRACE) == (0, 0)
        clock.move_to(MONDAY_10.replace(day=24, hour=9, minute=3))  # the 09:00 run was lost
        assert delivery.requeue_stale(GRACE) == (0, 1)
        clock.shift(timedelta(minutes=1))
        assert delivery.requeue_stale(GRACE) == (0, 0)
    assert enqueued == [("phone", phone.pk)]


@pytest.mark.django_db(transaction=True)
def test_a_whatsapp_message_whose_phone_was_deleted_is_cancelled_not_recovered_forever(
    monkeypatch,
):
    broker = dramatiq.get_broker()
    enqueued: list[dramatiq.Message] = []  # any broker: the StubBroker here, Redis in CI
    monkeypatch.setattr(broker, "enqueue", lambda message, delay=None: enqueued.append(message))
    with time_machine.travel(MONDAY_10, tick=False) as clock:
        tenant = make_tenant()
        make_outreach_world(tenant, leads=1, phones=1, steps=1)
        dispatch_due(tenant)
        Phone.objects.all().delete()  # its messages keep no phone (SET_NULL)
        message = Message.objects.get(status=Message.Status.QUEUED, phone__isnull=True)
        broker.flush_all()
        enqueued.clear()  # the broker's copies are lost
        clock.shift(timedelta(minutes=10))
        assert delivery.requeue_stale(GRACE) == (1, 0)
        # Handed to the send path (no phone queue is left to run it), which says why not.
        (queued,) = enqueued
        assert (queued.actor_name, queued.args) == ("send_message", (message.pk,))
        assert send_message(message.pk).kind == "cancelled"
        clock.shift(timedelta(minutes=10))
        assert delivery.requeue_stale(GRACE) == (0, 0)
    message.refresh_from_db()
    assert message.status == Message.Status.CANCELLED
    assert message.error.startswith("send.no_phone")
