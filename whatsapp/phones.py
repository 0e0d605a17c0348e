"""A phone's status: the only code that takes a number out of rotation or puts it back.

Work already queued on a phone that goes down is re-planned by outreach.replanning (this
app knows nothing of leads); a paused or disabled phone's queued messages are cancelled
and re-planned by the send path when their turn comes.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from cerniq.alerts import raise_alert, resolve_alerts
from cerniq.models import Alert
from whatsapp.models import Phone


class PhoneActionRefused(ValueError):
    """The action does not apply to the phone now; the text says why, for the operator."""


def _set_status(phone: Phone, status: str, reason: str = "") -> None:
    Phone.objects.filter(pk=phone.pk).update(
        status=status, status_reason=reason[:255], status_changed_at=timezone.now()
    )
    phone.status, phone.status_reason = status, reason[:255]


@transaction.atomic
def mark_offline(phone: Phone, reason: str, *, banned: bool = False) -> None:
    """The provider says the number cannot send: OFFLINE (or BANNED), with an alert."""
    status = Phone.Status.BANNED if banned else Phone.Status.OFFLINE
    _set_status(phone, status, reason)
    raise_alert(
        phone.tenant,
        Alert.Kind.PHONE_BANNED if banned else Alert.Kind.PHONE_OFFLINE,
        f"phone:{phone.number}",
        f"{phone} is {status.lower()}: {reason}",
        severity=Alert.Severity.CRITICAL,
    )


def mark_active(phone: Phone) -> None:
    """The provider says the number is connected again."""
    _set_status(phone, Phone.Status.ACTIVE)
    resolve_alerts(phone.tenant, Alert.Kind.PHONE_OFFLINE, f"phone:{phone.number}")


def pause(phone: Phone, reason: str = "paused by an operator") -> None:
    if phone.status != Phone.Status.ACTIVE:
        raise PhoneActionRefused(_("Only an active phone can be paused."))
    _set_status(phone, Phone.Status.PAUSED, reason)


def resume(phone: Phone) -> None:
    if phone.status != Phone.Status.PAUSED:
        raise PhoneActionRefused(_("Only a paused phone can be resumed."))
    _set_status(phone, Phone.Status.ACTIVE)


def set_enabled(phone: Phone, enabled: bool) -> None:
    Phone.objects.filter(pk=phone.pk).update(is_enabled=enabled)
    phone.is_enabled = enabled
