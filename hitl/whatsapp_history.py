"""A WhatsApp chat's earlier messages, stored as history (the one rule; hitl.whatsapp_inbound
owns the messages that arrive as they happen, docs/chat-history.md).

A past message is stored once, deduplicated on the provider's message id (the unique
(channel, provider_message_id) every WhatsApp row shares: one of ours, an echo, a reply
stored by the webhooks, or an earlier fetch all count as "already there"). Both directions:
the person's (inbound, RECEIVED) and ours (`from_me`: sent from any device of our account,
outbound, `is_manual`, never an automated send).

It is history, not a reply: the reply path (opt-out, stop, triage, alerts, the review
queue, reply counts) never runs for it, no signal fires (rows are bulk-inserted), and the
row is marked in `raw_response` (outreach.past_messages.HISTORY_MARK), so the pages can say
so and the figures leave it out. Its `created_at` is its WhatsApp time: the lead page and
the inbox order a conversation by `created_at`, so history sits where it happened. An
outbound one is marked as an echo too (outreach.recording.ECHO_MARK): should it be a send
of ours whose record is still being written, the send path adopts it, as it adopts a
webhook's echo.

Only what was written before the fetch was asked for (`until`) is taken: later messages are
the webhooks' to bring, through the reply path. Should a webhook still bring one that a
fetch stored first, the webhook's path takes it over (hitl.whatsapp_inbound.receive).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import Case, DateTimeField, Value, When

from cerniq.models import Tenant
from outreach.models import Channel, Message
from outreach.past_messages import HISTORY_MARK
from outreach.recording import ECHO_MARK
from whatsapp.backends import PastMessage
from whatsapp.models import Phone

log = logging.getLogger(__name__)

REASON_MAX = Message._meta.get_field("channel_reason").max_length
# The provider's word for an outbound message's state → ours (case-insensitive); any
# other word (Sent, Pending, Not connected…) is SENT: it went out of the phone.
OUTBOUND_STATUS = {
    "delivered": Message.Status.DELIVERED,
    "read": Message.Status.READ,
    "failed": Message.Status.FAILED,
}


@dataclass(frozen=True)
class StoredPage:
    """What became of one page's entries."""

    stored: int = 0  # new rows
    already: int = 0  # stored before, by anyone
    skipped: int = 0  # outside [since, until), without a time, not a chat message


def store_past(
    tenant: Tenant,
    *,
    lead_id: int,
    phone: Phone | None,
    messages: Iterable[PastMessage],
    since: datetime,
    until: datetime,
    backfill_id: int | None = None,
) -> StoredPage:
    """Store the messages of one page of a chat's history that are new, as history of
    `lead_id` on `phone`. Three queries whatever the page holds: the ids already stored,
    the insert, the real times."""
    wanted: dict[str, PastMessage] = {}
    skipped = 0
    for past in messages:
        if past.sent_at is None or not since <= past.sent_at < until:
            skipped += 1
        elif past.provider_message_id not in wanted:
            wanted[past.provider_message_id] = past
        else:
            skipped += 1  # the same id twice on one page
    if not wanted:
        return StoredPage(skipped=skipped)
    known = set(
        Message.objects.filter(
            channel=Channel.WHATSAPP, provider_message_id__in=list(wanted)
        ).values_list("provider_message_id", flat=True)
    )
    new = [past for uid, past in wanted.items() if uid not in known]
    if not new:
        return StoredPage(already=len(wanted), skipped=skipped)
    mark = {"backfill": backfill_id}
    with transaction.atomic():
        Message.objects.bulk_create(
            [_row(tenant, lead_id, phone, past, mark) for past in new], ignore_conflicts=True
        )
        # Only rows this call inserted: history of this tenant with these ids (a row a
        # webhook stored meanwhile is not history, and stays as it is).
        stored = Message.objects.filter(
            tenant=tenant,
            channel=Channel.WHATSAPP,
            provider_message_id__in=[past.provider_message_id for past in new],
            raw_response__has_key=HISTORY_MARK,
        ).update(
            created_at=Case(
                *[
                    When(provider_message_id=past.provider_message_id, then=Value(past.sent_at))
                    for past in new
                ],
                output_field=DateTimeField(),
            )
        )
    log.info("chat history: %s stored, %s already there, %s skipped", stored, len(known), skipped)
    return StoredPage(stored=stored, already=len(wanted) - stored, skipped=skipped)


def _row(
    tenant: Tenant, lead_id: int, phone: Phone | None, past: PastMessage, mark: dict[str, Any]
) -> Message:
    raw: dict[str, Any] = {
        HISTORY_MARK: mark,
        "origin": past.origin,
        "attachments": list(past.attachments),
    }
    common: dict[str, Any] = {
        "tenant": tenant,
        "lead_id": lead_id,
        "channel": Channel.WHATSAPP,
        "body": past.text,
        "phone": phone,
        "counterpart": past.contact_phone,
        "provider_message_id": past.provider_message_id,
        "provider_thread_id": past.chat_id,
        "sent_at": past.sent_at,
    }
    if not past.from_me:
        return Message(
            **common,
            direction=Message.Direction.INBOUND,
            status=Message.Status.RECEIVED,
            raw_response=raw,
        )
    origin = past.origin or "WhatsApp"
    return Message(
        **common,
        direction=Message.Direction.OUTBOUND,
        status=OUTBOUND_STATUS.get(past.status.strip().lower(), Message.Status.SENT),
        is_manual=True,
        channel_reason=f"sent from {origin}, fetched with the chat's history"[:REASON_MAX],
        raw_response={**raw, ECHO_MARK: True},
    )
