"""Embedded demo: the email sandbox behaves like the real providers from outside.

After a sandbox send, and only while SANDBOX_REPLY_RATE > 0 (`make run` sets it), the
recipient "acts" a little later and the provider tells us so through our real webhook door:

- a cold email (it joins a campaign, `OutgoingEmail.campaign`) gets Instantly-shaped events:
  `email_sent`, often `email_opened`, sometimes `reply_received`, a few `email_bounced` and
  `lead_unsubscribed`, with the `x-webhook-secret` header Instantly would send;
- a warm email gets Resend-shaped events: `email.delivered`, often `email.opened`, a few
  `email.bounced`, rarely `email.complained`, Svix-signed.

The payloads start from each integration's recorded fixtures (found through the registry,
never by importing another integration) and are signed by its receiver's `delivery()`, so
they pass the same strict checks as the real ones.
"""

from __future__ import annotations

import json
import logging
import random
import uuid
from datetime import UTC, datetime

import requests
from django.conf import settings

from cerniq import integrations
from cerniq.models import Tenant
from cerniq.webhooks import get_receiver
from email_channels.backends import OutgoingEmail

log = logging.getLogger(__name__)

BOUNCE_RATE = 0.03  # of sandbox emails: enough to see bounces, under the shield's 3 %
OPEN_RATE = 0.45
UNSUBSCRIBE_RATE = 0.01
COMPLAINT_RATE = 0.005
COLD_REPLIES = (
    "Bună ziua, ne interesează. Ce preț aveți pentru 200 ha?",
    "Mulțumesc, nu avem nevoie momentan.",
    "Vă rog să nu îmi mai scrieți.",
    "Sunt plecat până luni, revin atunci.",
)


def story(email: OutgoingEmail, rng: random.Random) -> list[str]:
    """The events a sandbox recipient of `email` produces, in order."""
    if email.campaign:  # cold: Instantly sent it from a campaign
        if rng.random() < BOUNCE_RATE:
            return ["email_sent", "email_bounced"]
        events = ["email_sent"]
        if rng.random() < OPEN_RATE:
            events.append("email_opened")
        if rng.random() < settings.SANDBOX_REPLY_RATE:
            events.append("reply_received")
        elif rng.random() < UNSUBSCRIBE_RATE:
            events.append("lead_unsubscribed")
        return events
    if rng.random() < BOUNCE_RATE:
        return ["email.bounced"]
    events = ["email.delivered"]
    if rng.random() < OPEN_RATE:
        events.append("email.opened")
    if rng.random() < COMPLAINT_RATE:
        events.append("email.complained")
    return events


def maybe_schedule_events(email: OutgoingEmail, email_id: str) -> bool:
    """Called by the sandbox after a send."""
    if settings.SANDBOX_REPLY_RATE <= 0 or not email.tags.get("tenant_id"):
        return False
    from integrations.sandbox.tasks import post_sandbox_email_event

    rng = random.Random()  # noqa: S311 - a demo, not crypto
    low, high = settings.SANDBOX_REPLY_DELAY_SECONDS
    delay = 0
    for event in story(email, rng):
        delay += rng.randint(low, high) * 1000
        post_sandbox_email_event.send_with_options(
            args=(event, email.tags["tenant_id"], email.to, email.subject, email_id),
            delay=delay,
        )
    return True


def _fixture(key: str, name: str) -> dict:
    declared = integrations.get(key)
    if declared is None or declared.fixtures is None:
        raise LookupError(f"integration {key!r} is not registered")
    return json.loads((declared.fixtures / f"{name}.json").read_text(encoding="utf-8"))


def _iso(at: datetime) -> str:
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{at.microsecond // 1000:03d}Z"


def payload(event: str, tenant: Tenant, to: str, subject: str, email_id: str) -> tuple[str, dict]:
    """(integration key, body) of a sandbox event, from that integration's fixture."""
    now = datetime.now(UTC)
    if "." in event:  # Resend
        body = _fixture("resend", event.replace(".", "_"))
        body["created_at"] = _iso(now)
        body["data"].update(email_id=email_id, to=[to], subject=subject or "(fără subiect)")
        body["data"]["tags"] = {"tenant_id": str(tenant.pk)}
        return "resend", body
    body = _fixture("instantly", event)
    body.update(timestamp=_iso(now), lead_email=to, email_subject=subject or "(fără subiect)")
    body["email_id"] = str(uuid.uuid4()) if event == "reply_received" else email_id
    if event == "reply_received":
        text = random.choice(COLD_REPLIES)  # noqa: S311
        body.update(reply_text=text, reply_text_snippet=text[:100], reply_html=f"<div>{text}</div>")
        body["reply_subject"] = f"Re: {subject}"[:255]
    return "instantly", body


def post_event(event: str, tenant_id: str, to: str, subject: str, email_id: str) -> int:
    """POST one sandbox event to our own webhook endpoint, signed as the provider would."""
    tenant = Tenant.objects.get(pk=int(tenant_id))
    key, body = payload(event, tenant, to, subject, email_id)
    raw = json.dumps(body, ensure_ascii=False).encode()
    receiver = get_receiver(key)
    if receiver is None:
        log.info("sandbox email event %s skipped: %s is not registered", event, key)
        return 0
    token, headers = receiver.delivery(tenant, raw)
    base = settings.SANDBOX_WEBHOOK_BASE_URL.rstrip("/")
    url = f"{base}/webhooks/{key}/{token}/" if token else f"{base}/webhooks/{key}/"
    response = requests.post(
        url, data=raw, headers={"Content-Type": "application/json", **headers}, timeout=10
    )
    log.info("sandbox %s event %s for %s: %s", key, event, email_id, response.status_code)
    return response.status_code
