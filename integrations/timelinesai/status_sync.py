"""Polling what TimelinesAI does not push: delivery status of our sends and phone health.

Normal (QR) accounts get no delivered/read webhooks, so recent sends are polled through
`/messages/{uid}/status_history` (bounded per run), and `/whatsapp_accounts` tells which
numbers are still connected. Status only moves forward: SENT → DELIVERED → READ
(outreach.message_status).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta

from django.utils import timezone

from cerniq import reasons
from cerniq.provider_errors import (
    AccountDisconnected,
    AuthenticationFailed,
    PermanentProviderError,
    ProviderError,
    QuotaExceeded,
    RateLimited,
)
from cerniq.providers import get_backend
from outreach.message_status import further
from outreach.models import Channel, Message
from outreach.reasons import STATUS_UNKNOWN
from outreach.whatsapp_status import StatusReport, account_reported, move
from whatsapp.models import Phone
from whatsapp.reasons import ACCOUNT_STATUS, PROVIDER_EVENT

log = logging.getLogger(__name__)

PROVIDER = "timelinesai"

PROVIDER_STATUS = {
    "sent": Message.Status.SENT,
    "delivered": Message.Status.DELIVERED,
    "read": Message.Status.READ,
}


def newest_status(history: list[dict]) -> str | None:
    """The furthest state the provider reports (case-insensitive; unknown values ignored)."""
    best = None
    for entry in history:
        status = PROVIDER_STATUS.get(str(entry.get("status", "")).strip().lower())
        if status and (best is None or further(status, than=best)):
            best = status
    return best


# Errors of the provider as a whole, not of one message: the run stops, the next one retries.
STOP_RUN = (RateLimited, QuotaExceeded, AuthenticationFailed, AccountDisconnected)
# Transient failures in a row after which the provider counts as down for this run.
MAX_FAILURES_IN_A_ROW = 3


@dataclass
class SyncResult:
    moved: int = 0  # messages advanced
    unknown: int = 0  # messages the provider no longer knows: recorded, not polled again
    failed: int = 0  # messages whose poll failed this run (polled again next run)
    stopped: str = ""  # why the run stopped early

    def __str__(self) -> str:
        stopped = f"; stopped: {self.stopped}" if self.stopped else ""
        return f"{self.moved} advanced, {self.unknown} unknown, {self.failed} failed{stopped}"


def sync_delivery_status(*, limit: int = 200, max_age: timedelta = timedelta(days=2)) -> SyncResult:
    """Advance SENT/DELIVERED messages from the last `max_age`, oldest first.

    One message's failure never holds the others back: a message the provider no longer
    knows (a 4xx about it) gets STATUS_UNKNOWN in its `error` and leaves the poll for good;
    a transient failure skips it until the next run. Only a failure of the provider as a
    whole (rate limit, quota, credentials, or MAX_FAILURES_IN_A_ROW transient ones in a
    row) ends the run."""
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
        .exclude(error__startswith=STATUS_UNKNOWN)
        .order_by("sent_at")[:limit]
    )
    backend = get_backend("whatsapp.timelinesai")
    result = SyncResult()
    in_a_row = 0
    for message in candidates:
        try:
            history = backend.status_history(message.provider_message_id)
        except STOP_RUN as error:
            result.stopped = str(error)
            break
        except PermanentProviderError as error:
            _unknown(message, error)
            result.unknown += 1
            continue
        except ProviderError as error:
            result.failed += 1
            in_a_row += 1
            log.warning("status of message %s not read: %s", message.pk, error)
            if in_a_row >= MAX_FAILURES_IN_A_ROW:
                result.stopped = f"{in_a_row} failures in a row, last: {error}"
                break
            continue
        in_a_row = 0
        status = newest_status(history)
        if status is not None:  # never backwards, whoever moved it (the core's rule)
            result.moved += move(message, StatusReport(message.provider_message_id, status))
    if result.stopped:
        log.warning("status sync stopped: %s", result.stopped)
    return result


def _unknown(message: Message, error: ProviderError) -> None:
    """The provider no longer knows the message: say so on it, and poll it no more."""
    log.warning("message %s: unknown to the provider, no longer polled: %s", message.pk, error)
    said = reasons.code(STATUS_UNKNOWN, status=error.status_code or "?")
    Message.objects.filter(pk=message.pk, status=message.status).update(error=said)


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
        said = reasons.code(ACCOUNT_STATUS, provider="TimelinesAI", status=status)
        change = account_reported(phone, connected=status == "active", reason=said)
        if change:
            changes.append(change if status == "active" else f"{change} ({status})")
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
    what = event.event_type.rsplit(":", 1)[-1]
    said = reasons.code(PROVIDER_EVENT, provider="TimelinesAI", event=what)
    if event.event_type in OFFLINE_EVENTS:
        account_reported(phone, connected=False, reason=said)
    elif event.event_type in ONLINE_EVENTS:
        account_reported(phone, connected=True, reason=said)
