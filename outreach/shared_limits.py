"""A limit a provider sets for all of a workspace's numbers together (the WhatsApp Cloud
API's business-portfolio messaging limit: 250, 2,000, 10,000 … people a business may
start a conversation with in a moving 24 hours, shared by every number of the portfolio).

Our own quota (whatsapp.quota) is per number and per day; this one is per provider and per
moving 24 hours, counted in people: every person one of those numbers wrote to in the last
24 hours uses a place, whatever the message (a first one, a follow-up, one the person asked
for: Meta counts every conversation the business opens). Dispatch gives each batch only the
places left (`places_left`), and what it cannot plan waits with the reason shown.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.utils.module_loading import import_string

from cerniq import integrations
from outreach.models import Channel, Message
from whatsapp.models import Phone

WINDOW = timedelta(hours=24)
NOT_COUNTED = (Message.Status.CANCELLED, Message.Status.FAILED)


@dataclass
class SharedLimit:
    provider: str
    label: str
    limit: int
    phone_ids: set[int]
    left: int  # people still allowed now

    def takes(self, phone_id: int | None) -> bool:
        return phone_id in self.phone_ids


def limits(tenant_id: int, now: datetime) -> list[SharedLimit]:
    """The shared limits that apply to the workspace's numbers now (two queries each)."""
    found = []
    for key, integration in integrations.registry().items():
        if not integration.shared_daily_limit:
            continue
        # The numbers first: a workspace without any of this provider's asks nothing more.
        phone_ids = set(
            Phone.objects.filter(tenant_id=tenant_id, provider=key).values_list("pk", flat=True)
        )
        if not phone_ids:
            continue
        limit = import_string(integration.shared_daily_limit)(tenant_id)
        if limit is None:
            continue
        people = (
            Message.objects.filter(
                tenant_id=tenant_id,
                channel=Channel.WHATSAPP,
                direction=Message.Direction.OUTBOUND,
                phone_id__in=phone_ids,
                created_at__gte=now - WINDOW,
            )
            .exclude(status__in=NOT_COUNTED)
            .values("lead_id")
            .distinct()
            .count()
        )
        found.append(SharedLimit(key, integration.label, limit, phone_ids, max(limit - people, 0)))
    return found


def people_already_written(
    tenant_id: int, phone_ids: set[int], lead_ids: set[int], now: datetime
) -> set[int]:
    """Of `lead_ids`, those one of these numbers wrote to in the last 24 hours: writing to
    them again uses no new place."""
    return set(
        Message.objects.filter(
            tenant_id=tenant_id,
            channel=Channel.WHATSAPP,
            direction=Message.Direction.OUTBOUND,
            phone_id__in=phone_ids,
            lead_id__in=lead_ids,
            created_at__gte=now - WINDOW,
        )
        .exclude(status__in=NOT_COUNTED)
        .values_list("lead_id", flat=True)
    )
