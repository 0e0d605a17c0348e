"""Retention: a workspace that sets `message_retention_days` has the text of older messages
blanked by a nightly job (cerniq.settings PERIODIC_JOBS: `anonymise-old-messages`).

What goes: the body, the subject, the provider's raw request and response (they carry the
text), the error text (it may quote an address), and the files attached. What stays: who,
when, which channel and phone, the status and its times, the AI's classification (the
figures count intents), so every count and rate on the pages is unchanged. A message
still waiting to go out is never touched, and a blanked one is marked (`anonymised_at`),
so the job passes over it next night.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from cerniq.models import Tenant
from outreach.models import Message, MessageAttachment
from outreach.past_messages import raw_response_blanked

BATCH = 1000
WAITING = (Message.Status.QUEUED, Message.Status.SENDING)


@dataclass
class Anonymised:
    messages: dict[str, int] = field(default_factory=dict)  # by tenant slug
    attachments: int = 0

    @property
    def total(self) -> int:
        return sum(self.messages.values())


def due(tenant: Tenant, now: datetime):  # noqa: ANN201 - a queryset of messages
    """The tenant's messages whose text the retention age has passed, not yet blanked."""
    cutoff = now - timedelta(days=tenant.message_retention_days or 0)
    return (
        Message.objects.filter(tenant=tenant, created_at__lt=cutoff, anonymised_at__isnull=True)
        .exclude(status__in=WAITING)
        .order_by("pk")
    )


def anonymise_tenant(tenant: Tenant, now: datetime, *, batch: int = BATCH) -> tuple[int, int]:
    """Blank the tenant's due messages, a batch per transaction; (messages, files)."""
    if not tenant.message_retention_days:
        return 0, 0
    messages = files = 0
    while ids := list(due(tenant, now).values_list("pk", flat=True)[:batch]):
        with transaction.atomic():
            for attachment in MessageAttachment.objects.filter(message_id__in=ids):
                attachment.file.delete(save=False)
                attachment.delete()
                files += 1
            messages += Message.objects.filter(pk__in=ids).update(
                body="",
                subject="",
                raw_request=None,
                raw_response=raw_response_blanked(),  # a history row stays one
                error="",
                anonymised_at=now,
                updated_at=now,
            )
    return messages, files


def anonymise_old_messages(now: datetime | None = None) -> Anonymised:
    """Every workspace with a retention age: blank what it has passed."""
    now = now or timezone.now()
    done = Anonymised()
    for tenant in Tenant.objects.filter(message_retention_days__isnull=False).order_by("pk"):
        messages, files = anonymise_tenant(tenant, now)
        if messages:
            done.messages[tenant.slug] = messages
        done.attachments += files
    return done
