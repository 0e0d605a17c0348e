"""Meta Graph API errors → `cerniq.provider_errors`, by Meta's `code` (never its titles).

Error body: `{"error": {"message", "type", "code", "error_subcode"?, "error_data":
{"messaging_product", "details"}, "fbtrace_id", "is_transient"?}}`. The same codes come
synchronously (the HTTP answer) and later (a status webhook's `errors[]`), so one table
serves both (`from_code`).

| code(s)                        | meaning                             | raised               |
| 130429, 80007, 4, 131056       | throughput / app / pair rate limit  | RateLimited          |
| 131049                         | per-user marketing limit            | RecipientLimited     |
|                                | (retried once, after 24 h)          |                      |
| 131048, 131064                 | number restricted (spam, template   | AccountRestricted    |
|                                | classification): the guard pauses it|                      |
| 368, 131031                    | blocked for policy / account locked | AccountBanned        |
| 131045, 131042                 | registration / payment problem      | AccountDisconnected  |
| 131026                         | not a WhatsApp user (or old app)    | InvalidRecipient     |
| 0, 3, 10, 190, 200-299         | token or permission                 | AuthenticationFailed |
| 1, 2, 131000, 131016, 131057,  | unknown / unavailable / maintenance | ProviderUnavailable  |
| or marked is_transient         |                                     |                      |
| any other code (131047 window, | outside the 24 h window, stopped    | RejectedRequest      |
| 131050, 131051-3, 130497,      | marketing, media, country, template | (permanent; the code |
| 132000-132016, 100, 131008...) | problems, bad parameters            | is kept)             |
"""

from __future__ import annotations

from typing import Any

from cerniq.logging import mask_pii
from cerniq.provider_errors import (
    AccountBanned,
    AccountDisconnected,
    AccountRestricted,
    AuthenticationFailed,
    ErrorDetails,
    InvalidRecipient,
    ProviderError,
    ProviderUnavailable,
    RateLimited,
    RecipientLimited,
    RejectedRequest,
)
from cerniq.provider_http import Answer, ProviderHTTP

RATE_LIMITED = {130429, 80007, 4, 131056}
RECIPIENT_LIMITED = {131049}
RESTRICTED = {131048, 131064}
BANNED = {368, 131031}
DISCONNECTED = {131045, 131042}
INVALID_RECIPIENT = {131026}
AUTH = {0, 3, 10, 190}
UNAVAILABLE = {1, 2, 131000, 131016, 131057}
# Our own refusals, before any call (RejectedRequest.error_code): a message with an image
# or PDF outside the customer-service window, which only a media-header template carries.
NO_MEDIA_TEMPLATE = "no_media_template"
RATE_LIMIT_WAIT = 60  # seconds, when Meta says nothing of its own
PAIR_RATE_WAIT = 6  # one message per ~6 s to the same person
RECIPIENT_WAIT = 24 * 3600


def error_fields(body: Any) -> tuple[int | None, str, str, bool]:
    """(code, message, details, is_transient) of a Meta error body or `errors[]` item."""
    error = body.get("error") if isinstance(body, dict) and "error" in body else body
    if not isinstance(error, dict):
        return None, "", "", False
    code = error.get("code")
    code = code if isinstance(code, int) and not isinstance(code, bool) else None
    message = str(error.get("message") or error.get("title") or "")
    data = error.get("error_data")
    details = str(data.get("details") or "") if isinstance(data, dict) else ""
    return code, message, details, error.get("is_transient") is True


def from_code(
    code: int | None,
    message: str,
    *,
    details: str = "",
    status_code: int | None = None,
    transient: bool = False,
    where: str = "WhatsApp",
) -> ProviderError | None:
    """The error for a Meta code; None when the code is none of the table's rows (the
    caller then judges by the HTTP status)."""
    if code is None:
        return None
    said = f"{where}: error {code}: {mask_pii(message)}"
    if details:
        said += f" ({mask_pii(details)[:200]})"
    common: ErrorDetails = {
        "status_code": status_code,
        "provider_message": f"{message} {details}".strip(),
        "error_code": str(code),
    }
    if code in RATE_LIMITED:
        wait = PAIR_RATE_WAIT if code == 131056 else RATE_LIMIT_WAIT
        return RateLimited(said, retry_after=wait, **common)
    if code in RECIPIENT_LIMITED:
        return RecipientLimited(said, retry_after=RECIPIENT_WAIT, **common)
    if code in RESTRICTED:
        return AccountRestricted(said, **common)
    if code in BANNED:
        return AccountBanned(said, **common)
    if code in DISCONNECTED:
        return AccountDisconnected(said, **common)
    if code in INVALID_RECIPIENT:
        return InvalidRecipient(said, **common)
    if code in AUTH or 200 <= code <= 299:
        return AuthenticationFailed(said, **common)
    if code in UNAVAILABLE or transient:
        return ProviderUnavailable(said, **common)
    if status_code is not None and (status_code >= 500 or status_code == 429):
        return None  # an unknown code under a 5xx or 429: the HTTP status decides
    return RejectedRequest(said, **common)


def answer_error(http: ProviderHTTP, answer: Answer) -> ProviderError:
    """The error for a Graph API answer that is not a success: Meta's code first, else the
    HTTP status (cerniq.provider_http)."""
    code, message, details, transient = error_fields(answer.payload)
    found = from_code(
        code,
        message,
        details=details,
        status_code=answer.status,
        transient=transient,
        where=f"{http.name} {answer.where}",
    )
    return found or http.error(answer, message=message, code=str(code or ""))
