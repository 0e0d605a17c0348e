"""Masks for everything we log (the security contract): phone numbers, email addresses, the
tenants' webhook tokens, secrets in URLs (the value of any query parameter or `name=value`
pair whose name says secret: `?api_key=`, `&access_token=`, `X-Amz-Signature=`, `pwd=`…,
and the password of `scheme://user:password@host`), in messages, their arguments,
tracebacks and stacks.

`MaskPIIFilter` goes on every handler (settings.LOGGING, and gunicorn's loggers through
`cerniq.gunicorn_logging`): it renders the message once, masked, so no %-argument can carry
a secret past it, and caches a masked traceback on the record for whatever formatter comes
next. `MaskingFormatter` (text) and `JSONFormatter` (production) mask their whole output as
well, for the handlers we format.
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Mapping
from datetime import UTC, datetime
from functools import lru_cache
from urllib.parse import quote, unquote_plus

# Each pattern starts only where its run starts (the lookbehinds): tried at every position
# of a long run without an @, it would rescan the run each time (quadratic: 4 s for 50 KB).
_EMAIL = re.compile(
    r"(?<![A-Za-z0-9._%+-])([A-Za-z0-9._%+-])[A-Za-z0-9._%+-]*@([A-Za-z0-9.-]+\.[A-Za-z]{2,})"
)
_PHONE = re.compile(r"(?<![\w-])(\+?\d{3})\d{4,}(\d{3})(?![\w-])")

# /webhooks/<provider>/<token>: the token is a tenant's secret for providers that sign
# nothing (cerniq/urls.py). It ends at a slash, a query string, or the end of the URL.
_WEBHOOK_TOKEN = re.compile(r"(/webhooks/[-\w]+/)([^/\s?#\"'<>]+)", re.IGNORECASE)
# A query string in a logged URL or request line: `?` up to whitespace or a quote.
_QUERY = re.compile(r"\?([^\s\"'<>#]+)")
# A bare query string (gunicorn's `q` atom) is query to its end, whatever it starts with.
_BARE_QUERY = re.compile(r"\?(.+)", re.DOTALL)
# In a query value (a search box): the part before an @, any run of 6+ digits (part of a
# phone, spaced or not). Company CUIs are masked too; they are not worth the special case.
_EMAIL_LOCAL = re.compile(r"(?<![^\s@*])([^\s@*])[^\s@]*@")
_DIGIT_RUN = re.compile(r"\+?\d(?:[\s().-]*\d){5,}")
_MASK = "***"

# A parameter name that says "secret" (after URL-decoding, camelCase split into words and
# lower-cased): one of these stems anywhere in it (`access_token`, `client_secret`,
# `newPassword`, `X-Goog-Credential`, `PHPSESSID`, `apikey`), or one of the short words
# as a whole word (`key`, `x-api-key`, `sig`, `pwd`, `auth`, `code`: OAuth's), so that
# `monkey`, `signal` or `author` stay readable.
_SENSITIVE_STEMS = (
    r"token|secret|passw(?:or)?d|passphrase|passcode|credential|signature|session|sessid"
    r"|cookie|authori[sz]|authenticat|bearer|jwt|api[-_.]?key|private[-_.]?key"
    r"|(?:access|auth|secret|signing|client|master)[-_.]?key"
)
_SENSITIVE_WORDS = r"key|keys|sig|pwd|pass|auth|otp|code|hmac|sid"
_SECRET_NAME = re.compile(
    rf"{_SENSITIVE_STEMS}|(?:^|[^a-z])(?:{_SENSITIVE_WORDS})(?:$|[^a-z])", re.IGNORECASE
)
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
# `name=value` anywhere in a line (a query string, a form body, a conninfo, a repr's
# `token='…'`): the name ends at `=`, the value at `&`, whitespace or its closing quote.
_PAIR = re.compile(r"(?<![\w.%\[\]-])([A-Za-z_][\w.%\[\]-]*)=(\"[^\"]*\"|'[^']*'|[^\s&\"'<>]+)")
# `scheme://user:password@host`: a URL with credentials (a DSN, a proxy, an alert channel).
_USERINFO = re.compile(r"(://[^/\s:@?#]*):([^/\s@?#]+)@")


def mask_pii(text: str) -> str:
    """`+40712345678` → `+407***678`, `ion.pop@agro.ro` → `i***@agro.ro`."""
    text = _EMAIL.sub(r"\1***@\2", text)
    return _PHONE.sub(r"\1***\2", text)


def _mask_token(match: re.Match) -> str:
    token = match[2]
    if token.endswith(_MASK):  # masked already
        return match[0]
    return match[1] + (token[:4] if len(token) > 8 else "") + _MASK


def _mask_query_value(value: str) -> str:
    value = _EMAIL_LOCAL.sub(r"\1***@", mask_pii(value))
    return _DIGIT_RUN.sub(_MASK, value)


@lru_cache(maxsize=1024)
def is_secret_name(name: str) -> bool:
    """Whether a query parameter (or any `name=value` pair) named so carries a secret:
    `api_key`, `apiKey`, `X-API-Key`, `access_token`, `client_secret`, `pwd`, `sig`…"""
    return bool(_SECRET_NAME.search(_CAMEL.sub("_", unquote_plus(name))))


def _mask_pair(match: re.Match) -> str:
    value = match[2]
    if not is_secret_name(match[1]) or value.strip("\"'") in ("", _MASK):
        return match[0]
    quote_mark = value[0] if value[0] in "\"'" else ""
    return f"{match[1]}={quote_mark}{_MASK}{quote_mark}"


def _mask_secret_pairs(text: str) -> str:
    return _PAIR.sub(_mask_pair, text) if "=" in text else text


def _mask_query(match: re.Match, depth: int = 0) -> str:
    parts = match[1].split("&")
    for n, part in enumerate(parts):
        key, sep, value = part.partition("=")
        if not sep or not value:
            continue
        if is_secret_name(key):
            parts[n] = f"{key}={_MASK}"
            continue
        decoded = unquote_plus(value)
        masked = _mask_query_value(decoded)
        if depth < 2 and "=" in masked:  # a URL or a query inside a value (`next=`, `state=`)
            masked = _QUERY.sub(lambda inner: _mask_query(inner, depth + 1), masked)
            masked = _PAIR.sub(_mask_pair, masked)
        if masked != decoded:
            parts[n] = f"{key}={quote(masked, safe='*@+')}"
    return "?" + "&".join(parts)


def mask_query_string(query: str) -> str:
    """A bare query string (`q=%2B40722999888&api_key=s3cr3t`) with its values masked:
    secret parameters whole, phones and emails in the others (whatever it starts with)."""
    match = _BARE_QUERY.match("?" + query)
    return _mask_query(match)[1:] if match else query


def mask_log_text(text: str) -> str:
    """`text` with webhook tokens (`/webhooks/timelinesai/AbCd***`), secrets in URLs
    (`?api_key=***`, `user:***@host`), phones and emails masked; in query strings, after
    URL-decoding, partial phones and emails too."""
    if "/webhooks/" in text or "/WEBHOOKS/" in text.upper():
        text = _WEBHOOK_TOKEN.sub(_mask_token, text)
    if "://" in text:
        text = _USERINFO.sub(rf"\1:{_MASK}@", text)
    if "?" in text:
        text = _QUERY.sub(_mask_query, text)
    return mask_pii(_mask_secret_pairs(text))


class _MaskedRequest:
    """The request Django attaches to `django.request` records, shown masked (`%(request)s`)
    and otherwise itself."""

    __slots__ = ("_request",)

    def __init__(self, request) -> None:
        object.__setattr__(self, "_request", request)

    def __getattr__(self, name: str):
        return getattr(self._request, name)

    def __repr__(self) -> str:
        return mask_log_text(repr(self._request))

    __str__ = __repr__


_TRACEBACKS = logging.Formatter()


class MaskPIIFilter(logging.Filter):
    """Masks the record in place; never drops it. Put it on handlers (or on loggers that
    do not propagate, as gunicorn's): a logger's filters skip records from its children."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # wrong arguments: keep what was logged, masked, not a crash
            message = f"{record.msg} {record.args!r}"
        record.msg, record.args = mask_log_text(message), None
        if record.exc_info and not record.exc_text:
            # Formatters reuse exc_text when it is set: they all get the masked one.
            record.exc_text = _TRACEBACKS.formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = mask_log_text(record.exc_text)
        if record.stack_info:
            record.stack_info = mask_log_text(record.stack_info)
        request = getattr(record, "request", None)
        if request is not None and not isinstance(request, _MaskedRequest):
            record.request = _MaskedRequest(request)
        return True


class MaskingFormatter(logging.Formatter):
    """A formatter whose output is masked whole: message, extras, traceback and stack."""

    def formatException(self, ei) -> str:  # noqa: N802 (logging's name)
        return mask_log_text(super().formatException(ei))

    def formatStack(self, stack_info: str) -> str:  # noqa: N802
        return mask_log_text(super().formatStack(stack_info))

    def format(self, record: logging.LogRecord) -> str:
        return mask_log_text(super().format(record))


# --- the format: JSON in production, text in development ---------------------------------

LOG_FORMATS = ("json", "text")


def log_format(environ: Mapping[str, str] = os.environ) -> str:
    """LOG_FORMAT ("json" or "text"); without it, JSON unless DEBUG is on. The one rule, for
    settings.LOGGING and for gunicorn's own loggers (which never read Django's settings)."""
    from environ import Env

    debug = Env.parse_value(environ.get("DEBUG", "false"), bool)
    chosen = environ.get("LOG_FORMAT", "").strip().lower() or ("text" if debug else "json")
    if chosen not in LOG_FORMATS:
        raise ValueError(f"LOG_FORMAT must be one of {', '.join(LOG_FORMATS)}, not {chosen!r}")
    return chosen


class JSONFormatter(logging.Formatter):
    """One JSON object per line: time (UTC), level, logger, message, the ids of the work
    being done (cerniq.log_context: request, task, message, lead, tenant) when known, and
    the traceback or stack, all masked like every other log line."""

    def format(self, record: logging.LogRecord) -> str:
        from cerniq.log_context import FIELDS

        entry: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": mask_log_text(record.getMessage()),
        }
        for field in FIELDS:
            value = getattr(record, field, None)
            if value is not None:
                entry[field] = mask_log_text(str(value))
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            entry["exception"] = mask_log_text(record.exc_text)
        if record.stack_info:
            entry["stack"] = mask_log_text(self.formatStack(record.stack_info))
        return json.dumps(entry, ensure_ascii=False, default=str)
