"""Re-enqueue work whose broker message was lost (e.g. Redis flushed): outbound messages
still QUEUED/SENDING (email: the message; WhatsApp: its phone's planned run), and webhook
events still RECEIVED.

Cron: every minute, so lost work runs again within about three minutes. Rows say when
their broker message is due, so only overdue work is re-enqueued (nothing waiting on
purpose is copied). Safe: sends and event processing claim their row first, so a duplicate
broker message is a no-op.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from cerniq.webhooks import requeue_stale_events
from outreach.delivery import requeue_stale


class Command(BaseCommand):
    help = "Re-enqueue outbound messages and webhook events that should have run by now."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--minutes", type=int, default=2, help="overdue by more than this")

    def handle(self, *args: Any, minutes: int, **opts: Any) -> None:
        older_than = timedelta(minutes=minutes)
        messages, phones = requeue_stale(older_than)
        self.stdout.write(f"re-enqueued {messages} stale messages; woke {phones} phones")
        self.stdout.write(f"re-enqueued {requeue_stale_events(older_than)} webhook events")
