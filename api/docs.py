"""Shared pieces of the OpenAPI description: the error responses and their examples."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, OpenApiResponse

from api.serializers import ErrorSerializer

_ERRORS = {
    400: ("Invalid input; `fields` names each invalid field.", "invalid"),
    401: ("No API key, or an invalid or revoked one.", "not_authenticated"),
    403: ("A read-only key on a write, or not allowed.", "permission_denied"),
    404: ("No such resource in your tenant.", "not_found"),
    405: ("Method not allowed.", "method_not_allowed"),
    409: ("Refused by the resource's state; `message` says why.", "conflict"),
    413: ("The request body is larger than the endpoint takes.", "too_large"),
    429: ("Too many requests; retry after `Retry-After` seconds.", "throttled"),
}

_EXAMPLES = {
    400: {
        "error": {
            "code": "invalid",
            "message": "Invalid input: phone.",
            "fields": {"phone": ["invalid phone '123': not a valid number"]},
        }
    },
    409: {
        "error": {
            "code": "illegal_transition",
            "message": "Cannot move a lead from Cold to Converted.",
            "fields": {},
        }
    },
}


def errors(*codes: int) -> dict[int, OpenApiResponse]:
    """Error responses for extend_schema(responses=...): 401 and 429 are always included."""
    found = {}
    for code in sorted({401, 429, *codes}):
        description, error_code = _ERRORS[code]
        example = _EXAMPLES.get(
            code, {"error": {"code": error_code, "message": description, "fields": {}}}
        )
        found[code] = OpenApiResponse(
            ErrorSerializer,
            description=description,
            examples=[OpenApiExample(error_code, value=example, response_only=True)],
        )
    return found


READ = (404,)
WRITE = (400, 403, 404)
