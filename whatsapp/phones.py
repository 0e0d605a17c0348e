"""Phone health: taking a phone out of rotation and re-planning the work queued on it."""

from __future__ import annotations

from django.db import models, transaction
from django.utils import timezone

from cerniq.alerts import raise_alert, resolve_alerts
from cerniq.models import Alert
from outreach.models import Journey, Message
from outreach.sequences import cancel_message
from whatsapp.models import Phone


@transaction.atomic
def mark_offline(phone: Phone, reason: str, *, banned: bool = False) -> int:
    """Phone OFFLINE (or BANNED) + alert; its queued messages go back to dispatch.

    Returns how many queued messages were re-planned. Their leads lose the sticky phone
    and become due now, so the next dispatch allocates another phone.
    """
    status = Phone.Status.BANNED if banned else Phone.Status.OFFLINE
    Phone.objects.filter(pk=phone.pk).update(
        status=status, status_reason=reason[:255], status_changed_at=timezone.now()
    )
    phone.status, phone.status_reason = status, reason[:255]
    raise_alert(
        phone.tenant,
        Alert.Kind.PHONE_BANNED if banned else Alert.Kind.PHONE_OFFLINE,
        f"phone:{phone.number}",
        f"{phone} is {status.lower()}: {reason}",
        severity=Alert.Severity.CRITICAL,
    )
    queued = list(
        Message.objects.filter(
            phone=phone, direction=Message.Direction.OUTBOUND, status=Message.Status.QUEUED
        ).select_related("tenant")
    )
    for message in queued:
        cancel_message(message, f"phone {phone} went {status.lower()}; re-planned")
    Journey.objects.filter(lead_id__in=[m.lead_id for m in queued]).update(
        next_action_at=timezone.now()
    )
    Journey.objects.filter(assigned_phone=phone).update(assigned_phone=None)
    return len(queued)


def mark_active(phone: Phone) -> None:
    Phone.objects.filter(pk=phone.pk).update(
        status=Phone.Status.ACTIVE, status_reason="", status_changed_at=timezone.now()
    )
    phone.status = Phone.Status.ACTIVE
    resolve_alerts(phone.tenant, Alert.Kind.PHONE_OFFLINE, f"phone:{phone.number}")


OFFLINE_EVENTS = {"whatsapp:account:disconnected", "whatsapp:account:suspended"}
ONLINE_EVENTS = {"whatsapp:account:connected", "whatsapp:account:resumed"}


def handle_account_event(tenant, event) -> None:
    """TimelinesAI account webhooks: disconnected/suspended → offline; (re)connected → active.
    TimelinesAI reports a ban as a disconnect, so a ban is an OFFLINE phone + alert here."""
    phone = (
        Phone.objects.select_related("tenant")
        .filter(tenant=tenant)
        .filter(models.Q(account_id=event.account_id) | models.Q(number=event.phone))
        .first()
    )
    if phone is None:
        return
    if event.event_type in OFFLINE_EVENTS and phone.status == Phone.Status.ACTIVE:
        mark_offline(phone, f"TimelinesAI: {event.event_type.rsplit(':', 1)[-1]}")
    elif event.event_type in ONLINE_EVENTS and phone.status == Phone.Status.OFFLINE:
        mark_active(phone)
