"""Resend email backend — the real API (docs/providers.md §3): `POST /emails`, one email a call,
and `GET /emails/receiving/{id}` for the body of a reply we received (inbound.py).

`Authorization: Bearer <key>`, a `User-Agent` (without one Resend's WAF answers 403
"error 1010"), JSON in and out, explicit (connect, read) timeouts, no redirects followed.

Idempotency: every send carries `Idempotency-Key` = the message's key. Resend answers a
repeated key with the first send's answer for 24 hours instead of sending again, so a retry
after a timeout or a 5xx (`uncertain=True`) reuses the key and can never send twice. There
is no look-up by key, so `find_sent` returns None: after the 5-minute reconcile window
(outreach/sending.py) the send path sends again with the same key, which Resend dedupes.
Resend dedupes only a byte-identical body (another body under a used key is a 409
`invalid_idempotent_request`): the core renders an email once and every attempt hands us
the stored rendering (outreach.transports), and `request_body` and the JSON encoding below
are deterministic, so attempts of one email are the same bytes. A 409 of that kind still
means an earlier attempt got through (errors.py: `AlreadyAccepted`), never a failure.

Rate limits (errors.py reads the headers): a deployment-wide ceiling of `max_per_second`
sends (RESEND_MAX_PER_SECOND, 100 by default, the seeds' q:email:warm pace), lowered to
Resend's own `ratelimit-limit` when it announces less, is taken from Dramatiq's rate limiter
backend (Redis in production: shared by every worker process). A send over it, or while
Resend has said "0 remaining" or answered 429, raises `RateLimited` before any HTTP.

The client makes exactly one HTTP call per send and never retries itself: it raises the
`cerniq.provider_errors` class that tells the send path what to do (errors.py). Arguments
are checked first; a bad one raises a permanent error with `status_code=None`.

Replies: with RESEND_INBOUND_DOMAIN set, every email says `Reply-To:` the routed address of
its message (reply_address.py), so the lead's answer comes back as `email.received`. An
answer in a thread (`in_reply_to` = the Message-ID of the email answered) carries
`In-Reply-To` and `References`, so the lead's mail client threads it.
"""

from __future__ import annotations

import base64
import json
import logging
import re
from datetime import datetime
from typing import Any
from urllib.parse import quote

from django_dramatiq import apps as django_dramatiq_apps
from dramatiq.rate_limits import WindowRateLimiter

from cerniq.logging import mask_pii
from cerniq.provider_errors import (
    AuthenticationFailed,
    InvalidRecipient,
    ProviderUnavailable,
    RateLimited,
    RejectedRequest,
    SendResult,
)
from cerniq.provider_http import ProviderHTTP
from email_channels.addresses import address_in
from email_channels.backends import MAX_ATTACHMENT_BYTES, EmailBackend, OutgoingEmail
from integrations.resend import errors
from integrations.resend.reply_address import reply_address
from integrations.resend.schemas import is_email

logger = logging.getLogger(__name__)

API_BASE = "https://api.resend.com"
VERSION = "0.1"
USER_AGENT = f"cerniq-outreach/{VERSION}"
DEFAULT_TIMEOUT = (5.0, 30.0)  # connect, read (seconds)
DEFAULT_MAX_PER_SECOND = 100
RATE_LIMIT_KEY = "resend-send"  # one window for the whole deployment (Resend limits per team)
IDEMPOTENCY_KEY_MAX = 256
SUBJECT_MAX = 998  # RFC 5322 line length: a longer subject is folded or refused downstream
MAX_TAGS = 50
TAG_MAX = 256
_TAG = re.compile(r"[A-Za-z0-9_-]{1,256}")
_MESSAGE_ID = re.compile(r"<[^\s<>]{1,994}>")
_RECEIVED_ID = re.compile(r"[A-Za-z0-9_-]{1,100}")


DOMAIN_PAGES = 10  # 1,000 domains: more than any account here has


class ResendEmail(EmailBackend):
    # No email goes out without its sender; without an inbound domain emails go out, but
    # the replies to them never reach us (cerniq.checks warns at start-up for both).
    required_options = ("from_address", "inbound_domain")

    def __init__(
        self,
        *,
        api_key: str = "",
        base_url: str = API_BASE,
        from_address: str = "",
        max_per_second: int | str = DEFAULT_MAX_PER_SECOND,
        inbound_domain: str = "",
        timeout: tuple[float, float] = DEFAULT_TIMEOUT,
        **_: Any,  # webhook_secret: the receiver's
    ) -> None:
        self._key = (api_key or "").strip()
        self.base_url = (base_url or API_BASE).rstrip("/")
        self.from_address = (from_address or "").strip()
        self.inbound_domain = (inbound_domain or "").strip().lower()
        if self.inbound_domain and not is_email(f"reply@{self.inbound_domain}"):
            raise ValueError(f"RESEND_INBOUND_DOMAIN is not a domain: {self.inbound_domain!r}")
        self.max_per_second = int(max_per_second or DEFAULT_MAX_PER_SECOND)
        if self.max_per_second < 1:
            raise ValueError("max_per_second must be at least 1")
        self.http = ProviderHTTP(
            "Resend",
            self.base_url,
            timeout=timeout,
            headers={"Authorization": f"Bearer {self._key}", "User-Agent": USER_AGENT},
            default_retry_after=errors.DEFAULT_RETRY_AFTER,
        )
        self.timeout = self.http.timeout

    def __repr__(self) -> str:  # never show the key
        return f"<ResendEmail {self.base_url}>"

    def sender_address(self) -> str:
        """RESEND_FROM's address ("Agro Demo <oferte@agrofirma.ro>" → oferte@agrofirma.ro)."""
        return address_in(self.from_address).lower()

    # --- the interface -------------------------------------------------------------------

    def send(self, email: OutgoingEmail, *, idempotency_key: str) -> SendResult:
        """`POST /emails`. Raises a `cerniq.provider_errors` class on any failure."""
        body = self.request_body(email)
        _check_idempotency_key(idempotency_key)
        if not self._key:
            raise AuthenticationFailed("Resend API key is not configured (RESEND_API_KEY)")
        self._take_a_slot()
        payload = self._request("POST", "/emails", body, idempotency_key)
        email_id = payload.get("id")
        if not isinstance(email_id, str) or not email_id:
            # 2xx without an id: it may have been accepted; the retry's key settles it.
            raise ProviderUnavailable(
                f"Resend POST /emails: 2xx without an id: {_excerpt(payload)}",
                status_code=200,
                uncertain=True,
            )
        return SendResult(email_id, raw=payload)

    def find_sent(
        self,
        *,
        idempotency_key: str,
        to: str,
        since: datetime,
        email: OutgoingEmail | None = None,
    ) -> SendResult | None:
        """Resend cannot be asked by idempotency key (and listing sent emails is not in the
        API we use), so nothing is found: the send path then sends again with the same key,
        which Resend answers with the first send for 24 hours (our reconcile window is 5
        minutes), never with a second email."""
        return None

    # --- the request ---------------------------------------------------------------------

    def request_body(self, email: OutgoingEmail) -> dict[str, Any]:
        """The JSON of `POST /emails`, checked before any HTTP.

        `html` only when the core wrote one. A plain-text email is what warm email is here
        (a person writing to a company), Resend accepts text alone, and an HTML part made
        up from the text would be a second rendering to keep equal and nothing more.
        """
        if not self.from_address:
            raise RejectedRequest("Resend sender is not configured (RESEND_FROM)")
        if not isinstance(email.to, str) or not is_email(email.to):
            raise InvalidRecipient(f"not an email address: {mask_pii(str(email.to))[:80]!r}")
        subject = email.subject or ""
        if not subject.strip() or len(subject) > SUBJECT_MAX or "\n" in subject:
            raise RejectedRequest("subject is empty, longer than 998 characters or multi-line")
        if not (email.text or "").strip() and not (email.html or "").strip():
            raise RejectedRequest("the email has neither text nor html")
        if email.attachment_bytes > MAX_ATTACHMENT_BYTES:
            raise RejectedRequest(
                f"attachments total {email.attachment_bytes} bytes; "
                f"at most {MAX_ATTACHMENT_BYTES} are sent (Resend: 40 MB after base64)"
            )
        body: dict[str, Any] = {
            "from": self.from_address,
            "to": [email.to],
            "subject": subject,
            "text": email.text or "",
        }
        if email.html:
            body["html"] = email.html
        reply_to = email.reply_to or self.routed_reply_to(email)
        if reply_to:
            if not is_email(reply_to):
                raise RejectedRequest(f"reply_to is not an email address: {reply_to!r}")
            body["reply_to"] = reply_to
        headers = dict(email.headers or {})
        if email.in_reply_to and _MESSAGE_ID.fullmatch(email.in_reply_to):
            headers.update({"In-Reply-To": email.in_reply_to, "References": email.in_reply_to})
        if headers:
            body["headers"] = _headers(headers)
        if email.attachments:
            body["attachments"] = [
                {
                    "filename": a.filename,
                    "content": base64.b64encode(a.content).decode("ascii"),
                    "content_type": a.content_type,
                }
                for a in email.attachments
            ]
        if email.tags:
            body["tags"] = _tags(email.tags)
        return body

    def routed_reply_to(self, email: OutgoingEmail) -> str:
        """The reply address of the message the tags name, when an inbound domain is set
        ("" otherwise: replies then go to the sender address)."""
        tags = email.tags or {}
        tenant_id, message_id = str(tags.get("tenant_id", "")), str(tags.get("message_id", ""))
        if not (self.inbound_domain and tenant_id.isdigit() and message_id.isdigit()):
            return ""
        return reply_address(
            self.inbound_domain, tenant_id=int(tenant_id), message_id=int(message_id)
        )

    # --- received mail -------------------------------------------------------------------

    def domains(self) -> list[dict[str, Any]]:
        """`GET /domains`: the account's domains (`{object: "list", has_more, data}`), their
        verification `status` and `capabilities`; pages followed with `after`."""
        found: list[dict[str, Any]] = []
        after = ""
        for _ in range(DOMAIN_PAGES):
            page = self._request("GET", "/domains?limit=100" + (f"&after={after}" if after else ""))
            items = [d for d in page.get("data") or [] if isinstance(d, dict)]
            found += items
            if not page.get("has_more") or not items:
                break
            after = str(items[-1].get("id") or "")
        return found

    def domain(self, domain_id: str) -> dict[str, Any]:
        """`GET /domains/{id}`: one domain with its DNS `records`, each with its `status`."""
        return self._request("GET", f"/domains/{quote(domain_id, safe='')}")

    def received_email(self, email_id: str) -> dict[str, Any]:
        """`GET /emails/receiving/{email_id}`: a received email with its `text`, `html` and
        `headers` (the webhook carries none of them). Raises a `cerniq.provider_errors`
        class on any failure; the webhook's processing then fails and is retried."""
        if not isinstance(email_id, str) or not _RECEIVED_ID.fullmatch(email_id):
            raise RejectedRequest(f"not a received email id: {str(email_id)[:40]!r}")
        if not self._key:
            raise AuthenticationFailed("Resend API key is not configured (RESEND_API_KEY)")
        wait = errors.paused_for()
        if wait:
            raise RateLimited(f"Resend asked us to wait {wait} s", retry_after=wait)
        return self._request("GET", f"/emails/receiving/{email_id}")

    # --- rate limits ---------------------------------------------------------------------

    def _take_a_slot(self) -> None:
        """One send's slot in this second, for the whole deployment, or RateLimited."""
        wait = errors.paused_for()
        if wait:
            raise RateLimited(
                f"Resend asked us to wait {wait} s (ratelimit-remaining 0 or 429)",
                retry_after=wait,
            )
        limit = min(self.max_per_second, errors.announced_limit() or self.max_per_second)
        backend = django_dramatiq_apps.RATE_LIMITER_BACKEND
        limiter = WindowRateLimiter(backend, RATE_LIMIT_KEY, limit=limit, window=1)
        with limiter.acquire(raise_on_failure=False) as acquired:
            if not acquired:
                raise RateLimited(f"over {limit} Resend sends per second", retry_after=1)

    # --- HTTP ----------------------------------------------------------------------------

    def _request(
        self,
        method: str,
        path: str,
        body: dict[str, Any] | None = None,
        idempotency_key: str = "",
    ) -> dict[str, Any]:
        headers = {"Idempotency-Key": idempotency_key} if idempotency_key else None
        answer = self.http.request(method, path, json_body=body, headers=headers)
        errors.remember_limits(answer.headers)
        payload = answer.payload
        if answer.ok and payload is not None:
            return payload
        raise errors.classify(self.http, answer)


# --- checks -------------------------------------------------------------------------------


def _check_idempotency_key(key: str) -> None:
    if not isinstance(key, str) or not 1 <= len(key) <= IDEMPOTENCY_KEY_MAX:
        raise RejectedRequest("Idempotency-Key must be 1 to 256 characters")
    if not key.isascii() or not key.isprintable():
        raise RejectedRequest("Idempotency-Key must be printable ASCII (an HTTP header)")


def _headers(headers: Any) -> dict[str, str]:
    """Custom headers (List-Unsubscribe, List-Unsubscribe-Post), refused when one could
    break the message's header block."""
    checked = {}
    for name, value in headers.items():
        if not re.fullmatch(r"[A-Za-z0-9-]{1,76}", str(name)):
            raise RejectedRequest(f"not a header name: {str(name)[:80]!r}")
        if not isinstance(value, str) or "\r" in value or "\n" in value:
            raise RejectedRequest(f"header {name} has a value that is not one line")
        checked[str(name)] = value
    return checked


def _tags(tags: Any) -> list[dict[str, str]]:
    """`[{"name", "value"}]`. A tag outside Resend's alphabet (ASCII letters, digits, `_`,
    `-`, at most 256) is refused, not rewritten: tags are ids we generate (the tenant's, the
    message's), so a bad one is our bug, and a rewritten tenant tag would no longer match
    when its webhook comes back (receiver.py)."""
    if len(tags) > MAX_TAGS:
        raise RejectedRequest(f"{len(tags)} tags; at most {MAX_TAGS} are sent")
    checked = []
    for name, value in tags.items():
        for part in (name, value):
            if not isinstance(part, str) or not _TAG.fullmatch(part):
                raise RejectedRequest(
                    f"tag {str(name)[:40]!r}: names and values are ASCII letters, digits, "
                    f"'_' or '-', 1 to {TAG_MAX} characters; got {str(part)[:40]!r}"
                )
        checked.append({"name": name, "value": value})
    return checked


# --- responses ----------------------------------------------------------------------------


def _excerpt(payload: dict[str, Any]) -> str:
    return mask_pii(json.dumps(payload, ensure_ascii=False)[:200])
