"""The WhatsApp Cloud API's webhook changes → the core's WhatsApp rules.

Only mapping lives here: an inbound message goes to hitl.whatsapp_inbound, a status to
outreach.whatsapp_status (statuses only move forward there, so Meta's out-of-order and
repeated statuses are harmless), an account change to the same module's account rules.

Every change names the number it is about (`metadata.phone_number_id`); a number that is
not one of the workspace's Cloud API phones changes nothing (one workspace never acts on
another's numbers, whatever a signed payload says).
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime

from django.db import IntegrityError, transaction

from cerniq import reasons
from cerniq.models import Tenant
from hitl import whatsapp_inbound
from integrations.meta import errors, schemas
from integrations.meta.models import MessagingLimit, SeenSend
from outreach import optout
from outreach.models import Channel, Journey, Lead, Message
from outreach.whatsapp_status import StatusReport, account_reported, status_reported
from whatsapp.models import Phone
from whatsapp.reasons import PROVIDER_EVENT

log = logging.getLogger(__name__)

PROVIDER = "meta"
STATUSES = {
    "sent": Message.Status.SENT,
    "delivered": Message.Status.DELIVERED,
    "read": Message.Status.READ,
    "played": Message.Status.READ,  # a voice message listened to: read
    "failed": Message.Status.FAILED,
}
MEDIA = ("image", "document", "audio", "video", "sticker")


def _when(timestamp: str) -> datetime:
    return datetime.fromtimestamp(int(timestamp), tz=UTC)


def our_phone(tenant: Tenant, phone_number_id: str) -> Phone | None:
    return Phone.objects.filter(
        tenant=tenant, provider=PROVIDER, account_id=phone_number_id
    ).first()


def messages_change(tenant: Tenant, value: schemas.MessagesValue) -> None:
    phone = our_phone(tenant, value.metadata.phone_number_id)
    if phone is None:
        log.info("Cloud API change for number id %s: not ours", value.metadata.phone_number_id)
        return
    people = {c.wa_id: c for c in value.contacts if c.wa_id}
    people.update({c.user_id: c for c in value.contacts if c.user_id})
    for message in value.messages:
        if message.type == "system" and message.system is not None:
            _system(tenant, message)
        else:
            _inbound(tenant, phone, message, people)
    for status in value.statuses:
        _status(tenant, status)
    for error in value.errors:
        log.warning("Cloud API error for number %s: %s %s", phone.number, error.code, error.title)
    for preference in value.user_preferences:
        _preference(tenant, preference)


def _inbound(tenant: Tenant, phone: Phone, message: schemas.InboundMessage, people: dict) -> None:
    sender = message.from_ or ""
    contact = people.get(sender) or people.get(message.from_user_id)
    user_id = message.from_user_id or (contact.user_id if contact else "")
    text = message.text.body if message.text else ""
    attachments = []
    for kind in MEDIA:
        media = getattr(message, kind, None)
        if media is not None:
            attachments.append(
                {
                    "type": kind,
                    "media_id": media.id,
                    "mime_type": media.mime_type,
                    "filename": media.filename,
                }
            )
            text = text or media.caption
    if message.button is not None:
        text = text or message.button.text
    name = contact.profile.name if contact and contact.profile else ""
    whatsapp_inbound.receive(
        tenant,
        whatsapp_inbound.WhatsAppInbound(
            provider_message_id=message.id,
            text=text,
            sent_at=_when(message.timestamp),
            our_number=phone.number,
            our_account_id=phone.account_id,
            sender_phone=f"+{sender}" if sender.isdigit() else "",
            sender_user_id=user_id,
            sender_name=name,
            attachments=tuple(attachments),
            origin="WhatsApp Cloud API",
            extra=(("type", message.type),),
        ),
    )


def _system(tenant: Tenant, message: schemas.InboundMessage) -> None:
    """The person changed number (or WhatsApp id): the lead follows."""
    system = message.system
    assert system is not None, "caller checked"
    old = message.from_ or ""
    lead = whatsapp_inbound.find_lead(
        tenant, phone=f"+{old}" if old.isdigit() else "", user_id=message.from_user_id
    )
    if lead is None:
        return
    if system.type == "user_changed_number":
        new = system.new_wa_id or system.wa_id
        if new.isdigit() and not Lead.objects.filter(tenant=tenant, phone=f"+{new}").exists():
            lead.phone = f"+{new}"
            lead.save(update_fields=["phone", "updated_at"])
    elif system.type == "user_changed_user_id" and system.user_id:
        Lead.objects.filter(pk=lead.pk).update(whatsapp_user_id=system.user_id)


def _status(tenant: Tenant, status: schemas.Status) -> None:
    mapped = STATUSES.get(status.status.lower())
    if status.biz_opaque_callback_data and mapped != Message.Status.FAILED:
        _seen(tenant, status)
    if mapped is None:
        return
    error = None
    if status.errors:
        first = status.errors[0]
        details = str((first.error_data or {}).get("details") or "")
        error = errors.from_code(first.code, first.message or first.title, details=details)
    status_reported(tenant, StatusReport(status.id, mapped, _when(status.timestamp), error))


def _seen(tenant: Tenant, status: schemas.Status) -> None:
    """Keep the reference Meta echoed: a send whose answer we lost is found by it."""
    try:
        with transaction.atomic():
            SeenSend.objects.get_or_create(
                tenant=tenant,
                reference=status.biz_opaque_callback_data,
                defaults={"wamid": status.id, "recipient": status.recipient_id},
            )
    except IntegrityError:
        pass  # seen at the same moment by another worker


def _preference(tenant: Tenant, preference: schemas.Preference) -> None:
    """The person told WhatsApp to stop our marketing messages: an opt-out, as a "stop"."""
    if preference.value.lower() != "stop":
        return
    phone = f"+{preference.wa_id}" if preference.wa_id.isdigit() else ""
    lead = whatsapp_inbound.find_lead(tenant, phone=phone, user_id=preference.user_id)
    if lead is None or not Journey.objects.filter(lead=lead).exists():
        return
    with transaction.atomic():
        optout.opt_out(lead, Channel.WHATSAPP)


# --- account ------------------------------------------------------------------------------

BANNED = {"DISABLE", "SCHEDULE_FOR_DISABLE"}
REINSTATED = {"REINSTATE"}


def account_change(tenant: Tenant, update: schemas.AccountUpdate) -> list[str]:
    """`account_update`: a ban, a restriction, a reinstatement, a reconnection or the
    account gone, for the number it names or else every Cloud API number of ours."""
    phones = Phone.objects.filter(tenant=tenant, provider=PROVIDER)
    digits = "".join(ch for ch in update.phone_number if ch.isdigit())
    if digits:
        phones = phones.filter(number=f"+{digits}")
    event = update.event.upper()
    state = str((update.ban_info or {}).get("waba_ban_state") or "").upper()
    said = reasons.code(PROVIDER_EVENT, provider="WhatsApp Cloud API", event=event.lower())
    changes = []
    for phone in phones:
        if event == "DISABLED_UPDATE" and state in BANNED:
            change = account_reported(phone, connected=False, banned=True, reason=said)
        elif event == "DISABLED_UPDATE" and state in REINSTATED:
            change = account_reported(phone, connected=True, reinstated=True, reason=said)
        elif event in ("ACCOUNT_RESTRICTION", "ACCOUNT_VIOLATION"):
            change = account_reported(phone, connected=True, restricted=True, reason=said)
        elif event in ("ACCOUNT_DELETED", "ACCOUNT_OFFBOARDED"):
            change = account_reported(phone, connected=False, reason=said)
        elif event == "ACCOUNT_RECONNECTED":
            change = account_reported(phone, connected=True, reason=said)
        else:
            change = ""
        if change:
            changes.append(change)
    return changes


def quality_change(tenant: Tenant, update: schemas.QualityUpdate) -> str:
    """`phone_number_quality_update`: Meta flagged the number for low quality (many blocks
    or reports): it rests like a restricted number before Meta restricts it. Other events
    (unflagged, tier changes) change nothing here."""
    if update.event.upper() != "FLAGGED":
        return ""
    digits = "".join(ch for ch in update.display_phone_number if ch.isdigit())
    phone = Phone.objects.filter(tenant=tenant, provider=PROVIDER, number=f"+{digits}").first()
    if phone is None:
        return ""
    said = reasons.code(PROVIDER_EVENT, provider="WhatsApp Cloud API", event="quality flagged")
    return account_reported(phone, connected=True, restricted=True, reason=said)


def capability_change(tenant: Tenant, update: schemas.CapabilityUpdate) -> None:
    """The portfolio's messaging limit changed (-1: unlimited)."""
    raw = update.max_daily_conversations_per_business
    if raw is None:
        return
    try:
        limit = int(raw)
    except ValueError:
        log.warning("Cloud API messaging limit not understood: %r", raw)
        return
    MessagingLimit.objects.update_or_create(
        tenant=tenant,
        defaults={"unique_users_per_day": None if limit < 0 else limit, "source": "meta"},
    )
