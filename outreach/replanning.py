"""Work queued on a phone that went down goes back to dispatch, on another phone."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from cerniq import reasons
from outreach.models import Journey, Message
from outreach.reasons import REPLANNED
from outreach.sequences import cancel_message
from whatsapp import phones
from whatsapp.models import Phone


@transaction.atomic
def take_phone_offline(phone: Phone, reason: str, *, banned: bool = False) -> int:
    """Phone OFFLINE (or BANNED) + alert, and its queued work re-planned (`replan`).
    Returns how many messages were re-planned."""
    phones.mark_offline(phone, reason, banned=banned)
    return replan(phone)


@transaction.atomic
def pause_phone(phone: Phone, reason: str) -> int:
    """The health guard pauses the phone (outreach.phone_health), and its queued work is
    re-planned onto the phones that can still send. Returns how many messages moved."""
    phones.pause(phone, reason, by_health=True)
    return replan(phone)


def replan(phone: Phone) -> int:
    """The phone's queued messages are cancelled (their quota given back) and their leads
    lose the sticky phone and become due now, so the next dispatch allocates another
    phone. Returns how many messages were re-planned."""
    queued = list(
        Message.objects.filter(
            phone=phone, direction=Message.Direction.OUTBOUND, status=Message.Status.QUEUED
        ).select_related("tenant")
    )
    for message in queued:
        cancel_message(message, reasons.code(REPLANNED, phone=str(phone), status=phone.status))
    Journey.objects.filter(lead_id__in=[m.lead_id for m in queued]).update(
        next_action_at=timezone.now()
    )
    Journey.objects.filter(assigned_phone=phone).update(assigned_phone=None)
    return len(queued)
