"""Cold email in bulk: a tenant's due EMAIL_COLD messages handed to the provider in batches.

Instantly sends cold email itself, from campaigns; we hand it leads, up to 1,000 per call
(docs/providers.md §2.2). A cold message is still one `Message` row with its idempotency key,
and it goes through the same rules as the one send path (outreach.sending), only many at a
time:

1. still wanted (`why_not_send`: opt-out, suppression, takeover, review, stage,
   enrollment, the address's status), else cancelled with the reason;
2. the campaign's hourly limit (`EmailCampaign.hourly_limit`): the rest waits for the next
   hour, QUEUED with its `scheduled_for`;
3. claimed QUEUED → SENDING by a conditional UPDATE, so two pushers never hand the same
   lead over twice;
4. one provider call per `max_batch` messages; each message is recorded on its own:
   `record_sent` or `record_failure` (the retry table), exactly as a single send.

A pusher that dies after the call leaves SENDING rows; `requeue_stale` hands them to
`send_message`, which looks for them at the provider first (the backend's `find_sent`:
Instantly's lead list), so a retry never pushes twice. The sending window does not apply
here: the campaign's own schedule is the tenant's window (the provider sends in it).
"""

from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db.models import F, Q
from django.utils import timezone

from cerniq.provider_errors import ProviderError
from email_channels.models import EmailCampaign
from outreach.models import SENT_STATUSES, Channel, Message
from outreach.recording import record_sent
from outreach.sending import record_failure, why_not_send
from outreach.sequences import cancel_message
from outreach.transports import EmailTransport, transport_for

log = logging.getLogger(__name__)

PUSH_LIMIT = 10_000  # messages one run looks at; the next run (a minute later) takes the rest
HOUR = timedelta(hours=1)
DEFAULT_HOURLY_LIMIT = EmailCampaign._meta.get_field("hourly_limit").default


@dataclass
class PushOutcome:
    sent: int = 0
    failed: int = 0
    cancelled: int = 0
    waiting: int = 0  # over a campaign's hourly limit: due again next hour
    calls: int = 0  # provider calls made
    reasons: dict[str, int] = field(default_factory=dict)


def due_cold_messages(tenant_id: int, now: datetime) -> list[Message]:
    return list(
        Message.objects.select_related("lead", "tenant", "step")
        .filter(
            tenant_id=tenant_id,
            channel=Channel.EMAIL_COLD,
            direction=Message.Direction.OUTBOUND,
            status=Message.Status.QUEUED,
            provider_thread_id="",  # answers in a thread go one by one (send_message)
        )
        .filter(Q(scheduled_for__isnull=True) | Q(scheduled_for__lte=now))
        .order_by("scheduled_for", "pk")[:PUSH_LIMIT]
    )


def hourly_room(tenant_id: int, sequence_ids: set[int | None], now: datetime) -> dict:
    """How many more leads each sequence's campaign takes this hour (its hourly limit less
    what was handed over in the last 60 minutes)."""
    limits: dict[int | None, int] = dict(
        EmailCampaign.objects.filter(tenant_id=tenant_id, sequence_id__in=sequence_ids)
        .exclude(status=EmailCampaign.Status.COMPLETED)
        .values_list("sequence_id", "hourly_limit")
    )
    pushed: dict[int | None, int] = defaultdict(int)
    for sequence_id in (
        Message.objects.filter(
            tenant_id=tenant_id,
            channel=Channel.EMAIL_COLD,
            direction=Message.Direction.OUTBOUND,
            status__in=SENT_STATUSES,
            sent_at__gt=now - HOUR,
        )
        .values_list("sequence_id", flat=True)
        .iterator()
    ):
        pushed[sequence_id] += 1
    return {s: max(0, limits.get(s, DEFAULT_HOURLY_LIMIT) - pushed.get(s, 0)) for s in sequence_ids}


def _claim(messages: list[Message], now: datetime) -> list[Message]:
    ids = [m.pk for m in messages]
    Message.objects.filter(pk__in=ids, status=Message.Status.QUEUED).update(
        status=Message.Status.SENDING, attempts=F("attempts") + 1, attempt_started_at=now
    )
    return list(
        Message.objects.select_related("lead", "tenant", "step")
        .filter(pk__in=ids, status=Message.Status.SENDING, attempt_started_at=now)
        .order_by("pk")
    )


def push_due(tenant_id: int, *, now: datetime | None = None) -> PushOutcome:
    """Hand every due cold email of the tenant to the provider, in batches."""
    now = now or timezone.now()
    outcome = PushOutcome()
    transport = transport_for(Channel.EMAIL_COLD)
    assert isinstance(transport, EmailTransport)
    wanted: list[Message] = []
    for message in due_cold_messages(tenant_id, now):
        blocker = why_not_send(message, transport)
        if blocker:
            cancel_message(message, blocker)
            outcome.cancelled += 1
            outcome.reasons[blocker] = outcome.reasons.get(blocker, 0) + 1
        else:
            wanted.append(message)
    room = hourly_room(tenant_id, {m.sequence_id for m in wanted}, now)
    taken: list[Message] = []
    for message in wanted:
        if room[message.sequence_id] > 0:
            room[message.sequence_id] -= 1
            taken.append(message)
        else:
            Message.objects.filter(pk=message.pk, status=Message.Status.QUEUED).update(
                scheduled_for=now + HOUR
            )
            outcome.waiting += 1
    claimed = _claim(taken, now)
    size = max(1, transport.max_batch)
    for start in range(0, len(claimed), size):
        batch = claimed[start : start + size]
        outcome.calls += 1
        try:
            results: list = transport.deliver_many(batch)
        except ProviderError as error:  # the whole call failed: each message retries
            results = [error] * len(batch)
        for message, result in zip(batch, results, strict=True):
            if isinstance(result, ProviderError):
                record_failure(message, transport, result)
                outcome.failed += 1
            else:
                record_sent(message, transport, result)
                outcome.sent += 1
    if claimed or outcome.cancelled:
        log.info("cold email push for tenant %s: %s", tenant_id, outcome)
    return outcome
