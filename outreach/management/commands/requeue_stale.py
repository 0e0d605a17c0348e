"""Re-enqueue work whose broker message was lost (e.g. Redis flushed): outbound messages
still QUEUED/SENDING, and webhook events still RECEIVED.

Cron: */10 * * * *. Safe: sends and event processing claim their row first, so a
duplicate broker message is a no-op.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.db.models import Q
from django.utils import timezone

from cerniq.models import WebhookEvent
from cerniq.tasks import process_webhook_event
from outreach.delivery import enqueue_message
from outreach.models import Message
from outreach.pacing import SEND_LEASE


def stale_messages(older_than: timedelta):
    now = timezone.now()
    return Message.objects.filter(direction=Message.Direction.OUTBOUND).filter(
        Q(status=Message.Status.QUEUED, scheduled_for__lt=now - older_than)
        | Q(status=Message.Status.SENDING, attempt_started_at__lt=now - SEND_LEASE - older_than)
    )


class Command(BaseCommand):
    help = "Re-enqueue outbound messages that should have been sent by now."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--minutes", type=int, default=15, help="late by more than this")

    def handle(self, *args: Any, minutes: int, **opts: Any) -> None:
        count = 0
        for message in stale_messages(timedelta(minutes=minutes)).iterator():
            enqueue_message(message)
            count += 1
        self.stdout.write(f"re-enqueued {count} stale messages")
        events = WebhookEvent.objects.filter(
            status=WebhookEvent.Status.RECEIVED,
            received_at__lt=timezone.now() - timedelta(minutes=minutes),
        ).values_list("pk", flat=True)
        for event_id in events:
            process_webhook_event.send(event_id)
        self.stdout.write(f"re-enqueued {len(events)} webhook events")
