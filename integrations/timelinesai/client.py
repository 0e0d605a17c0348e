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
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

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
from integrations.timelinesai.history import HistoryLimiter, parse_timestamp, past_message
from integrations.timelinesai.validation import (
    CHAT_ID,
    after,
    check_chat_id,
    check_file_uid,
    check_phone,
    check_text,
    check_uid,
    digits,
)
from whatsapp.backends import HistoryPage, WhatsAppBackend

logger = logging.getLogger(__name__)

API_BASE = "https://app.timelines.ai/integrations/api"
USER_AGENT = "CerniqOutreach/0.1 (+https://cerniq.app)"
DEFAULT_RETRY_AFTER = 60  # seconds, for a 429 without Retry-After
FIND_SENT_MAX_PAGES = 3  # 50 messages a page
CLOCK_SKEW = timedelta(minutes=5)  # tolerated difference between our clock and WhatsApp's

_AUTH_CODES = {"missing_credentials", "invalid_token"}
_EXCERPT = 200


class TimelinesAI(WhatsAppBackend):
    reads_history = True  # `chat_history`: hitl.chat_backfill fetches a known chat's past

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
        check_phone(account_phone, "account_phone")
        check_phone(to, "to")
        check_text(text, may_be_empty=bool(file_uid))
        body = {"phone": to, "text": text, "whatsapp_account_phone": account_phone}
        if file_uid:
            body["file_uid"] = check_file_uid(file_uid)
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
        chat = check_chat_id(chat_id)
        check_text(text, may_be_empty=bool(file_uid))
        body = {"text": text}
        if file_uid:
            body["file_uid"] = check_file_uid(file_uid)
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

    def upload_media(
        self, *, account_id: str, content: bytes, filename: str, content_type: str
    ) -> str:
        """The core's upload (`WhatsAppBackend.upload_media`): the file's uid. Files belong
        to the workspace, so any of its accounts can send it."""
        return str(
            self.upload_file(content=content, filename=filename, content_type=content_type)["uid"]
        )

    def send_media(
        self, *, account_phone: str, chat_id: str, to: str, text: str, media_id: str
    ) -> SendResult:
        """An uploaded file by its uid (`file_uid`), `text` its caption: into the chat
        when known, else to the number from `account_phone`."""
        if not media_id:
            raise RejectedRequest("a file message needs the file's uid")
        if chat_id:
            return self.send_to_chat(chat_id=chat_id, text=text, file_uid=media_id)
        return self.send_to_phone(account_phone=account_phone, to=to, text=text, file_uid=media_id)

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
        payload = self._request("GET", f"/messages/{check_uid(uid)}")
        data = payload.get("data")
        if not isinstance(data, dict):
            raise _unexpected(payload, "GET /messages/{uid}", "data is not an object")
        return data

    def status_history(self, uid: str) -> list[dict[str, Any]]:
        """`GET /messages/{uid}/status_history` → `[{"status", "timestamp", …}]`, oldest first.

        Status values vary in case (`Sent`, `sent`, `Not connected`): compare case-insensitively.
        """
        payload = self._request("GET", f"/messages/{check_uid(uid)}/status_history")
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
        params = [("from_me", "true"), ("after", after(since)), ("sorting_order", "desc")]
        for chat in self._chats_with(to, account_id):
            chat_id = str(chat.get("id", ""))
            if not CHAT_ID.fullmatch(chat_id):
                continue
            for number, data in self._message_pages(chat_id, params):
                for message in data["messages"]:
                    if _is_our_message(message, wanted, since_utc - CLOCK_SKEW):
                        return SendResult(str(message["uid"]), raw=message, thread_id=chat_id)
                if number >= FIND_SENT_MAX_PAGES:
                    break
        return None

    def chat_history(
        self, *, chat_id: str, since: datetime, start_page: int = 1
    ) -> Iterator[HistoryPage]:
        """`GET /chats/{id}/messages?after=…&sorting_order=desc&page=n`: the chat's
        messages from `since` on (give or take the `after` margin: the caller cuts
        exactly), newest first, 50 a page, each page requested when the caller asks for
        the next and within the workspace's history budget (history.HistoryLimiter).
        Notes, calls and summaries are left out of `messages` (counted in `seen`)."""
        chat = check_chat_id(chat_id)
        if start_page < 1:
            raise ValueError("start_page counts from 1")
        limiter = self._history_limiter()
        params = [("after", after(since)), ("sorting_order", "desc")]
        try:
            for number, data in self._message_pages(
                chat, params, start=start_page, before_each=limiter.acquire
            ):
                rows = data["messages"]
                found = tuple(m for m in (past_message(row, chat) for row in rows) if m)
                yield HistoryPage(number, found, len(rows), bool(data.get("has_more_pages")))
        except RateLimited as error:
            if error.status_code == 429:  # TimelinesAI's, not our own budget's
                limiter.back_off(error.retry_after or self.http.default_retry_after)
            raise

    def _history_limiter(self) -> HistoryLimiter:
        """The workspace's budget of history requests (read from the settings each fetch)."""
        return HistoryLimiter(self._token)

    def _message_pages(
        self,
        chat_id: str,
        params: list[tuple[str, str]],
        *,
        start: int = 1,
        before_each: Callable[[], None] | None = None,
    ) -> Iterator[tuple[int, dict[str, Any]]]:
        """The one loop over a chat's message pages (`find_sent`, `chat_history`): page
        `start`, then the next while `has_more_pages`, each fetched only when the caller
        asks for it (so the caller bounds them), `before_each` called before each request."""
        page = start
        while True:
            if before_each is not None:
                before_each()
            payload = self._request(
                "GET", f"/chats/{chat_id}/messages", params=[*params, ("page", str(page))]
            )
            data = payload.get("data")
            if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
                raise _unexpected(payload, "GET /chats/{id}/messages", "no data.messages")
            yield page, data
            if not data.get("has_more_pages"):
                return
            page += 1

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
        wanted = digits(account_phone)
        if not wanted:
            return None
        for account in self.list_accounts():
            if digits(account.get("phone")) == wanted:
                return str(account.get("status") or "").strip().lower()
        return None

    def _chats_with(self, to: str, account_id: str) -> list[dict[str, Any]]:
        check_phone(to, "to")
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
            and digits(chat.get("phone")) == digits(to)
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
    sent_at = parse_timestamp(message.get("timestamp"))
    return sent_at is None or sent_at >= not_before


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
