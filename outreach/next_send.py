"""When can this tenant, phone or lead next send, and why not now: the one answer every
page (dashboard, phone cards, queue view, lead page, the closed-window banner) and the API
read, so they never disagree.

It adds up what already decides a send, read from rows the caller holds: the sending
window (`outreach.hours`), a phone's status and its pacing (`busy_until`, `next_send_at`,
set by `outreach.pacing`), a lead's journey. The moment is computed, never stored; the
words for it are in `outreach.next_send_text`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from enum import StrEnum

from django.utils import timezone

from cerniq.models import Tenant
from outreach import stages
from outreach.hours import Closure, SendingWindow
from outreach.models import Enrollment, Journey, Lead, Message
from whatsapp.models import Phone


class Reason(StrEnum):
    """Why the next send is not now (NOW when it is)."""

    NOW = "now"
    WINDOW_CLOSED = "window_closed"  # see `closure`
    SENDING = "sending"  # a send of the phone is in flight
    PACING = "pacing"  # the pause between two sends of the phone
    PHONE_DISABLED = "phone_disabled"
    PHONE_PAUSED = "phone_paused"
    PHONE_OFFLINE = "phone_offline"
    PHONE_BANNED = "phone_banned"
    SCHEDULED = "scheduled"  # the lead's next step is planned for later (a sequence delay)
    NOTHING_PLANNED = "nothing_planned"  # the lead has no next step
    STALLED = "stalled"  # its running enrollment cannot move on (outreach.stalls says why)
    IN_REVIEW = "in_review"  # the lead waits for a person's review
    TAKEN_OVER = "taken_over"  # a person handles the conversation
    NOT_AUTOMATED = "not_automated"  # the lead's stage is outside automation


NEVER = frozenset(
    {
        Reason.PHONE_DISABLED,
        Reason.PHONE_PAUSED,
        Reason.PHONE_OFFLINE,
        Reason.PHONE_BANNED,
        Reason.NOTHING_PLANNED,
        Reason.STALLED,
        Reason.IN_REVIEW,
        Reason.TAKEN_OVER,
        Reason.NOT_AUTOMATED,
    }
)

_PHONE_DOWN: dict[str, Reason] = {
    Phone.Status.PAUSED: Reason.PHONE_PAUSED,
    Phone.Status.OFFLINE: Reason.PHONE_OFFLINE,
    Phone.Status.BANNED: Reason.PHONE_BANNED,
}


@dataclass(frozen=True)
class NextSend:
    """The next moment something may go out, and why it is not now."""

    at: datetime | None  # None: nothing goes out until a person acts (see `reason`)
    reason: Reason
    closure: Closure | None = None  # the window's state when it is what makes us wait
    holidays: tuple[date, ...] = ()  # public holidays that keep the window shut until `at`
    window: SendingWindow | None = None  # for the words (hours, holiday names)

    @property
    def is_now(self) -> bool:
        return self.reason == Reason.NOW


def next_send_at(
    tenant: Tenant,
    *,
    phone: Phone | None = None,
    lead: Lead | None = None,
    now: datetime | None = None,
    window: SendingWindow | None = None,
) -> NextSend:
    """When the tenant (or one of its phones, or one of its leads) may send automated work
    next. Queries nothing for a tenant or a phone; a lead without a planned step costs one
    query (its queued message). `window`: pass it when answering for many phones."""
    now = now or timezone.now()
    window = window or SendingWindow.for_tenant(tenant)
    if lead is not None:
        return _for_lead(lead, window, now)
    if phone is not None:
        return _for_phone(phone, window, now)
    return _inside_window(window, now, now, Reason.NOW)


def _for_phone(phone: Phone, window: SendingWindow, now: datetime) -> NextSend:
    at, reason = _phone_free(phone, now)
    if at is None:
        return NextSend(None, reason)
    return _inside_window(window, now, at, reason)


def _phone_free(phone: Phone, at: datetime) -> tuple[datetime | None, Reason]:
    """When the phone itself may send at or after `at`: its status, its send in flight,
    its pacing gap (the window aside)."""
    if not phone.is_enabled:
        return None, Reason.PHONE_DISABLED
    if phone.status in _PHONE_DOWN:
        return None, _PHONE_DOWN[phone.status]
    reason = Reason.NOW
    if phone.busy_until and phone.busy_until > at:
        at, reason = phone.busy_until, Reason.SENDING
    if phone.next_send_at and phone.next_send_at > at:
        at, reason = phone.next_send_at, Reason.PACING
    return at, reason


def _for_lead(lead: Lead, window: SendingWindow, now: datetime) -> NextSend:
    journey: Journey | None = getattr(lead, "journey", None)
    if journey is None or journey.stage not in stages.AUTOMATED:
        return NextSend(None, Reason.NOT_AUTOMATED)
    if journey.taken_over_by_id:
        return NextSend(None, Reason.TAKEN_OVER)
    if journey.requires_human_review:
        return NextSend(None, Reason.IN_REVIEW)
    if journey.next_action_at is not None:
        at = max(now, journey.next_action_at)
        return _inside_window(window, now, at, Reason.SCHEDULED if at > now else Reason.NOW)
    queued = (
        Message.objects.filter(
            lead=lead, direction=Message.Direction.OUTBOUND, status=Message.Status.QUEUED
        )
        .select_related("phone")
        .order_by("scheduled_for", "pk")
        .first()
    )
    if queued is None:
        stalled = Enrollment.objects.filter(
            lead=lead, status=Enrollment.Status.ACTIVE, stalled_since__isnull=False
        ).exists()
        return NextSend(None, Reason.STALLED if stalled else Reason.NOTHING_PLANNED)
    at = max(now, queued.scheduled_for or now)
    reason = Reason.SCHEDULED if at > now else Reason.NOW
    if queued.phone is not None:
        free, why = _phone_free(queued.phone, at)
        if free is None:
            return NextSend(None, why)
        if free > at:
            at, reason = free, why
    if queued.is_manual:  # a person's message does not wait for the window
        return NextSend(at, reason, window=window)
    return _inside_window(window, now, at, reason)


def _inside_window(window: SendingWindow, now: datetime, at: datetime, reason: Reason) -> NextSend:
    """`at` itself when the window is open then, else its next opening and why."""
    closure = window.closure(at)
    if closure is None:
        return NextSend(at, reason, window=window)
    opens = window.next_opening(at)
    return NextSend(
        opens,
        Reason.WINDOW_CLOSED,
        closure=closure,
        holidays=window.holidays_until(at, opens),
        window=window,
    )


def phone_answers(
    tenant: Tenant, phones: list[Phone], now: datetime | None = None
) -> dict[int, NextSend]:
    """The answer for each of many phones (one window built, no query)."""
    now = now or timezone.now()
    window = SendingWindow.for_tenant(tenant)
    return {p.pk: next_send_at(tenant, phone=p, now=now, window=window) for p in phones}
