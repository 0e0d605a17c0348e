"""Embedded demo: leads "answer" a share of sandbox sends, through the real webhook door.

A reply is posted to /webhooks/timelinesai/<tenant token>/ shaped exactly like
TimelinesAI's `message:received:new`, so review items, AI replies and opt-outs appear
while `make run` is running. Off unless SANDBOX_REPLY_RATE > 0 (make run sets it).
"""

from __future__ import annotations

import logging
import random
import uuid

import requests
from django.conf import settings
from django.utils import timezone

from whatsapp.models import Phone

log = logging.getLogger(__name__)

REPLIES = (  # (weight, text): a realistic mix
    (5, "Bună ziua, da, sunt interesat. Puteți să-mi spuneți mai multe?"),
    (3, "Putem vorbi mâine la ora 10? Mă interesează oferta pentru porumb."),
    (4, "Cât costă azotatul la tona? Ce preț aveți pentru 20 de tone?"),
    (4, "Nu sunt interesat, mulțumesc."),
    (2, "STOP"),
    (2, "Sunt în concediu până pe 15 decembrie, revin atunci."),
    (1, "Am avut o problemă cu ultimul furnizor, vreau să vorbesc cu un manager."),
)


def pick_reply(rng: random.Random) -> str:
    weights, texts = zip(*REPLIES, strict=True)
    return rng.choices(texts, weights=weights, k=1)[0]


def maybe_schedule_reply(account_phone: str, to: str, chat_id: str) -> bool:
    """Called by the sandbox after a send: sometimes the lead answers a bit later."""
    rate = settings.SANDBOX_REPLY_RATE
    if rate <= 0 or random.random() >= rate:  # noqa: S311 - a demo, not crypto
        return False
    from integrations.sandbox.tasks import post_sandbox_reply

    delay_ms = random.randint(*settings.SANDBOX_REPLY_DELAY_SECONDS) * 1000  # noqa: S311
    post_sandbox_reply.send_with_options(args=(account_phone, to, chat_id), delay=delay_ms)
    return True


def reply_payload(account_phone: str, to: str, chat_id: str, text: str) -> dict:
    now = timezone.localtime().strftime("%Y-%m-%d %H:%M:%S %z")
    chat_url = f"https://app.timelines.ai/chat/{chat_id}/messages/"
    return {
        "event_type": "message:received:new",
        "chat": {
            "full_name": "Client demo",
            "chat_url": chat_url,
            "chat_id": int(chat_id),
            "is_group": False,
            "phone": to,
        },
        "whatsapp_account": {
            "full_name": "Cerniq Demo",
            "email": "demo@cerniq.local",
            "phone": account_phone,
        },
        "message": {
            "text": text,
            "direction": "received",
            "origin": "WhatsApp",
            "timestamp": now,
            "received_timestamp": now,
            "message_uid": str(uuid.uuid4()),
            "sender": {"full_name": "Client demo", "phone": to},
            "recipient": {"full_name": "Cerniq Demo", "phone": account_phone},
            "attachments": [],
        },
    }


def post_reply(account_phone: str, to: str, chat_id: str, *, text: str | None = None) -> int:
    """POST one simulated reply to our own webhook endpoint; returns the HTTP status."""
    phone = Phone.objects.select_related("tenant").filter(number=account_phone).first()
    if phone is None:
        return 0
    text = text or pick_reply(random.Random())  # noqa: S311
    url = (
        f"{settings.SANDBOX_WEBHOOK_BASE_URL.rstrip('/')}/webhooks/timelinesai/"
        f"{phone.tenant.webhook_token}/"
    )
    response = requests.post(url, json=reply_payload(account_phone, to, chat_id, text), timeout=10)
    log.info("sandbox reply posted: HTTP %s", response.status_code)
    return response.status_code
