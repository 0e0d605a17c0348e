"""A WhatsApp chat's earlier messages, fetched from its provider once the chat is known
(docs/chat-history.md): when a fetch is queued, when a person may ask for it, and what the
lead page shows of it. The fetch itself: hitl.chat_backfill_run; storing what it finds:
hitl.whatsapp_history.

When. A chat becomes known when hitl.whatsapp_inbound learns its id for a lead (a reply, the
echo of a send, a new chat on one of our numbers): `chat_known` queues one fetch per chat,
ever (a `ChatBackfill` row per tenant, provider and chat). A person may ask again from the
lead page (`request`): the same row starts over; what was stored stays, nothing is stored
twice. Only for providers whose backend reads history (`WhatsAppBackend.reads_history`).

Bounds (settings, checked when read): at most CHAT_HISTORY_MAX_PAGES pages (of 50 for
TimelinesAI) per fetch, nothing older than CHAT_HISTORY_MAX_DAYS days before it was asked
for, nor older than the workspace's retention age (that text would be blanked at night).
CHAT_HISTORY_ON_NEW_CHAT turns the automatic fetch off; the button stays.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ImproperlyConfigured
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from cerniq.models import Tenant
from cerniq.providers import get_backend
from hitl.models import ChatBackfill
from outreach.models import Channel, Lead, Message
from whatsapp.backends import WhatsAppBackend
from whatsapp.models import Phone

log = logging.getLogger(__name__)

DEFAULT_MAX_PAGES = 20  # 1,000 messages on TimelinesAI
DEFAULT_MAX_DAYS = 365
MAX_CHATS = 5  # a lead's chats one request fetches (one per number of ours that wrote to it)
SHOWN = 5  # fetches the lead page lists
POLL_FOR = timedelta(minutes=10)  # the page stops polling a fetch silent for this long


class BackfillRefused(Exception):
    """The fetch cannot be asked for; the text says why, for the person who asked."""


@dataclass(frozen=True)
class Limits:
    max_pages: int
    max_days: int


def limits() -> Limits:
    """The configured bounds of one fetch; ImproperlyConfigured naming a bad setting."""
    return Limits(
        max_pages=_setting("CHAT_HISTORY_MAX_PAGES", DEFAULT_MAX_PAGES, 1, 200),
        max_days=_setting("CHAT_HISTORY_MAX_DAYS", DEFAULT_MAX_DAYS, 1, 3650),
    )


def _setting(name: str, default: int, low: int, high: int) -> int:
    value = getattr(settings, name, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ImproperlyConfigured(f"{name} must be a whole number from {low} to {high}")
    return value


def oldest_wanted(tenant: Tenant, requested_at: datetime, bounds: Limits) -> datetime:
    """The oldest moment a fetch asked for at `requested_at` takes messages from."""
    days = bounds.max_days
    if tenant.message_retention_days:
        days = min(days, tenant.message_retention_days)
    return requested_at - timedelta(days=days)


def history_backend(provider: str) -> WhatsAppBackend | None:
    """The provider's backend, if it reads a chat's history (None otherwise)."""
    try:
        backend = get_backend(f"whatsapp.{provider}")
    except ImproperlyConfigured:
        return None
    return backend if getattr(backend, "reads_history", False) else None


def chat_known(
    tenant: Tenant, *, lead_id: int | None, phone: Phone | None, chat_id: str
) -> ChatBackfill | None:
    """A chat of `lead_id` on our `phone` is known: queue the fetch of its history, once per
    chat (None when it was queued before, or there is nothing to fetch). One query when
    the chat was seen before."""
    if not chat_id or lead_id is None or phone is None:
        return None
    if not getattr(settings, "CHAT_HISTORY_ON_NEW_CHAT", True):
        return None
    if history_backend(phone.provider) is None:
        return None
    same = ChatBackfill.objects.filter(tenant=tenant, provider=phone.provider, chat_id=chat_id)
    if same.exists():
        return None
    try:
        with transaction.atomic():
            row = ChatBackfill.objects.create(
                tenant=tenant,
                lead_id=lead_id,
                phone=phone,
                provider=phone.provider,
                chat_id=chat_id,
                trigger=ChatBackfill.Trigger.CHAT_LEARNT,
                requested_at=timezone.now(),
            )
    except IntegrityError:
        return None  # queued meanwhile by another message of the same chat
    log.info("chat %s of lead %s is known: its history is queued", chat_id, lead_id)
    enqueue(row.pk)
    return row


def known_chats(lead: Lead) -> list[tuple[str, Phone]]:
    """The lead's WhatsApp chats on numbers of ours whose provider reads history."""
    pairs = list(
        Message.objects.filter(lead=lead, channel=Channel.WHATSAPP, phone__isnull=False)
        .exclude(provider_thread_id="")
        .order_by()
        .values_list("provider_thread_id", "phone_id")
        .distinct()[:MAX_CHATS]
    )
    phones = Phone.objects.in_bulk({phone_id for _chat, phone_id in pairs})
    return [
        (chat_id, phones[phone_id])
        for chat_id, phone_id in pairs
        if phone_id in phones and history_backend(phones[phone_id].provider) is not None
    ]


def request(lead: Lead, user: User) -> list[ChatBackfill]:
    """A person asked for the lead's chat history: each known chat's fetch starts over
    (what was stored stays). Refused, saying why, for an erased person, a lead with no
    known chat, or when a worker is fetching it right now."""
    if lead.erased_at is not None:
        raise BackfillRefused(_("This person was erased: their history is not fetched."))
    chats = known_chats(lead)
    if not chats:
        raise BackfillRefused(
            _(
                "No WhatsApp chat of this lead is known yet on a number whose provider keeps "
                "history: it is learnt when a message is sent or received."
            )
        )
    now = timezone.now()
    started = []
    for chat_id, phone in chats:
        row, _created = ChatBackfill.objects.get_or_create(
            tenant_id=lead.tenant_id,
            provider=phone.provider,
            chat_id=chat_id,
            defaults={
                "lead": lead,
                "phone": phone,
                "trigger": ChatBackfill.Trigger.PERSON,
                "requested_at": now,
            },
        )
        free = Q(claimed_until__isnull=True) | Q(claimed_until__lt=now)
        again = ChatBackfill.objects.filter(pk=row.pk).filter(free)
        if again.update(**_fresh(lead, phone, user, now)):
            enqueue(row.pk)
            row.refresh_from_db()
            started.append(row)
    if not started:
        raise BackfillRefused(_("The history of this chat is being fetched right now."))
    return started


def _fresh(lead: Lead, phone: Phone, user: User, now: datetime) -> dict:
    """A fetch starting over: asked for now, nothing fetched yet."""
    return {
        "lead": lead,
        "phone": phone,
        "status": ChatBackfill.Status.QUEUED,
        "trigger": ChatBackfill.Trigger.PERSON,
        "requested_by": user,
        "requested_at": now,
        "started_at": None,
        "finished_at": None,
        "claimed_until": None,
        "next_page": 1,
        "pages": 0,
        "fetched": 0,
        "stored": 0,
        "already": 0,
        "skipped": 0,
        "end": "",
        "retries": {},
        "retry_at": None,
        "error": "",
        "updated_at": now,
    }


def enqueue(backfill_id: int) -> None:
    """Hand the fetch to a worker once the caller's transaction commits."""
    from hitl.tasks import backfill_chat  # the actor module imports the services

    transaction.on_commit(lambda: backfill_chat.send(backfill_id))


def shown(lead: Lead) -> list[ChatBackfill]:
    """The lead's fetches the page lists, the latest first."""
    return list(
        ChatBackfill.objects.filter(lead=lead)
        .select_related("phone", "requested_by")
        .order_by("-requested_at", "-pk")[:SHOWN]
    )


def in_progress(row: ChatBackfill, now: datetime) -> bool:
    """Queued or fetching, and heard of lately (the page polls it)."""
    active = (ChatBackfill.Status.QUEUED, ChatBackfill.Status.RUNNING)
    return row.status in active and row.updated_at >= now - POLL_FOR
