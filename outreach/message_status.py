"""A message's delivery status only moves forward: the one owner of that rule, for every
channel and provider (email events, WhatsApp status polls and webhooks).

Providers report statuses late, twice and out of order (a "delivered" after a "read", an
"opened" after a bounce). `advance` moves a message to a status only from a lower one,
with one conditional UPDATE, so two workers handling events of one message never move it
backwards; the moment the status was reached is kept on its column.
"""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone

from outreach.models import Message

Status = Message.Status

# How far each status has come; a status never moves to a lower rank. BOUNCED and FAILED
# are final: nothing after them changes the message.
RANK: dict[str, int] = {
    Status.QUEUED: 0,
    Status.SENDING: 1,
    Status.SENT: 2,
    Status.DELIVERED: 3,
    Status.READ: 4,
    Status.FAILED: 9,
    Status.BOUNCED: 9,
}
MOMENT_FIELD: dict[str, str] = {
    Status.DELIVERED: "delivered_at",
    Status.READ: "read_at",
    Status.FAILED: "failed_at",
    Status.BOUNCED: "failed_at",
}


def further(status: str, than: str) -> bool:
    """Whether `status` is further along than `than` (unknown statuses never are)."""
    return status in RANK and RANK[status] > RANK.get(than, RANK[Status.BOUNCED])


def advance(message: Message, status: str, *, at: datetime | None = None, error: str = "") -> bool:
    """Move the message to `status` unless it is already there or further. True when it
    moved."""
    lower = [s for s, rank in RANK.items() if rank < RANK[status]]
    fields: dict[str, object] = {"status": status, "updated_at": timezone.now()}
    if status in MOMENT_FIELD:
        fields[MOMENT_FIELD[status]] = at or timezone.now()
    if error:
        fields["error"] = error[:2000]
    return bool(Message.objects.filter(pk=message.pk, status__in=lower).update(**fields))
