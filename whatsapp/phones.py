"""A phone's status: the only code that takes a number out of rotation or puts it back.

Work already queued on a phone that goes down is re-planned by outreach.replanning (this
app knows nothing of leads); a paused or disabled phone's queued messages are cancelled
and re-planned by the send path when their turn comes.

Every status change is kept (PhoneStatusChange). A number that comes back from a ban, or
from a disconnection longer than settings.WARMUP_AFTER_OFFLINE_DAYS, starts its warm-up
ramp again (whatsapp.warmup): WhatsApp treats it like a new number.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from cerniq import reasons
from cerniq.alerts import raise_alert, resolve_alerts
from cerniq.models import Alert
from cerniq.outbound.events import emit
from whatsapp import quota
from whatsapp import reasons as codes
from whatsapp.models import MAX_DAILY_LIMIT, Phone, PhoneStatusChange


class PhoneActionRefused(ValueError):
    """The action does not apply to the phone now; the text says why, for the operator."""


def _set_status(phone: Phone, status: str, reason: str = "") -> None:
    now = timezone.now()
    previous = phone.status
    Phone.objects.filter(pk=phone.pk).update(
        status=status, status_reason=reason[:255], status_changed_at=now
    )
    PhoneStatusChange.objects.create(
        tenant_id=phone.tenant_id, phone=phone, status=status, reason=reason[:255], at=now
    )
    phone.status, phone.status_reason, phone.status_changed_at = status, reason[:255], now
    emit(phone.tenant_id, "phone.status_changed", _status_event(phone, previous))


def _status_event(phone: Phone, previous: str) -> dict:
    assert phone.status_changed_at is not None, "the status change sets it before the event"
    return {
        "phone_id": phone.pk,
        "number": phone.number,
        "status": phone.status,
        "previous_status": previous,
        "reason": _in_english(phone.status_reason),  # integrators read one language
        "changed_at": phone.status_changed_at.isoformat(),
    }


def _in_english(stored: str) -> str:
    with translation.override("en"):
        return reasons.render(stored)


def _subject(phone: Phone) -> str:
    return f"phone:{phone.number}"


@transaction.atomic
def mark_offline(phone: Phone, reason: str, *, banned: bool = False) -> None:
    """The provider says the number cannot send: OFFLINE (or BANNED), with an alert."""
    status = Phone.Status.BANNED if banned else Phone.Status.OFFLINE
    _set_status(phone, status, reason)
    raise_alert(
        phone.tenant,
        Alert.Kind.PHONE_BANNED if banned else Alert.Kind.PHONE_OFFLINE,
        _subject(phone),
        reasons.code(codes.ALERT_DOWN, phone=str(phone), status=status, reason=reason),
        severity=Alert.Severity.CRITICAL,
    )


@transaction.atomic
def mark_active(phone: Phone) -> None:
    """The provider says the number is connected again. Back from a ban or a long
    disconnection, it warms up again from day 1."""
    was, since = phone.status, phone.status_changed_at
    long_gone = timedelta(days=settings.WARMUP_AFTER_OFFLINE_DAYS)
    _set_status(phone, Phone.Status.ACTIVE)
    resolve_alerts(phone.tenant, Alert.Kind.PHONE_OFFLINE, _subject(phone))
    resolve_alerts(phone.tenant, Alert.Kind.PHONE_BANNED, _subject(phone))
    if was == Phone.Status.BANNED or (
        was == Phone.Status.OFFLINE and since is not None and timezone.now() - since >= long_gone
    ):
        start_warmup(phone)


def reactivate(phone: Phone) -> None:
    """An operator brings a banned number back (the ban was lifted, or the number was
    registered again): it is active and warms up from day 1."""
    if phone.status != Phone.Status.BANNED:
        raise PhoneActionRefused(_("Only a banned phone can be reactivated."))
    mark_active(phone)


def start_warmup(phone: Phone) -> None:
    """Start the warm-up ramp today; its health record starts over too (a new number),
    and today's limit follows."""
    phone.warmup_started_at = timezone.now()
    Phone.objects.filter(pk=phone.pk).update(warmup_started_at=phone.warmup_started_at)
    set_health(phone, Phone.Health.OK, "")
    quota.follow_limits([phone], quota.quota_day(phone.tenant))


def pause(phone: Phone, reason: str = "", *, by_health: bool = False) -> None:
    """Take an active number out of rotation. `by_health`: the health guard pauses it
    (outreach.phone_health), which it may undo itself when the number recovers. `reason`
    is a stored reason (cerniq.reasons); an operator's pause says so by default."""
    reason = reason or reasons.code(codes.PAUSED_BY_OPERATOR)
    if phone.status != Phone.Status.ACTIVE:
        raise PhoneActionRefused(_("Only an active phone can be paused."))
    with transaction.atomic():
        _set_status(phone, Phone.Status.PAUSED, reason)
        if by_health:
            set_health(phone, Phone.Health.PAUSED, reason)


def resume(phone: Phone, *, by_health: bool = False) -> None:
    """Back into rotation. A number the health guard paused comes back throttled; when an
    operator resumes it, the guard leaves it unpaused for PHONE_HEALTH_OPERATOR_HOLD_HOURS."""
    if phone.status != Phone.Status.PAUSED:
        raise PhoneActionRefused(_("Only a paused phone can be resumed."))
    with transaction.atomic():
        _set_status(phone, Phone.Status.ACTIVE)
        if phone.health == Phone.Health.PAUSED:
            hold = None
            if not by_health:
                hours = settings.PHONE_HEALTH_OPERATOR_HOLD_HOURS
                hold = timezone.now() + timedelta(hours=hours)
            why = codes.RECOVERING if by_health else codes.RESUMED_BY_OPERATOR
            before = codes.before_of(phone.health_reason)
            set_health(phone, Phone.Health.THROTTLED, reasons.code(why, before=before), hold=hold)


def set_health(phone: Phone, health: str, reason: str, *, hold: datetime | None = None) -> None:
    """Record what the health guard decided, with its PHONE_HEALTH alert (raised while
    the number is throttled or paused, resolved when it is healthy); today's limit
    follows a throttle set or lifted. `hold`: no pause by the guard before then."""
    if (phone.health, phone.health_reason) == (health, reason[:255]) and hold is None:
        return
    limits_move = (phone.health == Phone.Health.OK) != (health == Phone.Health.OK)
    changes = {"health": health, "health_reason": reason[:255], "health_changed_at": timezone.now()}
    if hold is not None or health == Phone.Health.OK:
        changes["health_hold_until"] = hold
    Phone.objects.filter(pk=phone.pk).update(**changes)
    for name, value in changes.items():
        setattr(phone, name, value)
    if health == Phone.Health.OK:
        resolve_alerts(phone.tenant, Alert.Kind.PHONE_HEALTH, _subject(phone))
    else:
        paused = health == Phone.Health.PAUSED
        raise_alert(
            phone.tenant,
            Alert.Kind.PHONE_HEALTH,
            _subject(phone),
            reasons.code(codes.ALERT_HEALTH, phone=str(phone), health=health, reason=reason),
            severity=Alert.Severity.CRITICAL if paused else Alert.Severity.WARNING,
        )
    if limits_move:
        quota.follow_limits([phone], quota.quota_day(phone.tenant))


# How long a restriction sign rests a number from new chats: longer each time.
RESTRICTION_COOLDOWNS = (timedelta(hours=24), timedelta(hours=72), timedelta(days=7))


def pause_new_contacts(
    phone: Phone, reason: str, *, now: datetime | None = None, alert: bool = True
) -> datetime:
    """A restriction sign (outreach.restriction_signs): the number starts no new chat until
    the cooldown ends (its day limit is 0; follow-ups in its existing chats go on), then it
    ramps up again from warm-up day 1. Longer each time. When it ends, and whether it did:
    a number already resting keeps its end."""
    now = now or timezone.now()
    with transaction.atomic():
        locked = Phone.objects.select_for_update().get(pk=phone.pk)
        if locked.new_contacts_paused_until and locked.new_contacts_paused_until > now:
            return locked.new_contacts_paused_until
        count = locked.restrictions + 1
        until = now + RESTRICTION_COOLDOWNS[min(count, len(RESTRICTION_COOLDOWNS)) - 1]
        changes = {
            "new_contacts_paused_until": until,
            "restriction_reason": reason[:255],
            "restrictions": count,
            "warmup_started_at": until,  # the reduced ramp after the rest
        }
        Phone.objects.filter(pk=phone.pk).update(**changes)
        for name, value in changes.items():
            setattr(phone, name, value)
        quota.follow_limits([phone], quota.quota_day(phone.tenant, now))
    if alert:
        raise_alert(
            phone.tenant,
            Alert.Kind.PHONE_HEALTH,
            f"{_subject(phone)}:new-contacts",
            reasons.code(
                codes.NEW_CONTACTS_PAUSED, phone=str(phone), until=until.isoformat(), why=reason
            ),
            severity=Alert.Severity.CRITICAL,
        )
    return until


def end_new_contact_pause(phone: Phone) -> None:
    """The rest is over: the alert is resolved; the warm-up ramp sets today's limit."""
    resolve_alerts(phone.tenant, Alert.Kind.PHONE_HEALTH, f"{_subject(phone)}:new-contacts")
    quota.follow_limits([phone], quota.quota_day(phone.tenant))


def set_enabled(phone: Phone, enabled: bool) -> None:
    Phone.objects.filter(pk=phone.pk).update(is_enabled=enabled)
    phone.is_enabled = enabled


def set_daily_limit(phone: Phone, limit: int) -> None:
    """The phone's own new-contact limit a day (the warm-up ramp and the health guard may
    lower a day's limit below it). It applies from the next quota day: today's row keeps
    the limit it was created with (whatsapp.quota)."""
    if not 1 <= limit <= MAX_DAILY_LIMIT:
        raise PhoneActionRefused(
            _("The daily limit must be 1 to %(max)d new contacts.") % {"max": MAX_DAILY_LIMIT}
        )
    Phone.objects.filter(pk=phone.pk).update(daily_limit=limit)
    phone.daily_limit = limit
