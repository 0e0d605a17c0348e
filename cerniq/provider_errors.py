"""Errors every provider backend raises; they carry the retry decision (SPEC retry table)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


class ProviderError(Exception):
    """A provider call failed but may succeed later (timeout, 5xx, 429)."""

    def __init__(self, message: str, *, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class PermanentProviderError(ProviderError):
    """Retrying cannot help (invalid number, banned account, other 4xx)."""


@dataclass(frozen=True)
class SendResult:
    """What a provider told us about an accepted send."""

    provider_message_id: str
    raw: dict[str, Any] = field(default_factory=dict)
    thread_id: str = ""
