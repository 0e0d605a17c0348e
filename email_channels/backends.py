"""The interface every email backend implements: each method the core calls on one."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from cerniq.provider_errors import ProviderError, SendResult

# Largest attachment total per email we hand to a provider (Resend takes 40 MB after
# base64, docs/providers.md §3.2; base64 grows bytes by 4/3, and a proforma is far smaller).
MAX_ATTACHMENT_BYTES = 25 * 1024 * 1024


@dataclass(frozen=True)
class EmailAttachment:
    filename: str
    content: bytes
    content_type: str = "application/octet-stream"


@dataclass(frozen=True)
class OutgoingEmail:
    """One email as the core hands it to a backend. `headers` carry List-Unsubscribe and
    List-Unsubscribe-Post (RFC 8058); `tags` identify the tenant and the message at the
    provider, so its webhooks can be checked against what we sent."""

    to: str
    subject: str
    text: str
    html: str = ""
    reply_to: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)
    attachments: tuple[EmailAttachment, ...] = ()
    tags: Mapping[str, str] = field(default_factory=dict)
    # Cold email: the campaign the recipient joins at the provider (Instantly sends from
    # campaigns); our key for it (`tenant:<id>:sequence:<id>`), which the backend maps to
    # the provider's campaign. Empty for single sends.
    campaign: str = ""
    # An answer in an existing thread: the provider's id of the email answered (Instantly's
    # `reply_to_uuid`) and the sender account that received it (Instantly's `eaccount`).
    in_reply_to: str = ""
    sender: str = ""

    @property
    def attachment_bytes(self) -> int:
        return sum(len(a.content) for a in self.attachments)

    def stored(self) -> dict[str, Any]:
        """The email as JSON, to keep with its message: every attempt after the first sends
        what was rendered for the first (a provider that dedupes on its idempotency key wants
        the same request each time). Headers and tags are [name, value] pairs, since
        PostgreSQL's jsonb does not keep an object's key order. Attachments are left out:
        they are stored files of the message, read again for each attempt."""
        return {
            "to": self.to,
            "subject": self.subject,
            "text": self.text,
            "html": self.html,
            "reply_to": self.reply_to,
            "headers": [[name, value] for name, value in self.headers.items()],
            "tags": [[name, value] for name, value in self.tags.items()],
            "campaign": self.campaign,
            "in_reply_to": self.in_reply_to,
            "sender": self.sender,
        }

    @classmethod
    def from_stored(
        cls, data: Mapping[str, Any], attachments: tuple[EmailAttachment, ...] = ()
    ) -> OutgoingEmail:
        """The email `stored()` kept, with the message's attachments."""
        return cls(
            to=data["to"],
            subject=data["subject"],
            text=data["text"],
            html=data.get("html", ""),
            reply_to=data.get("reply_to", ""),
            headers=dict(data.get("headers", [])),
            attachments=attachments,
            tags=dict(data.get("tags", [])),
            campaign=data.get("campaign", ""),
            in_reply_to=data.get("in_reply_to", ""),
            sender=data.get("sender", ""),
        )


@dataclass(frozen=True)
class SentQuery:
    """One earlier send to look for at the provider (`EmailBackend.find_sent_many`): the
    arguments of `find_sent`."""

    idempotency_key: str
    to: str
    since: datetime
    email: OutgoingEmail | None = None


class EmailBackend(ABC):
    needs_credentials: bool = True
    is_sandbox: bool = False
    # Options the backend cannot send without, besides its credentials (cerniq.checks warns
    # at start-up when one is empty, instead of every send failing).
    required_options: tuple[str, ...] = ()
    # How many emails one provider call takes (Instantly's bulk lead add: 1,000). Above 1
    # the core hands this channel's due messages over in batches (outreach.pushing).
    max_batch: int = 1

    def sender_address(self) -> str:
        """The address our sends go from (lowercased), for the reputation guard
        (email_channels.reputation); "" when the provider picks the mailbox (Instantly)."""
        return ""

    @abstractmethod
    def send(self, email: OutgoingEmail, *, idempotency_key: str) -> SendResult:
        """Send one email. The same `idempotency_key` must never send a second email:
        the provider answers the first send instead."""

    @abstractmethod
    def find_sent(
        self,
        *,
        idempotency_key: str,
        to: str,
        since: datetime,
        email: OutgoingEmail | None = None,
    ) -> SendResult | None:
        """The send made with this key, if the provider has it (reconciliation of an
        attempt whose worker died), else None. `email` is what was being sent, for a
        provider that must recognise a send by its content (an answer in a thread)."""

    def find_sent_many(self, sends: Sequence[SentQuery]) -> list[SendResult | None]:
        """`find_sent` for several sends (reconciling a batch whose outcome is unknown): one
        answer per send, in order; a ProviderError raised when the provider cannot be
        asked. A backend that can look many up in one call overrides this."""
        return [
            self.find_sent(idempotency_key=q.idempotency_key, to=q.to, since=q.since, email=q.email)
            for q in sends
        ]

    def send_many(
        self, emails: Sequence[tuple[OutgoingEmail, str]]
    ) -> list[SendResult | ProviderError]:
        """Send several (email, idempotency key) pairs: one result per pair, in order; a
        pair that failed gets its ProviderError instead of raising, so one bad address does
        not fail the others. A backend with a bulk endpoint overrides this."""
        results: list[SendResult | ProviderError] = []
        for email, key in emails:
            try:
                results.append(self.send(email, idempotency_key=key))
            except ProviderError as error:
                results.append(error)
        return results

    # Campaign control, for providers that send from campaigns (Instantly). The others have
    # none: the operator pages only offer these for a provider's campaigns.
    def activate_campaign(self, external_id: str) -> None:
        """Start or resume the campaign at the provider."""
        raise NotImplementedError(f"{type(self).__name__} has no campaigns")

    def pause_campaign(self, external_id: str) -> None:
        """Stop the campaign sending at the provider (its leads stay)."""
        raise NotImplementedError(f"{type(self).__name__} has no campaigns")

    def campaign_status(self, external_id: str) -> str:
        """Why the campaign is (not) sending, in the provider's words ("" if unknown)."""
        raise NotImplementedError(f"{type(self).__name__} has no campaigns")
