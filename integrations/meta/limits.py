"""The business portfolio's messaging limit, as dispatch reads it (outreach.shared_limits)."""

from __future__ import annotations

from integrations.meta import config
from integrations.meta.models import MessagingLimit

STARTING_LIMIT = 250  # a new portfolio's limit until Meta raises it


def portfolio_limit(tenant_id: int) -> int | None:
    """People all the workspace's Cloud API numbers may write to in a moving 24 hours: what
    Meta last announced (business_capability_update), else META_MESSAGING_LIMIT, else 250.
    None: unlimited."""
    row = MessagingLimit.objects.filter(tenant_id=tenant_id).first()
    if row is not None:
        return row.unique_users_per_day
    return config.messaging_limit(STARTING_LIMIT)
