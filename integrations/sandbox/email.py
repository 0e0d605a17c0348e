"""Sandbox email backend for embedded mode: records sends (Resend-shaped ids), sends nothing.

Like Resend, a repeated idempotency key returns the first send instead of a second one.
"""

from __future__ import annotations

import threading
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import validate_email

from cerniq.provider_errors import PermanentProviderError, SendResult
from email_channels.backends import EmailBackend, OutgoingEmail
from integrations.sandbox.demo_email import maybe_schedule_events


@dataclass(frozen=True)
class SandboxEmailSend:
    to: str
    subject: str
    text: str
    headers: dict[str, str]
    email_id: str


class SandboxEmail(EmailBackend):
    needs_credentials = False  # records sends; talks to nobody
    is_sandbox = True

    def __init__(self, **options: Any) -> None:
        self.options = options
        self.outbox: list[SandboxEmailSend] = []
        self._by_key: dict[str, SendResult] = {}
        self._lock = threading.Lock()
        self.paused: set[str] = set()

    def send(self, email: OutgoingEmail, *, idempotency_key: str) -> SendResult:
        try:
            validate_email(email.to)
        except ValidationError:
            raise PermanentProviderError(f"Invalid `to` field: {email.to!r}") from None
        with self._lock:
            if idempotency_key in self._by_key:
                return self._by_key[idempotency_key]
            email_id = str(uuid.uuid4())
            self.outbox.append(
                SandboxEmailSend(email.to, email.subject, email.text, dict(email.headers), email_id)
            )
            result = SendResult(email_id, {"id": email_id})
            self._by_key[idempotency_key] = result
        maybe_schedule_events(email, email_id)  # the demo: the provider reports back later
        return result

    def find_sent(
        self,
        *,
        idempotency_key: str,
        to: str,
        since: datetime,
        email: OutgoingEmail | None = None,
    ) -> SendResult | None:
        with self._lock:
            return self._by_key.get(idempotency_key)

    # The demo's campaigns: nothing to call; they always answer as a healthy campaign would.
    def activate_campaign(self, external_id: str) -> None:
        self.paused.discard(external_id)

    def pause_campaign(self, external_id: str) -> None:
        self.paused.add(external_id)

    def campaign_status(self, external_id: str) -> str:
        return "paused" if external_id in self.paused else "healthy"
