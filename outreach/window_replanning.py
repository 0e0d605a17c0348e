"""A tenant changes its sending window or pacing: the settings are checked and saved, and the
work already waiting gets new times at once (no pausing and resuming leads by hand).

What waits on the window: a lead's next step (`Journey.next_action_at`, mirrored by its
active `Enrollment.next_run_at`) and automated messages already queued
(`Message.scheduled_for`). A moment the new window closes moves to its next opening. A
moment that sat on an opening of the old window was put off to it (dispatch and the send
path defer to the next opening), so it was wanted since the old window closed: it moves to
the new window's first open moment from then (never before now). Any other moment is a
sequence delay or a retry and stays. Then each phone's planned run follows
(`outreach.pacing.wake`), and email is handed to the broker again (`outreach.delivery`).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, time
from functools import partial
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import holidays
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from cerniq.models import Tenant
from outreach import pacing
from outreach.delivery import enqueue_message, is_pushed, plan_push
from outreach.hours import SendingWindow
from outreach.models import Enrollment, Journey, Message

# Pacing bounds (seconds); the database refuses more than an hour (tenant_pacing_bounded).
PACING_MIN_LOWEST = 5  # below this a number sends like a bot
PACING_MAX = 3600
FIELDS = (
    "time_zone",
    "window_start",
    "window_end",
    "working_days",
    "holiday_country",
    "pacing_min_seconds",
    "pacing_jitter_seconds",
)


@dataclass(frozen=True)
class WindowSettings:
    time_zone: str
    window_start: time
    window_end: time
    working_days: list[int]
    holiday_country: str
    pacing_min_seconds: int
    pacing_jitter_seconds: int


@dataclass(frozen=True)
class Replanned:
    messages: int  # queued messages given a new time
    leads: int  # leads whose next step got a new time

    @property
    def total(self) -> int:
        return self.messages + self.leads


def problems(settings: WindowSettings) -> dict[str, str]:
    """What is wrong with the settings, per field (empty when they can be saved)."""
    found: dict[str, str] = {}
    try:
        ZoneInfo(settings.time_zone)
    except (ZoneInfoNotFoundError, ValueError):
        found["time_zone"] = _("Unknown time zone %(zone)s.") % {"zone": settings.time_zone}
    if not settings.window_start < settings.window_end:
        found["window_end"] = _("The sending hours must end after they start.")
    if not settings.working_days:
        found["working_days"] = _("Choose at least one working day.")
    elif not set(settings.working_days) <= set(range(7)):
        found["working_days"] = _("Working days are Monday to Sunday.")
    country = settings.holiday_country
    if country and country not in holidays.list_supported_countries():
        found["holiday_country"] = _("No public holiday calendar for this country.")
    if not PACING_MIN_LOWEST <= settings.pacing_min_seconds <= PACING_MAX:
        found["pacing_min_seconds"] = _(
            "The pause must be between %(low)s and %(high)s seconds."
        ) % {"low": PACING_MIN_LOWEST, "high": PACING_MAX}
    if not 0 <= settings.pacing_jitter_seconds <= PACING_MAX:
        found["pacing_jitter_seconds"] = _(
            "The random extra must be between 0 and %(high)s seconds."
        ) % {"high": PACING_MAX}
    return found


@transaction.atomic
def change_window(
    tenant: Tenant, settings: WindowSettings, now: datetime | None = None
) -> Replanned:
    """Save the tenant's window and pacing, then re-plan its waiting work to the new window.
    Raises ValidationError (per field) and changes nothing when the settings are wrong."""
    found = problems(settings)
    if found:
        raise ValidationError({field: [message] for field, message in found.items()})
    now = now or timezone.now()
    old = SendingWindow.for_tenant(tenant)
    for field in FIELDS:
        setattr(tenant, field, getattr(settings, field))
    tenant.working_days = sorted(set(settings.working_days))
    tenant.holiday_country = settings.holiday_country.upper()
    tenant.save(update_fields=list(FIELDS))
    return replan_window(tenant, old, SendingWindow.for_tenant(tenant), now)


def replan_window(
    tenant: Tenant, old: SendingWindow, new: SendingWindow, now: datetime
) -> Replanned:
    """Move the tenant's waiting work from the old window to the new one (see the module)."""
    if old == new:
        return Replanned(0, 0)
    journeys = [
        j
        for j in Journey.objects.filter(tenant=tenant, next_action_at__gt=now).only(
            "pk", "lead_id", "next_action_at"
        )
        if _moved(j, "next_action_at", old, new, now)
    ]
    Journey.objects.bulk_update(journeys, ["next_action_at"], batch_size=500)
    leads_by_time: dict[datetime, list[int]] = defaultdict(list)
    for journey in journeys:
        assert journey.next_action_at is not None, "selected by next_action_at__gt, then moved"
        leads_by_time[journey.next_action_at].append(journey.lead_id)
    for at, lead_ids in leads_by_time.items():  # the enrollment mirrors the journey
        Enrollment.objects.filter(lead_id__in=lead_ids, status=Enrollment.Status.ACTIVE).update(
            next_run_at=at
        )
    messages = [
        m
        for m in Message.objects.filter(
            tenant=tenant,
            direction=Message.Direction.OUTBOUND,
            status=Message.Status.QUEUED,
            is_manual=False,  # a person's message does not wait for the window
            scheduled_for__gt=now,
        ).only(
            "pk",
            "tenant_id",
            "phone_id",
            "channel",
            "status",
            "provider_thread_id",
            "scheduled_for",
        )
        if _moved(m, "scheduled_for", old, new, now)
    ]
    Message.objects.bulk_update(messages, ["scheduled_for"], batch_size=500)
    _hand_over(messages)
    return Replanned(messages=len(messages), leads=len(journeys))


def _hand_over(messages: list[Message]) -> None:
    """Once committed: one planned run per phone (its first message's time), one cold push
    for the tenant, one broker message per warm email (a stale copy of it finds the window
    shut or the row taken, so it sends nothing twice)."""
    phone_runs: dict[int, datetime] = {}
    push_at: datetime | None = None
    for message in messages:
        at = message.scheduled_for
        assert at is not None, "selected by scheduled_for__gt, then moved"
        if message.phone_id:
            phone_runs[message.phone_id] = min(at, phone_runs.get(message.phone_id, at))
        elif is_pushed(message):
            push_at = min(at, push_at or at)
        else:
            transaction.on_commit(partial(enqueue_message, message), robust=True)
    for phone_id, at in sorted(phone_runs.items()):
        transaction.on_commit(partial(pacing.wake, phone_id, at), robust=True)
    if push_at is not None:
        tenant_id = messages[0].tenant_id
        transaction.on_commit(partial(plan_push, tenant_id, push_at), robust=True)


def _moved(row: Journey | Message, field: str, old: SendingWindow, new: SendingWindow, now) -> bool:
    """Give `row.field` its time under the new window; True when it changed."""
    at: datetime = getattr(row, field)
    wanted_from = old.opened_for(at)
    start = max(now, wanted_from) if wanted_from is not None else at
    replanned = new.next_opening(start)
    if replanned == at:
        return False
    setattr(row, field, replanned)
    return True
