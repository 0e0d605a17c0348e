"""What text people may send: no control characters (C0 except tab, line feed and carriage
return; DEL; C1) and no lone surrogates, in any form field or API body. No field has a use
for them; PostgreSQL refuses NUL in text and lone surrogates in JSON, and the others corrupt
logs, CSV exports and terminals. One rule, checked once per request before any view or
serializer sees the data: the API's parsers (api.parsers) and, for the pages,
`UnprintableTextMiddleware`. The answer is a 400 naming the field and the character.

Form bodies must also be UTF-8 (Django would silently replace what is not)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import parse_qsl

from django.conf import settings
from django.http import HttpRequest, HttpResponse, QueryDict
from django.utils.translation import gettext as _

from cerniq.http_errors import RefusedInput

UNPRINTABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
FORM = "application/x-www-form-urlencoded"


def first_unprintable(data: Any, path: str = "") -> tuple[str, str] | None:
    """(where, the character) of the first unprintable character in a decoded body: a
    string, or dicts and lists of them (keys included); None when there is none."""
    if isinstance(data, str):
        found = UNPRINTABLE.search(data)
        return (path, found[0]) if found else None
    items: Iterable[tuple[Any, Any]]
    if isinstance(data, dict):
        items = data.items()
    elif isinstance(data, list | tuple):
        items = enumerate(data)
    else:
        return None
    for key, value in items:
        where = f"{path}.{key}" if path else str(key)
        # A bad key is the container's problem: its name would carry the character itself.
        if bad := first_unprintable(key, path) or first_unprintable(value, where):
            return bad
    return None


def problem(character: str) -> str:
    return _("contains a control character (U+%(code)04X); remove it and send again") % {
        "code": ord(character)
    }


def refused(where: str, character: str) -> RefusedInput:
    """The refusal of a field (a dotted path in a JSON body) holding `character`."""
    field = where or "body"
    return RefusedInput(
        "invalid_text",
        _("%(field)s %(problem)s.") % {"field": field, "problem": problem(character)},
        fields={field: [problem(character)]},
    )


def not_utf8() -> RefusedInput:
    return RefusedInput("not_utf8", _("The request body is not UTF-8 text."))


def form_is_utf8(body: bytes) -> bool:
    """Whether a url-encoded form body is UTF-8, its %-escapes included (Django and the
    parsers replace what is not with U+FFFD, silently)."""
    try:
        parse_qsl(
            body.decode("utf-8"),
            keep_blank_values=True,
            errors="strict",
            max_num_fields=settings.DATA_UPLOAD_MAX_NUMBER_FIELDS,
        )
    except UnicodeDecodeError:
        return False
    except ValueError:  # too many fields: counted before any is decoded; Django says so next
        return True
    return True


def check_form(request: HttpRequest) -> None:
    """RefusedInput for a posted form with bytes that are not UTF-8 or an unprintable
    character in a field's name or value (files are not text: not checked)."""
    if request.content_type == FORM and not form_is_utf8(request.body):
        raise not_utf8()
    if found := first_unprintable_field(request.POST):
        raise refused(*found)


def first_unprintable_field(fields: QueryDict) -> tuple[str, str] | None:
    """(field name, the character) of the first unprintable character in a form's field
    names and values; None when there is none."""
    for key in fields:
        if found := UNPRINTABLE.search(key):
            return "", found[0]  # a name that would carry the character itself: "body"
        for text in fields.getlist(key):
            if found := UNPRINTABLE.search(text):
                return key, found[0]
    return None


class UnprintableTextMiddleware:
    """The pages' side of the rule: every POST to a page (DRF views, the API and the
    webhook receivers, parse and check their own bodies)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_view(
        self, request: HttpRequest, view: Callable, args: tuple, kwargs: dict
    ) -> HttpResponse | None:
        if request.method == "POST" and getattr(view, "cls", None) is None:
            check_form(request)
        return None
