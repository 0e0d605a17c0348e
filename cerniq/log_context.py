"""The ids every log line of one unit of work carries: the request, the Dramatiq task, and
the message, lead and tenant it is about.

They live in one context variable, so a request's thread and a worker thread each see
their own. The web sets `request_id` (`bind_request`, `RequestIDMiddleware`), a Dramatiq
worker `task_id` (`TaskContextMiddleware`), the send path and the actors what they work on
(`bind`).
`ContextFilter` (on every handler, settings.LOGGING) copies them onto each record, where
the JSON formatter (`cerniq.logging.JSONFormatter`) writes them out.
"""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from types import MappingProxyType
from typing import Any

import dramatiq
from django.http import HttpRequest, HttpResponse

FIELDS = ("request_id", "task_id", "message_id", "lead_id", "tenant_id")

_EMPTY: Mapping[str, str] = MappingProxyType({})
_ids: ContextVar[Mapping[str, str]] = ContextVar("cerniq_log_ids", default=_EMPTY)


def current() -> Mapping[str, str]:
    """The ids bound here, now."""
    return _ids.get()


@contextmanager
def bind(**ids: object) -> Iterator[None]:
    """Add ids to the context for the `with` block (None values are left out); the ids
    bound before come back when it ends, also on an exception."""
    unknown = set(ids) - set(FIELDS)
    if unknown:
        raise ValueError(f"unknown log context field(s): {', '.join(sorted(unknown))}")
    token = _ids.set(
        MappingProxyType(
            {**_ids.get(), **{key: str(value) for key, value in ids.items() if value is not None}}
        )
    )
    try:
        yield
    finally:
        _ids.reset(token)


class ContextFilter(logging.Filter):
    """Puts the bound ids on the record (`record.request_id`, …; None when unbound). An id
    the caller passed itself (`extra={"lead_id": 5}`) is kept."""

    def filter(self, record: logging.LogRecord) -> bool:
        ids = _ids.get()
        for field in FIELDS:
            if getattr(record, field, None) is None:
                setattr(record, field, ids.get(field))
        return True


# --- web: one id per request -------------------------------------------------------------

REQUEST_ID_HEADER = "X-Request-ID"
# An incoming id is honoured when it looks like an id (a proxy's or a client's UUID, a
# trace id); anything else (too long, spaces, quotes, a CRLF) is replaced by one of ours.
_SANE_REQUEST_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,127}")


def request_id_for(incoming: str | None) -> str:
    """The id of a request: the caller's, if sane, else a new one."""
    if incoming and _SANE_REQUEST_ID.fullmatch(incoming):
        return incoming
    return uuid.uuid4().hex


def bind_request(sender: Any, environ: Mapping[str, Any] | None = None, **kwargs: Any) -> None:
    """On `request_started`: the request's id, for everything logged until it is finished,
    including Django's own "Not Found" line and gunicorn's access line, both written
    outside the middleware."""
    request_id = request_id_for((environ or {}).get("HTTP_X_REQUEST_ID"))
    _ids.set(MappingProxyType({"request_id": request_id}))


def unbind_request(sender: Any, **kwargs: Any) -> None:
    """On `request_finished`: the thread serves the next request with nothing bound."""
    _ids.set(_EMPTY)


class RequestIDMiddleware:
    """Gives the request its id (the one `bind_request` bound, or a new one) and answers it
    in the `X-Request-ID` header so a caller can quote it."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request_id = _ids.get().get("request_id") or request_id_for(
            request.headers.get(REQUEST_ID_HEADER)
        )
        request.request_id = request_id  # type: ignore[attr-defined]
        with bind(request_id=request_id):
            response = self.get_response(request)
        response[REQUEST_ID_HEADER] = request_id
        return response


# --- workers: one id per task -----------------------------------------------------------


class TaskContextMiddleware(dramatiq.Middleware):
    """Binds the Dramatiq message id as `task_id` while an actor runs (settings'
    DRAMATIQ_MIDDLEWARE). A worker thread runs one message at a time, so the context is
    set before and cleared after each."""

    def before_process_message(self, broker: dramatiq.Broker, message: Any) -> None:
        _ids.set(MappingProxyType({"task_id": message.message_id}))

    def after_process_message(
        self, broker: dramatiq.Broker, message: Any, *, result: Any = None, exception: Any = None
    ) -> None:
        _ids.set(_EMPTY)

    def after_skip_message(self, broker: dramatiq.Broker, message: Any) -> None:
        _ids.set(_EMPTY)
