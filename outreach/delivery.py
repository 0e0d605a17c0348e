"""Hand a QUEUED message to the broker, on the queue its channel and phone call for."""

from __future__ import annotations

from datetime import datetime

import dramatiq
from django.utils import timezone

from outreach.models import Channel, Message
from whatsapp.queues import phone_queue

EMAIL_QUEUES = {Channel.EMAIL_COLD: "email.cold", Channel.EMAIL_WARM: "email.warm"}


def queue_for(message: Message) -> str:
    if message.channel == Channel.WHATSAPP:
        assert message.phone_id, "a WhatsApp message needs its phone"
        return phone_queue(message.phone_id, followup=message.quota_cost == 0)
    return EMAIL_QUEUES[message.channel]


def actor_for(message: Message) -> dramatiq.Actor:
    if message.channel == Channel.WHATSAPP:
        from whatsapp.tasks import send_whatsapp_message

        return send_whatsapp_message
    from email_channels.tasks import send_email_message

    return send_email_message


def enqueue_message(message: Message, *, at: datetime | None = None) -> None:
    """Enqueue the send of `message`, to run no earlier than `at`."""
    delay_ms = 0
    if at is not None:
        delay_ms = max(0, int((at - timezone.now()).total_seconds() * 1000))
    actor = actor_for(message)
    dramatiq_message = actor.message(message.pk).copy(queue_name=queue_for(message))
    actor.broker.enqueue(dramatiq_message, delay=delay_ms or None)


def enqueue_again(message_id: int, at: datetime | None) -> None:
    """After a send attempt that was told to wait: enqueue the message again for `at`."""
    if at is None:
        return
    message = Message.objects.filter(pk=message_id).first()
    if message is not None:
        enqueue_message(message, at=at)
