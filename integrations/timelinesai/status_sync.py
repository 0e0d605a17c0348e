"""Polling what TimelinesAI does not push: delivery status of our sends and phone health.

Normal (QR) accounts get no delivered/read webhooks, so recent sends are polled through
`/messages/{uid}/status_history` (bounded per run), and `/whatsapp_accounts` tells which
numbers are still connected. Status only moves forward: SENT → DELIVERED → READ.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.utils import timezone

from cerniq import reasons
from cerniq.provider_errors import ProviderError
from cerniq.providers import get_backend
from outreach.models import Channel, Message
from outreach.replanning import take_phone_offline
from whatsapp.models import Phone
from whatsapp.phones import mark_active
from whatsapp.reasons import ACCOUNT_STATUS, PROVIDER_EVENT

log = logging.getLogger(__name__)

PROVIDER = "timelinesai"

RANK: dict[str, int] = {Message.Status.SENT: 1, Message.Status.DELIVERED: 2, Message.Status.READ: 3}
PROVIDER_STATUS = {
    "sent": Message.Status.SENT,
    "delivered": Message.Status.DELIVERED,
    "read": Message.Status.READ,
}
TIMESTAMP_FIELD: dict[str, str] = {
    Message.Status.DELIVERED: "delivered_at",
    Message.Status.READ: "read_at",
}


def newest_status(history: list[dict]) -> str | None:
    """The furthest state the provider reports (case-insensitive; unknown values ignored)."""
    best = None
    for entry in history:
        status = PROVIDER_STATUS.get(str(entry.get("status", "")).strip().lower())
        if status and (best is None or RANK[status] > RANK[best]):
            best = status
    return best


def sync_delivery_status(*, limit: int = 200, max_age: timedelta = timedelta(days=2)) -> int:
    """Advance SENT/DELIVERED messages from the last `max_age`; returns how many moved."""
    since = timezone.now() - max_age
    candidates = (
        Message.objects.filter(
            channel=Channel.WHATSAPP,
            direction=Message.Direction.OUTBOUND,
            status__in=[Message.Status.SENT, Message.Status.DELIVERED],
            sent_at__gte=since,
            phone__provider=PROVIDER,
        )
        .exclude(provider_message_id="")
        .order_by("sent_at")[:limit]
    )
    backend = get_backend("whatsapp.timelinesai")
    moved = 0
    for message in candidates:
        try:
            history = backend.status_history(message.provider_message_id)
        except ProviderError as error:
            log.warning("status sync stopped: %s", error)
            break
        status = newest_status(history)
        if status is None or RANK[status] <= RANK[message.status]:
            continue
        changes = {"status": status, TIMESTAMP_FIELD[status]: timezone.now()}
        # Conditional on the old status, so a concurrent update never moves it backwards.
        moved += Message.objects.filter(pk=message.pk, status=message.status).update(**changes)
    return moved


def sync_phone_status() -> list[str]:
    """Compare our TimelinesAI phones with `/whatsapp_accounts`; returns the changes."""
    phones = list(Phone.objects.select_related("tenant").filter(provider=PROVIDER))
    if not phones:
        return []
    accounts = {
        "".join(ch for ch in str(a.get("phone", "")) if ch.isdigit()): str(a.get("status", ""))
        for a in get_backend("whatsapp.timelinesai").list_accounts()
    }
    changes = []
    now = timezone.now()
    for phone in phones:
        status = accounts.get(phone.number.lstrip("+"), "missing").lower()
        if status != "active" and phone.status == Phone.Status.ACTIVE:
            said = reasons.code(ACCOUNT_STATUS, provider="TimelinesAI", status=status)
            take_phone_offline(phone, said)
            changes.append(f"{phone.number}: ACTIVE → OFFLINE ({status})")
        elif status == "active" and phone.status == Phone.Status.OFFLINE:
            mark_active(phone)
            changes.append(f"{phone.number}: OFFLINE → ACTIVE")
    Phone.objects.filter(pk__in=[p.pk for p in phones]).update(last_health_check_at=now)
    return changes


OFFLINE_EVENTS = {"whatsapp:account:disconnected", "whatsapp:account:suspended"}
ONLINE_EVENTS = {"whatsapp:account:connected", "whatsapp:account:resumed"}


def handle_account_event(tenant, event) -> None:
    """Account webhooks: disconnected/suspended → offline; (re)connected → active.
    TimelinesAI reports a ban as a disconnect, so a ban is an OFFLINE phone + alert here.

    Only the tenant's phone whose `account_id` is the event's account id (a JID, checked
    at the door) is touched: the phone number in the body is never used to find one, so an
    event naming no account of ours, or another tenant's, changes nothing."""
    if not event.account_id:
        return
    phone = (
        Phone.objects.select_related("tenant")
        .filter(tenant=tenant, account_id=event.account_id)
        .first()
    )
    if phone is None:
        log.info(
            "account event %s for %s: no phone with that account id",
            event.event_type,
            event.account_id,
        )
        return
    if event.event_type in OFFLINE_EVENTS and phone.status == Phone.Status.ACTIVE:
        what = event.event_type.rsplit(":", 1)[-1]
        take_phone_offline(phone, reasons.code(PROVIDER_EVENT, provider="TimelinesAI", event=what))
    elif event.event_type in ONLINE_EVENTS and phone.status == Phone.Status.OFFLINE:
        mark_active(phone)
