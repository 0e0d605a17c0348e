"""The WhatsApp transport (outreach.transports): phones, pacing leases, the backend's own
rendering of a message (the Cloud API), its file uploaded once, a chat found again."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.utils import timezone

from cerniq import reasons
from cerniq.provider_errors import (
    AccountBanned,
    AccountRestricted,
    ProviderError,
    RejectedRequest,
    SendResult,
)
from cerniq.providers import get_backend
from outreach import customer_window, media, pacing, phone_health
from outreach import reasons as codes
from outreach.models import Channel, Journey, Lead, Message, Stage
from outreach.replanning import take_phone_offline
from outreach.spintax import lead_variables
from outreach.transports import (
    LOOKBACK_SKEW,
    Transport,
    recipient,
    recipient_id,
    sending_phone,
    sending_phone_id,
)
from whatsapp import reasons as phone_reasons
from whatsapp.backends import OutgoingWhatsApp, WhatsAppBackend
from whatsapp.models import Phone

# Where a WhatsApp backend's own rendering of a message is kept in `raw_request`
# (WhatsAppBackend.prepare), and the reason it could not be rendered.
PREPARED = "whatsapp_request"
PREPARE_ERROR = "error"
MEDIA_TYPES = ("image", "document")  # a prepared request that sends the message's file


def outgoing_whatsapp(message: Message, phone: Phone) -> OutgoingWhatsApp:
    """What a WhatsApp backend is told of a message it shapes itself."""
    lead = recipient(message)
    return OutgoingWhatsApp(
        tenant_id=message.tenant_id,
        account_phone=phone.number,
        account_id=phone.account_id,
        to=message.counterpart,
        to_user_id=lead.whatsapp_user_id,
        text=message.body,
        template_version_id=message.template_version_id,
        variables=lead_variables(lead),
        window_open=customer_window.is_open(lead.pk, phone.pk, timezone.now()),
        reference=message.idempotency_key or "",
        is_manual=message.is_manual,
        media=media.outgoing(message.media) if message.media else None,
    )


def starts_chat(message: Message) -> bool:
    """A first message: one that costs a new-contact slot, or one the person asked for
    (which costs none, whatsapp.quota.cost) — either way it opens the chat."""
    return bool(message.quota_cost or message.solicited)


class WhatsAppTransport(Transport):
    channel = Channel.WHATSAPP
    label = "WhatsApp"
    contacted_stage = Stage.CONTACTED_WA
    busy_reason = "phone busy or pacing gap"

    def backend(self, phone: Phone) -> WhatsAppBackend:
        return get_backend(f"whatsapp.{phone.provider}")

    def opted_out(self, journey: Journey) -> bool:
        return journey.whatsapp_opted_out

    def blocker(self, message: Message, journey: Journey) -> str:
        phone = message.phone
        if phone is None:
            return reasons.code(codes.NOT_SENT_NO_PHONE)
        if not phone.is_usable:
            Journey.objects.filter(pk=journey.pk).update(next_action_at=timezone.now())
            return reasons.code(codes.REPLANNED, phone=str(phone), status=phone.status)
        return ""

    def acquire(self, message: Message, now: datetime) -> datetime | None:
        return pacing.claim_phone(sending_phone_id(message), now)

    def release(self, message: Message, *, called: bool) -> None:
        if called:
            pacing.finish_send(sending_phone_id(message), message.tenant)
        else:
            pacing.release_unused(sending_phone_id(message))

    def request_to_store(self, message: Message) -> dict[str, Any] | None:
        """What a backend that shapes its own requests (the Cloud API: an approved template
        outside the customer-service window) renders for this message, once; the text the
        person will read becomes the message's body, so the timeline shows what was sent.
        A message that cannot go out as it is keeps the reason, and is prepared again on a
        later attempt (an operator may have approved a template meanwhile)."""
        stored = message.raw_request or {}
        if PREPARED in stored and PREPARE_ERROR not in stored[PREPARED]:
            return None
        phone = sending_phone(message)
        try:
            prepared = self.backend(phone).prepare(outgoing_whatsapp(message, phone))
        except ProviderError as error:
            return {**stored, PREPARED: {PREPARE_ERROR: str(error), "class": type(error).__name__}}
        if prepared is None:
            return None
        text = prepared.get("text")
        if isinstance(text, str) and text.strip() and text != message.body:
            Message.objects.filter(pk=message.pk).update(body=text)
            message.body = text
        return {**stored, PREPARED: prepared}

    def deliver(self, message: Message) -> SendResult:
        phone = sending_phone(message)
        backend = self.backend(phone)
        prepared = (message.raw_request or {}).get(PREPARED)
        if isinstance(prepared, dict) and PREPARE_ERROR in prepared:
            raise RejectedRequest(prepared[PREPARE_ERROR])
        # The file goes up once per account (outreach.media); its failure is a send's.
        file_id = self._media_id(message, phone, backend)
        if isinstance(prepared, dict):
            # An image or document message, or a template whose media header carries it.
            if file_id and (prepared.get("type") in MEDIA_TYPES or prepared.get("header")):
                prepared = {**prepared, "media_id": file_id}
            return backend.send_prepared(
                account_id=phone.account_id,
                to=message.counterpart,
                to_user_id=recipient(message).whatsapp_user_id,
                prepared=prepared,
                reference=message.idempotency_key or "",
            )
        chat_id = message.provider_thread_id or self._known_chat(message, backend)
        if file_id:
            return backend.send_media(
                account_phone=phone.number,
                chat_id="" if starts_chat(message) else chat_id,
                to=message.counterpart,
                text=message.body,
                media_id=file_id,
            )
        if chat_id and not starts_chat(message):
            return backend.send_to_chat(chat_id=chat_id, text=message.body)
        return backend.send_to_phone(
            account_phone=phone.number, to=message.counterpart, text=message.body
        )

    def _media_id(self, message: Message, phone: Phone, backend: WhatsAppBackend) -> str:
        """The provider's id of the message's file on the sending account ("" for none)."""
        if message.media is None:
            return ""
        account = phone.account_id or phone.number
        return media.provider_id(message.media, backend, provider=phone.provider, account=account)

    def _known_chat(self, message: Message, backend: WhatsAppBackend) -> str:
        """The chat of an earlier message to this lead from this phone (follow-ups go there)."""
        if starts_chat(message):
            return ""
        earlier = (
            Message.objects.filter(
                lead_id=recipient_id(message),
                phone_id=sending_phone_id(message),
                channel=Channel.WHATSAPP,
                direction=Message.Direction.OUTBOUND,
            )
            .exclude(provider_thread_id="")
            .values_list("provider_thread_id", flat=True)
            .first()
        )
        if earlier:
            return earlier
        account_id = sending_phone(message).account_id
        chat = backend.find_chat(to=message.counterpart, account_id=account_id)
        return str(chat["id"]) if chat else ""

    def find_earlier(self, message: Message) -> SendResult | None:
        started = message.attempt_started_at or message.updated_at
        phone = sending_phone(message)
        return self.backend(phone).find_sent(
            to=message.counterpart,
            text=message.body,
            since=started - LOOKBACK_SKEW,
            account_id=phone.account_id,
            reference=message.idempotency_key or "",
        )

    def count_sent(self, message: Message, at: datetime) -> None:
        # What the health guard reads (failures since the last send) and the phone pages show.
        pacing.count_send(sending_phone_id(message), new_contact=starts_chat(message), at=at)

    def journey_changes(self, message: Message) -> dict[str, Any]:
        return {"assigned_phone_id": message.phone_id}

    def recipient_invalid(self, message: Message) -> None:
        # "Not on WhatsApp": the number is marked; dispatch falls back to email.
        Lead.objects.filter(pk=recipient_id(message)).update(phone_reachable=False)

    def recipient_confirmed(self, message: Message) -> None:
        # The provider's answer is the check of an unchecked number (never a bulk lookup).
        Lead.objects.filter(pk=recipient_id(message), phone=message.counterpart).exclude(
            phone_reachable=True
        ).update(phone_reachable=True)

    def account_down(self, message: Message, error: ProviderError) -> None:
        """A ban makes the number BANNED, a restriction makes the health guard pause it,
        anything else is a disconnection (OFFLINE); its queued work is re-planned."""
        if isinstance(error, AccountRestricted):
            phone_health.restricted(sending_phone(message), str(error))
        else:
            said = reasons.code(phone_reasons.SEND_FAILED, detail=str(error))
            banned = isinstance(error, AccountBanned)
            take_phone_offline(sending_phone(message), said, banned=banned)

    def provider_name(self, message: Message) -> str:
        return message.phone.provider if message.phone else "whatsapp"
