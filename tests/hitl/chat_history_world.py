"""The world of the chat history tests (#24 §5): Ion Popescu (+40722000111), enrolled in a
two-step WhatsApp sequence, got our first message on Monday 23 November 2026 10:00 from
+40740000101 (TimelinesAI) in chat 27616435, the numbers and chat of the recorded
TimelinesAI answers. Before that the two had written to each other from the phone
(`chat_history_page1.json`: 20 November; `_page2.json`: 1–2 October)."""

from __future__ import annotations

import json
from dataclasses import dataclass

import responses
from responses import matchers

from cerniq.models import Tenant
from outreach.models import Lead, Message
from tests.factories import make_message, make_outreach_world
from tests.whatsapp.conftest import API_FIXTURES, BASE
from whatsapp.models import Phone

CHAT = "27616435"
OUR_NUMBER = "+40740000101"
LEAD_NUMBER = "+40722000111"
FIRST_UID = "a5bbb005-37f2-402c-96fa-e479a2e09b02"  # our first message (send_ok.json)
PAGES_URL = f"{BASE}/chats/{CHAT}/messages"
# The chat messages of the two pages, oldest first (a note and a call are left out).
HISTORY_UIDS = [
    "9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d",  # 1 Oct, ours (Delivered)
    "1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e",  # 2 Oct, theirs, an invoice attached
    "e7a8b9c0-d1e2-4f3a-8b4c-5d6e7f8a9b0c",  # 20 Nov 16:05, theirs
    "8d2e4f60-1a3b-4c5d-8e9f-a0b1c2d3e4f5",  # 20 Nov 16:20, ours from the phone (Read)
]


@dataclass
class Contacted:
    lead: Lead
    phone: Phone
    first: Message  # our first message, which taught us the chat


def body(name: str) -> dict:
    return json.loads((API_FIXTURES / name).read_text(encoding="utf-8"))


def contacted(tenant: Tenant) -> Contacted:
    """Ion, enrolled, and our first message to him in the chat (call inside the clock)."""
    world = make_outreach_world(tenant, leads=1, phones=1, steps=2)
    phone = world["phones"][0]
    phone.number, phone.provider = OUR_NUMBER, "timelinesai"
    phone.account_id = "40740000101@s.whatsapp.net"
    phone.save()
    lead = world["leads"][0]
    lead.phone, lead.contact_name = LEAD_NUMBER, "Ion Popescu"
    lead.save()
    first = make_message(
        lead,
        phone=phone,
        status=Message.Status.SENT,
        body="Bună ziua, domnule Popescu! Vă scriu despre semințele de grâu 🌾",
        provider_message_id=FIRST_UID,
        provider_thread_id=CHAT,
        quota_cost=1,
    )
    Message.objects.filter(pk=first.pk).update(sent_at=first.created_at)
    return Contacted(lead=lead, phone=phone, first=first)


def serve_pages(mock: responses.RequestsMock, *pages: dict | tuple[int, dict]) -> None:
    """Answer `GET /chats/27616435/messages?page=n` with the n-th of `pages` (a body, or a
    status and a body)."""
    for number, page in enumerate(pages, start=1):
        status, payload = page if isinstance(page, tuple) else (200, page)
        mock.get(
            PAGES_URL,
            status=status,
            json=payload,
            match=[matchers.query_param_matcher({"page": str(number)}, strict_match=False)],
        )


def both_pages() -> tuple[dict, dict]:
    return body("chat_history_page1.json"), body("chat_history_page2.json")
