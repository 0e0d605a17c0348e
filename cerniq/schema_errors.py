"""A pydantic validation error as the webhook intake answers it: the first bad field as a
path ("message.attachments[0].size") and the problem in a few words (cerniq.webhooks:
`400 {"error": "invalid payload", "field": ..., "problem": ...}`). Shared by every
integration's strict schemas."""

from __future__ import annotations

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from cerniq.webhooks import MalformedPayload

# pydantic error types → what the answer says; None: pydantic's own text says it better
# (it names the allowed values of a literal, the bounds of a length).
PROBLEMS: dict[str, str | None] = {
    "missing": "missing",
    "model_type": "not an object",
    "model_attributes_type": "not an object",
    "dict_type": "not an object",
    "list_type": "not a list",
    "string_type": "not a string",
    "int_type": "not an integer",
    "bool_type": "not a boolean",
    "too_short": "empty",
    "literal_error": None,
}


def field_path(loc: tuple[str | int, ...]) -> str:
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text or "(body)"


def problem_of(error: ErrorDetails) -> str:
    problem = PROBLEMS.get(error["type"])
    if problem is None:
        text = str(error.get("msg") or "")
        problem = text[0].lower() + text[1:] if text else error["type"]
    return problem


def malformed(exc: ValidationError, *, event_type: str, prefix: str = "") -> MalformedPayload:
    """The first error of `exc` as MalformedPayload (`prefix`: where the validated part sits
    in the body, e.g. "data")."""
    first = exc.errors(include_url=False, include_input=False)[0]
    loc = (prefix, *first["loc"]) if prefix else first["loc"]
    return MalformedPayload(field=field_path(loc), problem=problem_of(first), event_type=event_type)
