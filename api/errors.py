"""One JSON shape for every error the API answers:

    {"error": {"code": "...", "message": "...", "fields": {"field": ["..."]}}}

`fields` names each invalid field (nested ones as `parent.child`, list items as
`items.0.field`); it is empty for errors that are not about a field.
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404
from django.utils.translation import gettext as _
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from cerniq.http_errors import error_body as error_body  # the shape, shared with handler400
from cerniq.http_errors import refusal

log = logging.getLogger(__name__)

NON_FIELD = "non_field_errors"


class Conflict(exceptions.APIException):
    """409: the request is valid but the resource's state refuses it (the message says why).

    `extra` goes into the error object, e.g. the id of the lead a new lead duplicates."""

    status_code = status.HTTP_409_CONFLICT
    default_code = "conflict"
    default_detail = "The request conflicts with the current state."

    def __init__(self, detail: str, *, code: str = "conflict", **extra: Any) -> None:
        super().__init__(detail, code)
        self.extra = extra


def flatten(detail: Any, prefix: str = "") -> dict[str, list[str]]:
    """DRF's nested validation detail as {"a.b": ["message", ...]}."""
    if isinstance(detail, dict):
        found: dict[str, list[str]] = {}
        for name, value in detail.items():
            found.update(flatten(value, f"{prefix}.{name}" if prefix else str(name)))
        return found
    if isinstance(detail, list) and any(isinstance(item, dict | list) for item in detail):
        found = {}
        for index, value in enumerate(detail):
            found.update(flatten(value, f"{prefix}.{index}" if prefix else str(index)))
        return found
    messages = detail if isinstance(detail, list) else [detail]
    return {prefix or NON_FIELD: [str(message) for message in messages]}


def exception_handler(exc: Exception, context: dict) -> Response:
    refused = refusal(exc)  # too large, too many fields or files, unprintable text
    if refused is not None:
        body = error_body(refused.code, refused.message, refused.fields)
        return Response(body, status=refused.status)
    if isinstance(exc, Http404):
        exc = exceptions.NotFound(_("Not found."))
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()
    response = drf_exception_handler(exc, context)
    if response is None:
        log.exception("API request failed", exc_info=exc)
        return Response(
            error_body("server_error", _("The server failed to answer; try again later.")),
            status=status.HTTP_500_INTERNAL_SERVER_ERROR,
        )
    assert isinstance(exc, exceptions.APIException)
    if isinstance(exc, exceptions.ValidationError):
        fields = flatten(exc.detail)
        names = ", ".join(name for name in fields if name != NON_FIELD)
        message = (
            _("Invalid input: %(fields)s.") % {"fields": names}
            if names
            else "; ".join(fields.get(NON_FIELD, [])) or _("Invalid input.")
        )
        response.data = error_body("invalid", message, fields)
        return response
    codes = exc.get_codes()
    code = codes if isinstance(codes, str) else exc.default_code
    response.data = error_body(str(code), str(exc.detail))
    response.data["error"].update(getattr(exc, "extra", {}))
    return response
