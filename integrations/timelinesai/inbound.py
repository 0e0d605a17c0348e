"""TimelinesAI message and chat events → the core's inbound WhatsApp rules
(hitl.whatsapp_inbound): replies from leads, our own sends coming back with their chat, and
new chats linked to the lead's messages from that phone (so follow-ups go into the chat).

Only the mapping of TimelinesAI's parsed events (receiver.py) lives here."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cerniq.models import Tenant
from hitl import whatsapp_inbound
from integrations.timelinesai.schemas import phone_of_jid

if TYPE_CHECKING:
    from integrations.timelinesai.receiver import WhatsAppChatEvent, WhatsAppMessageEvent


def handle_received(tenant: Tenant, msg: WhatsAppMessageEvent) -> None:
    """A lead (or an unknown sender) wrote to one of our numbers."""
    whatsapp_inbound.receive(
        tenant,
        whatsapp_inbound.WhatsAppInbound(
            provider_message_id=msg.message_uid,
            text=msg.text or "",
            sent_at=msg.timestamp,
            our_number=msg.account_phone,
            sender_phone=msg.sender_phone or "",
            sender_name=msg.sender_name or "",
            chat_id=msg.chat_id or "",
            chat_url=msg.chat_url or "",
            attachments=msg.attachments,
            origin=msg.origin,
        ),
    )


def handle_sent(tenant: Tenant, msg: WhatsAppMessageEvent) -> None:
    """A send came back (`message:sent:new`): ours learns its chat, another is kept."""
    whatsapp_inbound.record_echo(
        tenant,
        whatsapp_inbound.WhatsAppEcho(
            provider_message_id=msg.message_uid,
            text=msg.text or "",
            sent_at=msg.timestamp,
            our_number=msg.account_phone,
            recipient_phone=msg.recipient_phone or "",
            chat_id=msg.chat_id or "",
            chat_url=msg.chat_url or "",
            attachments=msg.attachments,
            origin=msg.origin,
        ),
    )


def handle_chat_new(tenant: Tenant, chat: WhatsAppChatEvent) -> None:
    """`chat:new`: a direct chat on one of our accounts (groups change nothing)."""
    if chat.is_group or not chat.contact_phone:
        return
    whatsapp_inbound.link_chat(
        tenant,
        chat_id=chat.chat_id,
        chat_url=chat.chat_url,
        contact_phone=chat.contact_phone,
        account_id=chat.account_id,
        account_number=phone_of_jid(chat.account_id),
    )
