"""Requests refused before a view can read them: a body over a size limit, more form fields
or files than Django takes, a request it cannot read at all, text cerniq.text_input refuses.

Django raises these while a body is parsed (`RequestDataTooBig`, `TooManyFieldsSent`,
`TooManyFilesSent`, other `SuspiciousOperation`s) and, left alone, they become a bare 400
page, or a 500 inside the API. Each gets one answer here, naming the limit: 413 for a body
too large, 400 otherwise. The API (`api.errors`) answers it in the one JSON error shape,
defined here so that this handler can use it too; pages get a small page in the reader's
language (`handler400` in cerniq.urls).

Multipart bodies are the one kind Django does not bound (files are spooled to disk
whatever their size): `BoundedUploadHandler` refuses one over UPLOAD_MAX_REQUEST_BYTES
before a byte is stored.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.core.exceptions import (
    BadRequest,
    RequestDataTooBig,
    SuspiciousOperation,
    TooManyFieldsSent,
    TooManyFilesSent,
)
from django.core.files.uploadhandler import FileUploadHandler
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.defaultfilters import filesizeformat
from django.template.loader import render_to_string
from django.utils.formats import number_format
from django.utils.translation import get_language
from django.utils.translation import gettext as _

API_PREFIX = "/api/"  # where cerniq.urls mounts the REST API


def error_body(code: str, message: str, fields: dict[str, list[str]] | None = None) -> dict:
    """The API's one error shape: {"error": {"code", "message", "fields"}}."""
    return {"error": {"code": code, "message": message, "fields": fields or {}}}


@dataclass(frozen=True)
class Refusal:
    status: int
    code: str
    message: str
    fields: dict[str, list[str]] = field(default_factory=dict)


class RefusedInput(BadRequest):
    """Input refused before any view or serializer reads it (cerniq.text_input): a 400
    with this code, message and, for the API, the fields at fault."""

    def __init__(self, code: str, message: str, fields: dict[str, list[str]] | None = None):
        super().__init__(message)
        self.refusal = Refusal(400, code, message, fields or {})


class UploadTooLarge(RequestDataTooBig):
    """A multipart body over UPLOAD_MAX_REQUEST_BYTES (Django bounds only its form fields)."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"Multipart body over {limit} bytes (UPLOAD_MAX_REQUEST_BYTES).")
        self.limit = limit


class BoundedUploadHandler(FileUploadHandler):
    """First of FILE_UPLOAD_HANDLERS: refuses a multipart body over the limit from its
    Content-Length, before the other handlers store anything."""

    # The stubs say the boundary is a str; Django's multipart parser passes bytes.
    def handle_raw_input(  # type: ignore[override]
        self,
        input_data: Any,
        META: dict,  # noqa: N803 - Django's name
        content_length: int,
        boundary: bytes,
        encoding: str | None = None,
    ) -> None:
        limit = settings.UPLOAD_MAX_REQUEST_BYTES
        if content_length > limit:
            raise UploadTooLarge(limit)

    def receive_data_chunk(self, raw_data: bytes, start: int) -> bytes:
        return raw_data  # the next handler stores it

    def file_complete(self, file_size: int) -> None:
        return None


def too_large(limit: int) -> str:
    """The one message of a body over a size limit (Django's, an upload's, an API parser's)."""
    size = filesizeformat(limit).replace("\xa0", " ")  # a plain space in JSON too
    return _("The request is larger than %(size)s, the most this address takes.") % {"size": size}


def refusal(exc: BaseException) -> Refusal | None:
    """The answer to a request Django could not read, or that cerniq refused before any
    view; None for anything else. The message names the limit that was passed."""
    if isinstance(exc, RefusedInput):
        return exc.refusal
    if isinstance(exc, RequestDataTooBig):
        limit = getattr(exc, "limit", settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
        return Refusal(413, "too_large", too_large(limit))
    if isinstance(exc, TooManyFieldsSent):
        count = number_format(settings.DATA_UPLOAD_MAX_NUMBER_FIELDS, force_grouping=True)
        message = _("The request has more than %(count)s fields, the most a request may have.")
        return Refusal(400, "too_many_fields", message % {"count": count})
    if isinstance(exc, TooManyFilesSent):
        count = number_format(settings.DATA_UPLOAD_MAX_NUMBER_FILES, force_grouping=True)
        message = _("The request has more than %(count)s files, the most a request may have.")
        return Refusal(400, "too_many_files", message % {"count": count})
    if isinstance(exc, SuspiciousOperation | BadRequest):
        return Refusal(400, "bad_request", _("The request could not be read."))
    return None


def bad_request(request: HttpRequest, exception: BaseException | None = None) -> HttpResponse:
    """handler400: the refusal as the API's JSON error or as a page; rendered without the
    request's context (the failure may come before the user is known)."""
    found = refusal(exception) if exception is not None else None
    found = found or Refusal(400, "bad_request", _("The request could not be read."))
    if request.path.startswith(API_PREFIX):
        return JsonResponse(
            error_body(found.code, found.message, found.fields), status=found.status
        )
    page = render_to_string(
        "http_error.html",
        {"status": found.status, "message": found.message, "LANGUAGE_CODE": get_language()},
    )
    return HttpResponse(page, status=found.status)
