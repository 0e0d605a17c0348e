"""WhatsApp's customer-service window: for 24 hours after a person last wrote to one of our
numbers, that number may answer with free text; outside it, WhatsApp's official API only
carries approved templates (error 131047 otherwise). The one owner of that rule."""

from __future__ import annotations

from datetime import datetime, timedelta

from outreach.models import Channel, Message

WINDOW = timedelta(hours=24)


def last_written(lead_id: int, phone_id: int) -> datetime | None:
    """When the person last wrote to this number of ours (None: never)."""
    row = (
        Message.objects.filter(
            lead_id=lead_id,
            phone_id=phone_id,
            channel=Channel.WHATSAPP,
            direction=Message.Direction.INBOUND,
        )
        .order_by("-created_at")
        .values_list("sent_at", "created_at")
        .first()
    )
    if row is None:
        return None
    sent_at, created_at = row
    return sent_at or created_at


def is_open(lead_id: int, phone_id: int, now: datetime) -> bool:
    written = last_written(lead_id, phone_id)
    return written is not None and now - written < WINDOW


def closes_at(lead_id: int, phone_id: int) -> datetime | None:
    written = last_written(lead_id, phone_id)
    return written + WINDOW if written is not None else None
