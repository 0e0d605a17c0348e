"""Request bodies read with a ceiling: DRF's parsers read the whole stream whatever its
size (Django's DATA_UPLOAD_MAX_MEMORY_SIZE guards only `request.body` and forms), so a
hostile client could make a web process hold gigabytes. Past the ceiling the answer is a
413 in the API's error shape, and nothing is parsed.

JSON is also refused (400) when nested deeper than MAX_JSON_DEPTH, before it is decoded:
no body of ours nests more than a few levels, and a deep one would make the decoder (and
anything walking the result) recurse until Python gives up. Form bodies keep Django's
field count limit (DATA_UPLOAD_MAX_NUMBER_FIELDS: a 400 naming it, cerniq.http_errors).
Multipart bodies are bounded by cerniq.http_errors.BoundedUploadHandler. Every decoded body
is held to cerniq.text_input's rule (no control characters; form bodies in UTF-8)."""

from __future__ import annotations

import io
import re
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.http import QueryDict
from django.utils.translation import gettext as _
from rest_framework import exceptions, status
from rest_framework.parsers import BaseParser, FormParser, JSONParser, MultiPartParser

from cerniq.http_errors import too_large

if TYPE_CHECKING:
    from django.http.request import _ImmutableQueryDict  # QueryDict(body): not mutable
from cerniq.text_input import (
    first_unprintable,
    first_unprintable_field,
    form_is_utf8,
    not_utf8,
    refused,
)

MAX_JSON_DEPTH = 32  # arrays and objects inside each other

_JSON_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKETS = bytes(range(256)).translate(None, b"[]{}")


class BodyTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "too_large"
    default_detail = "The request body is too large."


def read_bounded(stream: Any, limit: int) -> bytes:
    """The whole body, or BodyTooLarge once more than `limit` bytes have come."""
    body = stream.read(limit + 1) if stream is not None else b""
    if len(body) > limit:
        raise BodyTooLarge(too_large(limit))
    return body


def nested_too_deep(body: bytes, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether JSON text nests arrays and objects more than `limit` deep, found without
    decoding it: strings dropped, the brackets that remain counted (stopping at the limit)."""
    depth = 0
    for byte in _JSON_STRING.sub(b"", body).translate(None, _NOT_BRACKETS):
        if byte in b"[{":
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False


class BoundedJSONParser(JSONParser):
    """JSON up to `limit` bytes (DATA_UPLOAD_MAX_MEMORY_SIZE, 2.5 MiB by default: a lead,
    a sequence or a template is a few KiB) and MAX_JSON_DEPTH levels."""

    @property
    def limit(self) -> int:
        return settings.DATA_UPLOAD_MAX_MEMORY_SIZE

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        body = read_bounded(stream, self.limit)
        if nested_too_deep(body):
            raise exceptions.ParseError(
                _("JSON parse error - nested deeper than %(depth)d levels.")
                % {"depth": MAX_JSON_DEPTH}
            )
        data = super().parse(io.BytesIO(body), media_type, parser_context)
        if found := first_unprintable(data):
            raise refused(*found)
        return data


class BoundedFormParser(FormParser):
    """A form body up to DATA_UPLOAD_MAX_MEMORY_SIZE bytes and DATA_UPLOAD_MAX_NUMBER_FIELDS
    fields (DRF's FormParser reads any size)."""

    def parse(
        self, stream: Any, media_type: str | None = None, parser_context: Any = None
    ) -> _ImmutableQueryDict:
        parser_context = parser_context or {}
        encoding = parser_context.get("encoding", settings.DEFAULT_CHARSET)
        body = read_bounded(stream, settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
        if not form_is_utf8(body):
            raise not_utf8()
        data = QueryDict(body, encoding=encoding)  # TooManyFieldsSent past the field limit
        if found := first_unprintable_field(data):
            raise refused(*found)
        return data


class BoundedMultiPartParser(MultiPartParser):
    """Django's multipart parsing (bounded by cerniq.http_errors.BoundedUploadHandler), its
    text fields held to cerniq.text_input's rule."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        parsed = super().parse(stream, media_type, parser_context)
        if found := first_unprintable_field(parsed.data):
            raise refused(*found)
        return parsed


class BoundedBodyParser(BaseParser):
    """The raw body, up to `limit` bytes (a bulk import's CSV)."""

    limit = 0

    def parse(
        self, stream: Any, media_type: str | None = None, parser_context: Any = None
    ) -> bytes:
        return read_bounded(stream, self.limit)
