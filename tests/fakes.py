"""Provider doubles for tests that measure our behaviour, not the provider's."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any, ClassVar

from whatsapp.providers.sandbox import SandboxWhatsApp


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
