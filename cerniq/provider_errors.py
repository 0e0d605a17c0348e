"""Errors every provider backend raises; they carry the retry decision (docs/design.md, retries).

Two roots, so callers can catch broadly: `ProviderError` (may succeed later) and
`PermanentProviderError` (retrying cannot help). The subclasses below say *why*; every
error carries `status_code` (HTTP status, None when no response was received or the call was
refused before any HTTP request), `provider_message` (the provider's own text, unmasked),
`error_code` (the provider's machine code, "" if none) and `uncertain` (True when the request
may have reached the provider, so a send must be reconciled before it is retried).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypedDict


class ErrorDetails(TypedDict, total=False):
    """What a backend passes on to any ProviderError besides its text (`**details`)."""

    status_code: int | None
    provider_message: str
    error_code: str


class ProviderError(Exception):
    """A provider call failed but may succeed later (timeout, 5xx, 429)."""

    uncertain: bool = False

    def __init__(
        self,
        message: str,
        *,
        retry_after: int | None = None,
        status_code: int | None = None,
        provider_message: str = "",
        error_code: str = "",
        uncertain: bool | None = None,
    ) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.status_code = status_code
        self.provider_message = provider_message
        self.error_code = error_code
        if uncertain is not None:
            self.uncertain = uncertain


class PermanentProviderError(ProviderError):
    """Retrying cannot help (invalid number, banned account, other 4xx)."""


# --- transient -------------------------------------------------------------------------


class ProviderTimeout(ProviderError):
    """The request was sent but no answer came in time (read timeout): it may or may not
    have been executed, so a send must be reconciled (e.g. `find_sent`) before a retry."""

    uncertain = True


class ProviderUnavailable(ProviderError):
    """5xx, connection refused/reset, connect timeout, non-JSON gateway pages.

    `uncertain` is False when the request never left (connect failure); it is True when
    the connection broke after the request was written or a gateway 5xx answered a send.
    """


class RateLimited(ProviderError):
    """HTTP 429 rate_limit_exceeded; `retry_after` from Retry-After, else 60 seconds."""


class QuotaExceeded(ProviderError):
    """The provider's messaging quota is used up; `retry_after` points at the next day."""


class RecipientLimited(ProviderError):
    """The provider will not deliver to this person for a while, whoever sends: WhatsApp's
    per-user marketing limit (Cloud API 131049, "wait at least 24 hours"). Retried once,
    not before `retry_after` (24 hours at least); the number itself is not at fault."""


class AlreadyAccepted(ProviderError):
    """The provider already holds a request under this idempotency key (Resend's 409
    `invalid_idempotent_request`): an earlier attempt of the message reached it, so this is
    no failure but the earlier send's echo. The send path records the message as sent
    (the provider id, when the answer carries none, comes with the provider's webhooks)."""


# --- permanent -------------------------------------------------------------------------


class InvalidRecipient(PermanentProviderError):
    """The recipient number is malformed or not on WhatsApp."""


class AccountDisconnected(PermanentProviderError):
    """The sending account is disconnected, suspended or banned (stop using it)."""


class AccountBanned(AccountDisconnected):
    """The provider says the number itself is banned or disabled for policy: WhatsApp Cloud
    API codes 368 (blocked for policy violations) and 131031 (account locked), an
    `account_update` DISABLE (docs/providers.md §4.4). TimelinesAI cannot tell a ban from a
    logout (docs/providers.md §1.7), so its client never raises this."""


class AccountRestricted(AccountDisconnected):
    """The provider limits what the number may send because of its quality: WhatsApp Cloud
    API codes 131048 (too many messages blocked or flagged as spam) and 131064 (messaging
    limit reached for policy). Not banned yet: the number must rest (the health guard
    pauses it) before it is."""


class AuthenticationFailed(PermanentProviderError):
    """Missing/invalid API token, or the token lacks the permission (401, 403)."""


class RejectedRequest(PermanentProviderError):
    """Any other 4xx (404, 413, 422, ...) or a request refused before it was sent."""


@dataclass(frozen=True)
class SendResult:
    """What a provider told us about an accepted send."""

    provider_message_id: str
    raw: dict[str, Any] = field(default_factory=dict)
    thread_id: str = ""
