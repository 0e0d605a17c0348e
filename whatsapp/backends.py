"""The interface every WhatsApp backend implements: each method the core calls on one.

Backends raise `cerniq.provider_errors` classes (never their HTTP library's), so the send
path applies one retry table to every provider.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from cerniq.provider_errors import RejectedRequest, SendResult

# The longest WhatsApp text we send: the smallest limit of the providers we use
# (TimelinesAI's `text` takes 2,000 characters). Templates, manual messages, AI replies
# and every backend's own check use this one number.
MAX_TEXT = 2000


@dataclass(frozen=True)
class OutgoingMedia:
    """The image or PDF a WhatsApp message carries (outreach.media checked its bytes)."""

    id: int  # ours (MediaFile): the provider's id is found when the message is sent
    filename: str
    content_type: str  # image/jpeg, image/png or application/pdf
    kind: str  # "image" or "document"
    size: int


@dataclass(frozen=True)
class OutgoingWhatsApp:
    """What the core knows of a WhatsApp message about to go out, for a backend that must
    shape it itself (`WhatsAppBackend.prepare`): the Cloud API sends an approved template
    outside the 24-hour customer-service window and free text only inside it."""

    tenant_id: int
    account_phone: str  # our number, E.164
    account_id: str  # the provider's id of our number
    to: str  # E.164 ("" when only the user id is known)
    to_user_id: str  # the provider's id of the person (Meta's BSUID), "" when unknown
    text: str  # the rendered text (spintax chosen)
    template_version_id: int | None  # the version it was rendered from (None: a person's)
    variables: dict[str, str] = field(default_factory=dict)  # the lead's template variables
    window_open: bool = False  # the person wrote to this number in the last 24 hours
    reference: str = ""  # our idempotency key, echoed back by providers that can
    is_manual: bool = False
    media: OutgoingMedia | None = None  # the file it carries, its text being the caption


@dataclass(frozen=True)
class PastMessage:
    """One earlier message of a chat as the provider keeps it (`chat_history`), either way:
    `from_me` for ours (sent from any of the account's devices), else the person's."""

    provider_message_id: str
    chat_id: str
    from_me: bool
    text: str  # "" for an attachment without caption
    sent_at: datetime | None  # WhatsApp's time, aware; None when the provider gives none
    our_number: str = ""  # E.164 of our account in the chat
    contact_phone: str = ""  # E.164 of the person
    status: str = ""  # the provider's word for an outbound one (Sent, Delivered, Read…)
    origin: str = ""
    attachments: tuple[dict, ...] = ()


@dataclass(frozen=True)
class HistoryPage:
    """One page of a chat's history, newest first: the chat messages on it (`messages`),
    how many entries the provider returned (`seen`: notes and calls too) and whether an
    older page follows."""

    number: int
    messages: tuple[PastMessage, ...]
    seen: int
    has_more: bool


class WhatsAppBackend(ABC):
    # False for backends that talk to nobody (the sandbox): no credentials to check.
    needs_credentials: bool = True
    # True for backends that only pretend to send (refused in production, see cerniq.checks).
    is_sandbox: bool = False
    # False for backends whose sends never get a delivered tick (the sandbox): the health
    # guard (outreach.phone_health) then ignores the share of undelivered first messages.
    reports_delivery: bool = True
    # True for backends whose `chat_history` reads a chat's earlier messages (the core
    # backfills a chat once it is known: hitl.chat_backfill).
    reads_history: bool = False
    # How long the provider keeps an uploaded file (`upload_media`); None: until deleted.
    media_lifetime: timedelta | None = None

    @abstractmethod
    def send_to_phone(self, *, account_phone: str, to: str, text: str) -> SendResult:
        """First message to a number, from the given sending account."""

    @abstractmethod
    def send_to_chat(self, *, chat_id: str, text: str) -> SendResult:
        """A follow-up into an existing chat (the chat's account sends it)."""

    @abstractmethod
    def find_chat(self, *, to: str, account_id: str = "") -> dict[str, Any] | None:
        """The chat with `to` on the given account (`{"id": …}`), or None."""

    @abstractmethod
    def find_sent(
        self, *, to: str, text: str, since: datetime, account_id: str = "", reference: str = ""
    ) -> SendResult | None:
        """An outbound message with this text to `to` sent at or after `since`, or None.
        The send path's reconciliation: it decides whether a lost attempt went out.
        `reference` is our idempotency key, for providers that echo it back."""

    @abstractmethod
    def list_accounts(self) -> list[dict[str, Any]]:
        """The provider's sending accounts: `{"id", "phone", "status"}` each."""

    @abstractmethod
    def account_status(self, account_phone: str) -> str | None:
        """ "active", "disconnected", … for one account; None when the provider has none."""

    # --- shaping a message (optional) ------------------------------------------------------

    def prepare(self, outgoing: OutgoingWhatsApp) -> dict[str, Any] | None:
        """The request this provider will send for a message, rendered once and stored
        with it (every attempt sends the same), with `"text"` being what the person will
        read. None (the default): plain text through `send_to_phone` / `send_to_chat`.
        Raise a `PermanentProviderError` when the message cannot be sent as it is (no
        approved template outside the customer-service window)."""
        return None

    def send_prepared(
        self, *, account_id: str, to: str, to_user_id: str, prepared: dict[str, Any], reference: str
    ) -> SendResult:
        """Send what `prepare` rendered."""
        raise NotImplementedError(f"{type(self).__name__} prepares nothing")

    # --- media (optional) ------------------------------------------------------------------

    def upload_media(
        self, *, account_id: str, content: bytes, filename: str, content_type: str
    ) -> str:
        """Upload a file for the account `account_id` → the provider's id to send it by
        (outreach.media.provider_id calls it once per file and account)."""
        raise RejectedRequest(f"{type(self).__name__} sends no images or documents")

    def send_media(
        self, *, account_phone: str, chat_id: str, to: str, text: str, media_id: str
    ) -> SendResult:
        """An uploaded file (`media_id`) with `text` as its caption: into the chat when
        `chat_id`, else to the number `to` from `account_phone`. A backend that `prepare`s
        its requests gets the id in the prepared request instead (`"media_id"`)."""
        raise RejectedRequest(f"{type(self).__name__} sends no images or documents")

    # --- a chat's history (optional) -------------------------------------------------------

    def chat_history(
        self, *, chat_id: str, since: datetime, start_page: int = 1
    ) -> Iterator[HistoryPage]:
        """The chat's messages from `since` on, newest first, one page at a time from
        `start_page`, each requested only when the caller asks for it (the caller decides
        how many). Raises `cerniq.provider_errors` classes, as the sends do."""
        raise NotImplementedError(f"{type(self).__name__} reads no chat history")
