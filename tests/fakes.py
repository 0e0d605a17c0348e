"""Provider doubles for tests that measure our behaviour, not the provider's."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar

from cerniq.provider_errors import ProviderError, SendResult
from email_channels.backends import EmailBackend, OutgoingEmail
from integrations.sandbox.whatsapp import SandboxWhatsApp


@dataclass(frozen=True)
class TimedSend:
    account_phone: str
    to: str
    started: float
    ended: float


class TimingWhatsApp(SandboxWhatsApp):
    """Sandbox that takes a little time per send and records when each send ran."""

    sends: ClassVar[list[TimedSend]] = []
    latency: ClassVar[float] = 0.05
    _record_lock: ClassVar[threading.Lock] = threading.Lock()

    def send_to_phone(self, *, account_phone: str, to: str, text: str) -> Any:
        started = time.monotonic()
        time.sleep(self.latency)  # the provider's round trip (the test's, not an actor's)
        result = super().send_to_phone(account_phone=account_phone, to=to, text=text)
        with self._record_lock:
            self.sends.append(TimedSend(account_phone, to, started, time.monotonic()))
        return result


class FakeEmail(EmailBackend):
    """An email provider double for the send path's tests: counts calls, dedupes by
    idempotency key (as Resend does), and fails when told to."""

    def __init__(self, **options: Any) -> None:
        self.calls = 0
        self.emails: list[OutgoingEmail] = []  # every email handed over, retries included
        self.keys: list[str] = []  # the idempotency key of each call
        self.sent: dict[str, SendResult] = {}
        self.fail_with: ProviderError | None = None
        self.fail_lookups_with: ProviderError | None = None
        self.lookups: list[OutgoingEmail | None] = []  # what each find_sent was given

    def send(self, email: OutgoingEmail, *, idempotency_key: str) -> SendResult:
        self.calls += 1
        self.emails.append(email)
        self.keys.append(idempotency_key)
        if self.fail_with is not None:
            raise self.fail_with
        if idempotency_key not in self.sent:
            uid = f"email-{len(self.sent) + 1}"
            self.sent[idempotency_key] = SendResult(uid, {"id": uid})
        return self.sent[idempotency_key]

    def find_sent(
        self,
        *,
        idempotency_key: str,
        to: str,
        since: datetime,
        email: OutgoingEmail | None = None,
    ) -> SendResult | None:
        self.lookups.append(email)
        if self.fail_lookups_with is not None:
            raise self.fail_lookups_with
        return self.sent.get(idempotency_key)


class FakeBulkEmail(FakeEmail):
    """A cold-email provider double with a bulk endpoint (Instantly's leads/add): records
    each call's batch, fails one address or the whole call when told to."""

    max_batch = 3

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.batches: list[list[str]] = []  # the addresses of each call
        self.fail_for: dict[str, ProviderError] = {}
        self.fail_call_with: ProviderError | None = None

    def send_many(self, emails):
        assert len(emails) <= self.max_batch, "the core must respect max_batch"
        self.batches.append([email.to for email, _ in emails])
        if self.fail_call_with is not None:
            raise self.fail_call_with
        results = []
        for email, key in emails:
            if email.to in self.fail_for:
                results.append(self.fail_for[email.to])
            else:
                results.append(self.send(email, idempotency_key=key))
        return results
