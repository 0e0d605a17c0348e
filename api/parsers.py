"""Request bodies read with a ceiling: DRF's parsers read the whole stream whatever its
size (Django's DATA_UPLOAD_MAX_MEMORY_SIZE guards only `request.body` and forms), so a
hostile client could make a web process hold gigabytes. Past the ceiling the answer is a
413 in the API's error shape, and nothing is parsed."""

from __future__ import annotations

import io
from typing import Any

from django.conf import settings
from django.utils.translation import gettext as _
from rest_framework import exceptions, status
from rest_framework.parsers import BaseParser, JSONParser


class BodyTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "too_large"
    default_detail = "The request body is too large."


def read_bounded(stream: Any, limit: int) -> bytes:
    """The whole body, or BodyTooLarge once more than `limit` bytes have come."""
    body = stream.read(limit + 1) if stream is not None else b""
    if len(body) > limit:
        raise BodyTooLarge(
            _("The request body is larger than %(kib)s KiB.") % {"kib": f"{limit // 1024:,}"}
        )
    return body


class BoundedJSONParser(JSONParser):
    """JSON up to `limit` bytes (DATA_UPLOAD_MAX_MEMORY_SIZE, 2.5 MiB by default: a lead,
    a sequence or a template is a few KiB)."""

    @property
    def limit(self) -> int:
        return settings.DATA_UPLOAD_MAX_MEMORY_SIZE

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        body = read_bounded(stream, self.limit)
        return super().parse(io.BytesIO(body), media_type, parser_context)


class BoundedBodyParser(BaseParser):
    """The raw body, up to `limit` bytes (a bulk import's CSV)."""

    limit = 0

    def parse(
        self, stream: Any, media_type: str | None = None, parser_context: Any = None
    ) -> bytes:
        return read_bounded(stream, self.limit)
