"""TimelinesAI WhatsApp backend — the real Public API (docs/providers.md §1).

Base URL `https://app.timelines.ai/integrations/api`, `Authorization: Bearer <token>`, JSON
envelope `{"status": "ok"|"error", "data", "message"?, "error_code"?}`.

Transport rules (docs/providers.md §1.8), all enforced in `_request`:

* **Fresh connection per call.** Every call opens its own `requests.Session`, closed when the
  call returns, and also sends `Connection: close`: Cloudflare in front of TimelinesAI answers
  403 after ~100 requests on one keep-alive connection.
* Explicit `User-Agent` (Cloudflare's WAF blocks library defaults), `Accept: application/json`.
* Bodies are UTF-8 JSON bytes (`ensure_ascii=False`) sent with
  `Content-Type: application/json; charset=utf-8`, so diacritics and emoji arrive intact.
* No trailing slash on any path (TimelinesAI serves a branded HTML 404 for those); query
  parameters are URL-encoded by `requests` (`+40…` → `%2B40…`); redirects are not followed.
* Explicit (connect, read) timeouts.

This client makes exactly one HTTP call per method (two for `send_to_phone` after a
"Wrong phone number" answer, three-plus for the look-ups that page) and never retries: it
raises the `cerniq.provider_errors` class that tells the caller what to do. Arguments are
validated before any HTTP call; a bad argument raises `RejectedRequest` with
`status_code=None`. The token is never logged; phone numbers are masked in log lines and in
exception texts (the provider's own text stays unmasked in `exc.provider_message`).
"""

from __future__ import annotations

import json
import logging
import math
import re
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import quote

from cerniq.logging import mask_pii
from cerniq.provider_errors import (
    AccountDisconnected,
    AuthenticationFailed,
    ErrorDetails,
    InvalidRecipient,
    ProviderError,
    ProviderUnavailable,
    QuotaExceeded,
    RateLimited,
    RejectedRequest,
    SendResult,
)
from cerniq.provider_http import Answer, ProviderHTTP
from whatsapp.backends import MAX_TEXT, WhatsAppBackend

logger = logging.getLogger(__name__)

API_BASE = "https://app.timelines.ai/integrations/api"
USER_AGENT = "CerniqOutreach/0.1 (+https://cerniq.app)"
DEFAULT_RETRY_AFTER = 60  # seconds, for a 429 without Retry-After
FIND_SENT_MAX_PAGES = 3  # 50 messages a page
# `after` is widened by the largest UTC offset, because TimelinesAI's docs do not say in which
# time zone a datetime without offset is read; the exact cut is then made on our side.
AFTER_MARGIN = timedelta(hours=14)
CLOCK_SKEW = timedelta(minutes=5)  # tolerated difference between our clock and WhatsApp's

_E164 = re.compile(r"\+[1-9][0-9]{6,14}")
_CHAT_ID = re.compile(r"[0-9]{1,20}")
_MESSAGE_UID = re.compile(r"[A-Za-z0-9_-]{1,128}")
_AUTH_CODES = {"missing_credentials", "invalid_token"}
_EXCERPT = 200


class TimelinesAI(WhatsAppBackend):
    def __init__(
        self,
        *,
        api_token: str,
        base_url: str = API_BASE,
        timeout: tuple[float, float] = (5.0, 30.0),
        **_: Any,
    ) -> None:
        self._token = (api_token or "").strip()
        self.base_url = (base_url or API_BASE).rstrip("/")
        self.http = ProviderHTTP(
            "TimelinesAI",
            self.base_url,
            timeout=timeout,
            headers={"Authorization": f"Bearer {self._token}"},
            fresh_connection=True,
            default_retry_after=DEFAULT_RETRY_AFTER,
        )
        self.timeout = self.http.timeout

    def __repr__(self) -> str:  # never show the token
        return f"<TimelinesAI {self.base_url}>"

    # --- sending ------------------------------------------------------------------------

    def send_to_phone(
        self, *, account_phone: str, to: str, text: str, file_uid: str = ""
    ) -> SendResult:
        """`POST /messages`: first message to a number, from `account_phone`'s account;
        with `file_uid` (an uploaded file, `upload_file`) the text is its caption."""
        _check_phone(account_phone, "account_phone")
        _check_phone(to, "to")
        _check_text(text, may_be_empty=bool(file_uid))
        body = {"phone": to, "text": text, "whatsapp_account_phone": account_phone}
        if file_uid:
            body["file_uid"] = _check_file_uid(file_uid)
        try:
            payload = self._request("POST", "/messages", json_body=body)
        except InvalidRecipient as exc:
            if exc.provider_message.lower().startswith("wrong phone number"):
                # TimelinesAI answers the same text when the *sender* is disconnected
                # (docs/providers.md §1.7 item 4), so ask which one it is.
                self._raise_if_sender_down(account_phone, exc)
            raise
        return _send_result(payload, thread_id="")

    def send_to_chat(self, *, chat_id: str, text: str, file_uid: str = "") -> SendResult:
        """`POST /chats/{chat_id}/messages`: a follow-up; the chat's own account sends it
        (with `file_uid`, a file with `text` as its caption)."""
        chat = _check_chat_id(chat_id)
        _check_text(text, may_be_empty=bool(file_uid))
        body = {"text": text}
        if file_uid:
            body["file_uid"] = _check_file_uid(file_uid)
        payload = self._request("POST", f"/chats/{chat}/messages", json_body=body)
        return _send_result(payload, thread_id=chat)

    def upload_file(self, *, content: bytes, filename: str, content_type: str) -> dict[str, Any]:
        """`POST /files_upload` (multipart `file`, `filename`, `content_type`) → the
        FileInfo (`uid`, `filename`, `size`, `mimetype`, …): send it with `file_uid`.
        Uploaded once per file; TimelinesAI keeps it in the workspace's files."""
        if not content:
            raise RejectedRequest("the file is empty")
        name = (filename or "").strip()
        if not name or "/" in name or "\\" in name or len(name) > 200:
            raise RejectedRequest(f"not a file name: {name[:60]!r}")
        form = {"filename": name, "content_type": content_type}
        payload = self._request(
            "POST", "/files_upload", form=form, files={"file": (name, content, content_type)}
        )
        data = payload.get("data")
        if not isinstance(data, dict) or not isinstance(data.get("uid"), str) or not data["uid"]:
            raise _unexpected(payload, "POST /files_upload", "no data.uid", uncertain=True)
        return data

    def _raise_if_sender_down(self, account_phone: str, original: InvalidRecipient) -> None:
        details: ErrorDetails = {
            "status_code": original.status_code,
            "provider_message": original.provider_message,
            "error_code": original.error_code,
        }
        try:
            status = self.account_status(account_phone)
        except ProviderError as exc:
            # Unknown whether the number or the sender is at fault; nothing was sent, so a
            # retry is safe and will ask again.
            raise ProviderUnavailable(
                f"TimelinesAI rejected the number ({mask_pii(original.provider_message)}) and "
                f"the sending account's status could not be checked: {exc}",
                **details,
            ) from exc
        if status != "active":
            state = status or "not in the TimelinesAI workspace"
            raise AccountDisconnected(
                f"sending account {mask_pii(account_phone)} is {state} "
                f"(TimelinesAI answered: {mask_pii(original.provider_message)})",
                **details,
            ) from original

    # --- reading ------------------------------------------------------------------------

    def message_info(self, uid: str) -> dict[str, Any]:
        """`GET /messages/{uid}` → MessageInfo (`chat_id`, `status`, `from_me`, …)."""
        payload = self._request("GET", f"/messages/{_check_uid(uid)}")
        data = payload.get("data")
        if not isinstance(data, dict):
            raise _unexpected(payload, "GET /messages/{uid}", "data is not an object")
        return data

    def status_history(self, uid: str) -> list[dict[str, Any]]:
        """`GET /messages/{uid}/status_history` → `[{"status", "timestamp", …}]`, oldest first.

        Status values vary in case (`Sent`, `sent`, `Not connected`): compare case-insensitively.
        """
        payload = self._request("GET", f"/messages/{_check_uid(uid)}/status_history")
        data = payload.get("data")
        if not isinstance(data, list):
            raise _unexpected(payload, "GET /messages/{uid}/status_history", "data is not a list")
        return [row for row in data if isinstance(row, dict)]

    def find_chat(self, *, to: str, account_id: str = "") -> dict[str, Any] | None:
        """`GET /chats?phone=<to>[&whatsapp_account_id=<jid>]` → the direct chat with `to`.

        Only a chat whose phone is `to` (and, with `account_id`, owned by that account) is
        returned; TimelinesAI matches `+`-prefixed numbers exactly, this double-checks it.
        """
        chats = self._chats_with(to, account_id)
        return chats[0] if chats else None

    def find_sent(
        self, *, to: str, text: str, since: datetime, account_id: str = "", reference: str = ""
    ) -> SendResult | None:
        """Was `text` already sent to `to` at or after `since`? (reconciling an uncertain send)

        Looks in the direct chat(s) with `to` (`GET /chats/{id}/messages?from_me=true&after=…
        &sorting_order=desc`, up to 3 pages of 50) for an outgoing message whose text equals
        `text` after stripping and whose WhatsApp timestamp is not before `since` (minus 5
        minutes of clock skew). Returns the newest match, or None. A send still queued at
        TimelinesAI may not be visible yet — do not call this seconds after the attempt.
        """
        if since.tzinfo is None or since.utcoffset() is None:
            raise ValueError("since must be timezone-aware")
        wanted = (text or "").strip()
        if not wanted:
            raise RejectedRequest("text is empty")
        since_utc = since.astimezone(UTC)
        after = (since_utc - AFTER_MARGIN).strftime("%Y-%m-%d %H:%M:%S")
        for chat in self._chats_with(to, account_id):
            chat_id = str(chat.get("id", ""))
            if not _CHAT_ID.fullmatch(chat_id):
                continue
            for page in range(1, FIND_SENT_MAX_PAGES + 1):
                params = [
                    ("from_me", "true"),
                    ("after", after),
                    ("sorting_order", "desc"),
                    ("page", str(page)),
                ]
                payload = self._request("GET", f"/chats/{chat_id}/messages", params=params)
                data = payload.get("data")
                if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
                    raise _unexpected(payload, "GET /chats/{id}/messages", "no data.messages")
                for message in data["messages"]:
                    if _is_our_message(message, wanted, since_utc - CLOCK_SKEW):
                        return SendResult(str(message["uid"]), raw=message, thread_id=chat_id)
                if not data.get("has_more_pages"):
                    break
        return None

    def list_accounts(self) -> list[dict[str, Any]]:
        """`GET /whatsapp_accounts` → `data.whatsapp_accounts` (`id` JID, `phone`, `status`…)."""
        payload = self._request("GET", "/whatsapp_accounts")
        data = payload.get("data")
        accounts = data.get("whatsapp_accounts") if isinstance(data, dict) else None
        if not isinstance(accounts, list):
            raise _unexpected(payload, "GET /whatsapp_accounts", "no data.whatsapp_accounts")
        return [account for account in accounts if isinstance(account, dict)]

    def account_status(self, account_phone: str) -> str | None:
        """`"active"` / `"disconnected"` (lower-cased; banned, suspended and paused accounts
        are all reported as disconnected), or None when no account has that phone."""
        digits = _digits(account_phone)
        if not digits:
            return None
        for account in self.list_accounts():
            if _digits(account.get("phone")) == digits:
                return str(account.get("status") or "").strip().lower()
        return None

    def _chats_with(self, to: str, account_id: str) -> list[dict[str, Any]]:
        _check_phone(to, "to")
        params = [("phone", to)]
        if account_id:
            params.append(("whatsapp_account_id", account_id))
        payload = self._request("GET", "/chats", params=params)
        data = payload.get("data")
        chats = data.get("chats") if isinstance(data, dict) else None
        if not isinstance(chats, list):
            raise _unexpected(payload, "GET /chats", "no data.chats")
        return [
            chat
            for chat in chats
            if isinstance(chat, dict)
            and not chat.get("is_group")
            and _digits(chat.get("phone")) == _digits(to)
            and (not account_id or chat.get("whatsapp_account_id") == account_id)
        ]

    # --- HTTP -----------------------------------------------------------------------------

    def _request(
        self,
        method: str,
        path: str,
        *,
        params: list[tuple[str, str]] | None = None,
        json_body: dict[str, Any] | None = None,
        form: dict[str, str] | None = None,
        files: dict[str, tuple[str, bytes, str]] | None = None,
    ) -> dict[str, Any]:
        """One HTTP call on a fresh connection; returns the parsed `{"status": "ok"}` body."""
        if not path.startswith("/") or path.endswith("/"):
            raise ValueError(f"bad TimelinesAI path {path!r}")  # a bug here, not input
        if not self._token:
            raise AuthenticationFailed("TimelinesAI API token is not configured")
        # Only POSTs have side effects worth reconciling.
        answer = self.http.request(
            method,
            path,
            params=params,
            json_body=json_body,
            form=form,
            files=files,
            sends=method == "POST",
        )
        payload = answer.payload
        if payload is None:
            raise self._non_json_error(answer)
        if answer.ok:
            if payload.get("status") == "ok":
                return payload
            if payload.get("status") != "error":
                raise self.http.unexpected(answer, "no status ok/error")
        raise self._classify(answer, payload)

    def _non_json_error(self, answer: Answer) -> ProviderError:
        kind = answer.headers.get("Content-Type", "no content type")
        note = f"a non-JSON body ({kind})"
        if answer.status == 403:
            # The API's own 403s are JSON; an HTML 403 is Cloudflare's WAF in front of it.
            return ProviderUnavailable(
                f"TimelinesAI {answer.where}: HTTP 403 with {note}: {answer.excerpt()!r}"
                " (Cloudflare block?)",
                status_code=403,
                provider_message=answer.excerpt(),
            )
        # e.g. the branded 404 page for a trailing slash, a gateway's 502 page
        return self.http.error(answer, note=note)

    def _classify(self, answer: Answer, payload: dict[str, Any]) -> ProviderError:
        """The error class for an error envelope (any HTTP status, including 200)."""
        message = str(payload.get("message") or payload.get("error") or "")
        code = str(payload.get("error_code") or "")
        low = message.lower()
        text = f"TimelinesAI {answer.where}: HTTP {answer.status}"
        text += f" {code}: " if code else ": "
        text += mask_pii(message) or "(no message)"
        common: ErrorDetails = {
            "status_code": answer.status,
            "provider_message": message,
            "error_code": code,
        }
        if code == "quota_exceeded" or "quota exceeded" in low:
            return QuotaExceeded(text, retry_after=_seconds_to_next_utc_day(), **common)
        if answer.status == 429:
            return self.http.error(answer, message=message, code=code)
        if code == "rate_limit_exceeded":
            return RateLimited(text, retry_after=self.http.default_retry_after, **common)
        if code == "account_inactive" or "no connected whatsapp account" in low:
            return AccountDisconnected(text, **common)
        if code in _AUTH_CODES or low == "not authenticated":
            return AuthenticationFailed(text, **common)
        if "invalid phone number" in low or low.startswith("wrong phone number"):
            return InvalidRecipient(text, **common)
        if answer.ok:  # an error envelope under 200 that no row above names
            return RejectedRequest(text, **common)
        return self.http.error(answer, message=message, code=code)


# --- validation ---------------------------------------------------------------------------


def _check_phone(value: str, name: str) -> None:
    if not isinstance(value, str) or not _E164.fullmatch(value):
        shown = mask_pii(str(value))[:40]
        raise RejectedRequest(f"{name} must be an E.164 number like +40722000111, got {shown!r}")


def _check_text(text: str, *, may_be_empty: bool = False) -> None:
    if not isinstance(text, str) or (not text.strip() and not may_be_empty):
        raise RejectedRequest("text is empty")
    if len(text) > MAX_TEXT:
        raise RejectedRequest(f"text is {len(text)} characters; TimelinesAI accepts {MAX_TEXT}")
    if "\x00" in text:
        raise RejectedRequest("text contains a NUL character")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise RejectedRequest("text is not valid Unicode (lone surrogate)") from None


def _check_file_uid(uid: str) -> str:
    if not isinstance(uid, str) or not _MESSAGE_UID.fullmatch(uid):
        raise RejectedRequest(f"not a TimelinesAI file uid: {str(uid)[:60]!r}")
    return uid


def _check_chat_id(chat_id: str | int) -> str:
    value = str(chat_id).strip() if isinstance(chat_id, str | int) else ""
    if not _CHAT_ID.fullmatch(value):
        raise RejectedRequest(f"chat_id must be a TimelinesAI chat number, got {chat_id!r}")
    return value


def _check_uid(uid: str) -> str:
    if not isinstance(uid, str) or not _MESSAGE_UID.fullmatch(uid):
        raise RejectedRequest(f"not a TimelinesAI message uid: {uid!r}")
    return quote(uid, safe="")


def _digits(value: object) -> str:
    return "".join(ch for ch in str(value or "") if ch in "0123456789")


# --- responses ----------------------------------------------------------------------------


def _send_result(payload: dict[str, Any], *, thread_id: str) -> SendResult:
    data = payload.get("data")
    uid = data.get("message_uid") if isinstance(data, dict) else None
    if not isinstance(uid, str) or not uid:
        # Accepted (status ok) but without an id: the message may be queued — reconcile.
        raise _unexpected(payload, "send", "no data.message_uid", uncertain=True)
    return SendResult(uid, raw=payload, thread_id=thread_id)


def _is_our_message(message: object, wanted: str, not_before: datetime) -> bool:
    if not isinstance(message, dict) or not message.get("uid"):
        return False
    if message.get("from_me") is False or (message.get("text") or "").strip() != wanted:
        return False
    sent_at = _parse_timestamp(message.get("timestamp"))
    return sent_at is None or sent_at >= not_before


def _parse_timestamp(value: object) -> datetime | None:
    """TimelinesAI's `"2026-05-18 10:44:21 +0300"` (or ISO 8601); None when unreadable."""
    if not isinstance(value, str) or not value.strip():
        return None
    for parse in (
        lambda v: datetime.strptime(v, "%Y-%m-%d %H:%M:%S %z"),
        lambda v: datetime.fromisoformat(v.replace("Z", "+00:00")),
    ):
        try:
            parsed = parse(value.strip())
        except ValueError:
            continue
        if parsed.tzinfo is not None:
            return parsed
    return None


def _unexpected(
    payload: dict[str, Any], where: str, what: str, uncertain: bool = False
) -> ProviderError:
    body = mask_pii(json.dumps(payload, ensure_ascii=False)[:_EXCERPT])
    return ProviderUnavailable(
        f"TimelinesAI {where}: unexpected response ({what}): {body}",
        status_code=200,
        uncertain=uncertain,
    )


def _seconds_to_next_utc_day() -> int:
    now = datetime.now(UTC)
    tomorrow = (now + timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)
    return max(1, math.ceil((tomorrow - now).total_seconds()))
