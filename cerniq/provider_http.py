"""The one way a provider client speaks HTTP: session, timeouts, error mapping, Retry-After,
the "may have reached the provider" rule and logging with secrets masked.

Every client (TimelinesAI, Instantly, Resend, the AI backend, and each provider added later)
makes its calls through `ProviderHTTP.request`, so a connect timeout, a reset connection, a
gateway's HTML page or a 429 mean the same thing whoever answered: the same
`cerniq.provider_errors` class, hence the same row of the retry table (cerniq.retry).

| what happened                                  | raised                                        |
| connect timeout, refused, DNS, TLS             | ProviderUnavailable, never uncertain          |
| read timeout (the request was written)         | ProviderTimeout, uncertain for a send         |
| connection broken after the request was written| ProviderUnavailable, uncertain for a send     |
| any HTTP status                                | returned as an `Answer`, for the client's own |
|                                                | rows first, then `error()`:                   |
| 429                                            | RateLimited (Retry-After: seconds or a date)  |
| 401, 403                                       | AuthenticationFailed                          |
| 5xx, or a 2xx whose body is not what was asked | ProviderUnavailable, uncertain for a send     |
|                                                | (503: the request was not taken)              |
| other 4xx                                      | RejectedRequest                               |

Headers given to the client (tokens) are never logged; the logged path and query go through
`mask_pii`, and an `access_token` in a query string is blanked.
"""

from __future__ import annotations

import json
import logging
import math
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

import requests
from requests.structures import CaseInsensitiveDict
from urllib3.exceptions import ConnectTimeoutError, MaxRetryError, NewConnectionError

from cerniq.logging import mask_pii
from cerniq.provider_errors import (
    AuthenticationFailed,
    ErrorDetails,
    ProviderError,
    ProviderTimeout,
    ProviderUnavailable,
    RateLimited,
    RejectedRequest,
)

logger = logging.getLogger(__name__)

USER_AGENT = "CerniqOutreach/0.1 (+https://cerniq.app)"
EXCERPT = 200  # characters of a body quoted in an error
_SECRET_QUERY = re.compile(r"((?:access_token|api_key|key|token)=)[^&]*", re.IGNORECASE)


def failed_before_sending(exc: requests.exceptions.RequestException) -> bool:
    """True when the connection was never established (refused, DNS, TLS, proxy): the
    request cannot have reached the provider. Any other connection error may have come
    after the provider read it, so a send that failed so is uncertain."""
    if isinstance(exc, requests.exceptions.SSLError | requests.exceptions.ProxyError):
        return True
    if isinstance(exc, requests.exceptions.ConnectTimeout):
        return True
    reason = exc.args[0] if exc.args else None
    if isinstance(reason, MaxRetryError):
        reason = reason.reason
    return isinstance(reason, NewConnectionError | ConnectTimeoutError)


def json_object(content: bytes) -> dict[str, Any] | None:
    """The body as a JSON object, or None (not UTF-8, not JSON, not an object: an HTML
    error page from a gateway, an empty answer)."""
    try:
        parsed = json.loads(content.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    return parsed if isinstance(parsed, dict) else None


def json_value(content: bytes) -> Any:
    """The body as any JSON value; raises ValueError when it is not JSON."""
    try:
        return json.loads(content.decode("utf-8")) if content else {}
    except UnicodeDecodeError as exc:
        raise ValueError("not UTF-8") from exc


def retry_after_seconds(headers: Mapping[str, str] | None, default: int) -> int:
    """`Retry-After` as seconds (a number, or an HTTP date turned into the time left);
    `default` when it is absent or unreadable."""
    value = str(CaseInsensitiveDict(headers or {}).get("Retry-After") or "").strip()
    if not value:
        return default
    if value.isdigit():
        return int(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return default
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0, math.ceil((when - datetime.now(UTC)).total_seconds()))


def masked(text: str) -> str:
    """A path or query fit for a log line: secrets in the query blanked, PII masked."""
    return mask_pii(_SECRET_QUERY.sub(r"\1***", text))


@dataclass(frozen=True)
class Answer:
    """A provider's HTTP answer, whatever its status."""

    status: int
    headers: Mapping[str, str]
    content: bytes
    where: str  # "METHOD path" as logged (masked)
    sends: bool

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    @property
    def payload(self) -> dict[str, Any] | None:
        return json_object(self.content)

    def excerpt(self) -> str:
        text = self.content.decode("utf-8", errors="replace")
        return mask_pii(" ".join(text[:EXCERPT].split()))


class ProviderHTTP:
    """One provider's HTTP: base URL, fixed headers (tokens), timeouts, a name for logs."""

    def __init__(
        self,
        name: str,
        base_url: str,
        *,
        timeout: tuple[float, float] | float = (5.0, 30.0),
        headers: Mapping[str, str] | None = None,
        auth: Any = None,
        fresh_connection: bool = False,
        default_retry_after: int = 60,
    ) -> None:
        self.name = name
        self.base_url = base_url.rstrip("/")
        connect, read = timeout if isinstance(timeout, tuple) else (timeout, timeout)
        if connect <= 0 or read <= 0:
            raise ValueError("timeout must be a (connect, read) pair of positive seconds")
        self.timeout = (float(connect), float(read))
        self._headers = {
            "Accept": "application/json",
            "User-Agent": USER_AGENT,
            **(headers or {}),
        }
        self._auth = auth
        # TimelinesAI's Cloudflare answers 403 after ~100 requests on one keep-alive
        # connection: such a provider gets a new connection per call.
        self.fresh_connection = fresh_connection
        if fresh_connection:
            self._headers["Connection"] = "close"
        self.default_retry_after = default_retry_after

    def __repr__(self) -> str:  # never show the headers (tokens)
        return f"<ProviderHTTP {self.name} {self.base_url}>"

    def request(
        self,
        method: str,
        path: str,
        *,
        params: list[tuple[str, str]] | Mapping[str, str] | None = None,
        json_body: Any = None,
        form: Mapping[str, str] | None = None,
        files: Mapping[str, tuple[str, bytes, str]] | None = None,
        headers: Mapping[str, str] | None = None,
        sends: bool | None = None,
    ) -> Answer:
        """One HTTP call. Transport failures are raised mapped; every status is returned.
        `files` (name → (filename, bytes, content type)) with `form` makes a multipart body."""
        sends = method.upper() != "GET" if sends is None else sends
        all_headers = {**self._headers, **(headers or {})}
        data: bytes | Mapping[str, str] | None = None
        if json_body is not None:
            data = json.dumps(json_body, ensure_ascii=False, separators=(",", ":")).encode()
            all_headers["Content-Type"] = "application/json; charset=utf-8"
        elif form is not None:
            data = form
        query = _query_text(params)
        where = f"{method} {masked(path + query)}"
        started = time.monotonic()
        try:
            response = self._send(method, path, params, data, all_headers, files)
            content = response.content
        except requests.exceptions.RequestException as exc:
            raise self._transport_error(where, exc, sends) from exc
        elapsed_ms = (time.monotonic() - started) * 1000
        logger.info(
            "%s %s -> HTTP %s (%.0f ms)", self.name, where, response.status_code, elapsed_ms
        )
        return Answer(response.status_code, response.headers, content, where, sends)

    def _send(
        self,
        method: str,
        path: str,
        params: Any,
        data: Any,
        headers: dict[str, str],
        files: Any = None,
    ) -> requests.Response:
        arguments: dict[str, Any] = {
            "params": params,
            "data": data,
            "headers": headers,
            "allow_redirects": False,
        }
        if files:
            arguments["files"] = files
        if self._auth is not None:
            arguments["auth"] = self._auth
        url = self.base_url + path
        if self.fresh_connection:
            with requests.Session() as session:
                response = session.request(method, url, timeout=self.timeout, **arguments)
                _ = response.content  # read before the session closes
                return response
        return requests.request(method, url, timeout=self.timeout, **arguments)

    def _transport_error(
        self, where: str, exc: requests.exceptions.RequestException, sends: bool
    ) -> ProviderError:
        cls: type[ProviderError]
        if isinstance(exc, requests.exceptions.ConnectTimeout):
            what, cls, uncertain = "connect timeout", ProviderUnavailable, False
        elif isinstance(exc, requests.exceptions.Timeout):
            what, cls, uncertain = "read timeout", ProviderTimeout, sends
        elif isinstance(exc, requests.exceptions.ConnectionError):
            what, cls = "connection error", ProviderUnavailable
            uncertain = sends and not failed_before_sending(exc)
        else:
            what, cls, uncertain = "transport error", ProviderUnavailable, sends
        logger.warning("%s %s: %s (%s)", self.name, where, what, type(exc).__name__)
        detail = mask_pii(str(exc))[:EXCERPT]
        return cls(f"{self.name} {where}: {what}: {detail}", uncertain=uncertain)

    def error(
        self,
        answer: Answer,
        *,
        message: str = "",
        code: str = "",
        note: str = "",
        retry_after: int | None = None,
    ) -> ProviderError:
        """The generic rows of the table for an answer no provider-specific row took.
        `message` is the provider's own text (kept unmasked in `provider_message`; the
        body's excerpt when none), `note` what we make of the answer."""
        status = answer.status
        message = message or answer.excerpt()
        text = f"{self.name} {answer.where}: HTTP {status}"
        text += f" {code}: " if code else ": "
        text += f"{note}: " if note else ""
        text += mask_pii(message) or "(no message)"
        details: ErrorDetails = {
            "status_code": status,
            "provider_message": message,
            "error_code": code,
        }
        if status == 429:
            wait = retry_after
            if wait is None:
                wait = retry_after_seconds(answer.headers, self.default_retry_after)
            error: ProviderError = RateLimited(text, retry_after=wait, **details)
        elif status in (401, 403):
            error = AuthenticationFailed(text, **details)
        elif status >= 500 or answer.ok:
            # A 2xx reaching here carried a body the client could not use: the request may
            # have been executed, so a send is uncertain.
            uncertain = answer.sends and status != 503
            error = ProviderUnavailable(text, uncertain=uncertain, **details)
        else:
            error = RejectedRequest(text, **details)
        logger.warning("%s %s failed: %s", self.name, answer.where, type(error).__name__)
        return error

    def unexpected(
        self, answer: Answer, what: str, *, uncertain: bool | None = None
    ) -> ProviderError:
        """A 2xx whose body is not what the endpoint documents (a gateway page, a missing
        field): retried like a 5xx; a send is uncertain unless the caller knows better."""
        return ProviderUnavailable(
            f"{self.name} {answer.where}: unexpected answer ({what}): {answer.excerpt()!r}",
            status_code=answer.status,
            uncertain=answer.sends if uncertain is None else uncertain,
        )


def _query_text(params: Any) -> str:
    if not params:
        return ""
    pairs = params.items() if isinstance(params, Mapping) else params
    return "?" + "&".join(f"{key}={value}" for key, value in pairs)
