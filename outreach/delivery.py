"""When a QUEUED message runs: the one place that hands outbound work to the broker.

WhatsApp messages are not enqueued one by one: their phone's planned run picks them up
(outreach.pacing), so `enqueue_message` only makes sure that run is planned. Cold email is
handed to the provider in bulk: a queued cold message plans a push of its tenant's due cold
email (outreach.pushing). Warm email gets one actor run per message, at the time it is due.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db.models import Q
from django.utils import timezone

from outreach import pacing
from outreach.models import Channel, Message

EMAIL_QUEUES: dict[str, str] = {Channel.EMAIL_COLD: "email.cold", Channel.EMAIL_WARM: "email.warm"}


def queue_for(message: Message) -> str:
    if message.channel == Channel.WHATSAPP:
        if message.phone_id is None:
            # Its phone was deleted: any send queue runs it, and the send path cancels it
            # saying why (no phone is assigned) instead of leaving it queued.
            return EMAIL_QUEUES[Channel.EMAIL_WARM]
        return pacing.phone_queue_for(message.phone_id)
    return EMAIL_QUEUES[message.channel]


def enqueue_message(message: Message, *, at: datetime | None = None) -> None:
    """Have `message` sent no earlier than `at` (its `scheduled_for` by default)."""
    at = at or message.scheduled_for
    if message.channel == Channel.WHATSAPP and message.phone_id is not None:
        pacing.wake(message.phone_id, at)
        return
    if is_pushed(message):
        plan_push(message.tenant_id, at)
        return
    from outreach.tasks import send_message  # the actor module imports this one

    delay_ms = 0
    if at is not None:
        delay_ms = max(0, int((at - timezone.now()).total_seconds() * 1000))
    broker_message = send_message.message(message.pk).copy(queue_name=queue_for(message))
    send_message.broker.enqueue(broker_message, delay=delay_ms or None)


def is_pushed(message: Message) -> bool:
    """A queued cold email that joins a campaign (outreach.pushing), not an answer in a
    thread, which is sent on its own."""
    return (
        message.channel == Channel.EMAIL_COLD
        and message.status == Message.Status.QUEUED
        and not message.provider_thread_id
    )


def plan_push(tenant_id: int, at: datetime | None = None) -> None:
    """Have the tenant's due cold email pushed at `at` (now by default). One run takes every
    due message, so callers plan one push per batch, not one per message."""
    from outreach.tasks import push_cold_email

    delay_ms = 0
    if at is not None:
        delay_ms = max(0, int((at - timezone.now()).total_seconds() * 1000))
    push_cold_email.send_with_options(args=(tenant_id,), delay=delay_ms or None)


def enqueue_again(message_id: int, at: datetime | None) -> None:
    """After an attempt that was told to wait: have the message run again at `at`."""
    if at is None:
        return
    message = Message.objects.filter(pk=message_id).first()
    if message is not None:
        enqueue_message(message, at=at)


def requeue_stale(older_than: timedelta) -> tuple[int, int]:
    """Recover outbound work whose broker message was lost (e.g. Redis flushed).

    A row says when its broker message is due (`scheduled_for`, rewritten whenever a run
    defers it: the window, a retry, pacing), and a phone when its planned run is
    (`wake_at`). So only work overdue by `older_than` is lost; work waiting on purpose is
    never copied. Returns (messages re-enqueued, phones given a run). Safe any time: a send
    claims its row first and a phone run takes its lease, so a duplicate is a no-op.
    """
    now = timezone.now()
    unpaced = Message.objects.filter(
        direction=Message.Direction.OUTBOUND, phone_id__isnull=True
    ).filter(
        Q(status=Message.Status.QUEUED, scheduled_for__lt=now - older_than)
        | Q(
            status=Message.Status.SENDING,
            attempt_started_at__lt=now - pacing.SEND_LEASE - older_than,
        )
    )
    count = 0
    pushes: set[int] = set()
    for message in unpaced.iterator():
        # Due again now: the next reconciler run (a minute later) does not copy it again.
        Message.objects.filter(pk=message.pk, status=Message.Status.QUEUED).update(
            scheduled_for=now
        )
        if is_pushed(message):
            pushes.add(message.tenant_id)  # one push takes all of a tenant's due cold email
        else:
            enqueue_message(message, at=now)
        count += 1
    for tenant_id in sorted(pushes):
        plan_push(tenant_id, now)
    phones = pacing.phones_needing_a_run(now)
    for phone_id in phones:
        pacing.wake(phone_id, now)
    return count, len(phones)
