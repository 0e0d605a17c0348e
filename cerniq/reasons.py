"""Reasons stored as a code with parameters, shown in the reader's language.

Why: a reason written as text when it is stored ("reply on whatsapp", "no usable channel")
is frozen in the writer's language, and a Romanian page then shows English (or the other
way round). So a reason column holds a *code* and its parameters, and every reader (pages,
the admin, the API with its Accept-Language) renders it at read time:

    stored = reasons.code("dispatch.no_channel", channel="whatsapp")
    # 'dispatch.no_channel {"channel":"whatsapp"}'
    reasons.render(stored)  # "No usable channel: WhatsApp" / "Niciun canal utilizabil: WhatsApp"

Each app declares its codes in a `reasons` module of its own (`outreach/reasons.py`, …),
with `define()`; they are loaded on first use. A parameter that is itself a code of the
product (a stage, a channel) names the choices that label it, so it is translated too.

Rows written before a reason had a code hold plain text: `render()` shows it as it is.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import import_module
from typing import Any

from django.db.models import TextChoices
from django.utils import formats, timezone
from django.utils.dateparse import parse_datetime
from django.utils.functional import Promise
from django.utils.module_loading import autodiscover_modules

# A column holds `code` or `code {json params}`; the longest reason column is 255 chars.
MAX_STORED = 255
_STORED = re.compile(r"^(?P<code>[a-z][a-z0-9_]*(?:\.[a-z0-9_]+)+)(?: (?P<params>\{.*\}))?$", re.S)

Labeller = type[TextChoices] | Callable[[Any], Any]


@dataclass(frozen=True)
class Definition:
    code: str
    text: Promise  # a lazy translation with %(name)s placeholders
    labels: Mapping[str, Labeller] = field(default_factory=dict)


_CATALOGUE: dict[str, Definition] = {}
_loaded = False


class UnknownReason(KeyError):
    """A code was stored that no app defines: a programming error, raised when writing."""


def define(code: str, text: Promise, **labels: Labeller) -> str:
    """Declare a reason code and its text (lazy, with %(param)s placeholders); `labels`
    name the choices (or a function) that turn a parameter's stored value into words."""
    if not _STORED.match(code):
        raise ValueError(f"reason code {code!r} must look like 'app.what'")
    known = _CATALOGUE.get(code)
    if known is not None and getattr(known.text, "_args", known.text) != getattr(
        text, "_args", text
    ):
        raise ValueError(f"reason code {code!r} is defined twice with different texts")
    _CATALOGUE[code] = Definition(code, text, labels)
    return code


def _msgid(text: Promise) -> object:
    return getattr(text, "_args", text)  # a lazy translation's arguments: its message id


def _load() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        autodiscover_modules("reasons")
        import_module("cerniq.platform_reasons")  # cerniq's own codes (this module is the tool)


def catalogue() -> dict[str, Definition]:
    """Every defined code (for tests and documentation)."""
    _load()
    return dict(_CATALOGUE)


def code(code: str, /, **params: Any) -> str:
    """The stored form of a reason. Raises UnknownReason for an undefined code, so a typo
    fails where the reason is written, not where it is read. Long text parameters are
    shortened so the whole fits a reason column."""
    _load()
    if code not in _CATALOGUE:
        raise UnknownReason(code)
    if not params:
        return code
    stored = _encode(code, params)
    while len(stored) > MAX_STORED:
        longest = max(
            (k for k, v in params.items() if isinstance(v, str)),
            key=lambda k: len(params[k]),
            default=None,
        )
        if longest is None or len(params[longest]) <= 1:
            raise ValueError(f"reason {code!r} does not fit {MAX_STORED} characters")
        excess = len(stored) - MAX_STORED
        keep = max(1, len(params[longest]) - excess - 1)
        params = {**params, longest: params[longest][:keep] + "…"}
        stored = _encode(code, params)
    return stored


def _encode(code: str, params: Mapping[str, Any]) -> str:
    return f"{code} {json.dumps(params, ensure_ascii=False, separators=(',', ':'), default=str)}"


def parse(stored: str) -> tuple[str, dict[str, Any]] | None:
    """(code, params) of a stored reason, or None when it is legacy plain text."""
    match = _STORED.match(stored or "")
    if not match:
        return None
    _load()
    if match["code"] not in _CATALOGUE:
        return None
    try:
        params = json.loads(match["params"]) if match["params"] else {}
    except ValueError:
        return None
    return (match["code"], params) if isinstance(params, dict) else None


def is_code(stored: str, *codes: str) -> bool:
    """True when `stored` is one of `codes` (any parameters)."""
    parsed = parse(stored)
    return parsed is not None and parsed[0] in codes


def render(stored: str | None) -> str:
    """The reason in the active language; legacy plain text as it is."""
    if not stored:
        return ""
    parsed = parse(stored)
    if parsed is None:
        return stored
    code_, params = parsed
    definition = _CATALOGUE[code_]
    shown = {name: _label(definition.labels.get(name), value) for name, value in params.items()}
    try:
        return str(definition.text) % shown if shown else str(definition.text)
    except (KeyError, TypeError, ValueError):
        # A parameter missing from an old row: the text without the values beats a 500.
        return str(definition.text)


def render_all(parts: object) -> str:
    """A stored list of reasons, each in the reader's language, joined (a label for a
    parameter that holds several)."""
    if not isinstance(parts, list):
        return render(str(parts))
    return "; ".join(render(str(part)) for part in parts)


def moment(stored: object) -> str:
    """A labeller: a stored ISO moment in the reader's time zone and format."""
    found = parse_datetime(str(stored or ""))
    if found is None:
        return str(stored or "—")
    return formats.date_format(timezone.localtime(found), "SHORT_DATETIME_FORMAT")


def _label(labeller: Labeller | None, value: Any) -> Any:
    if labeller is None:
        return value
    if isinstance(labeller, type) and issubclass(labeller, TextChoices):
        try:
            return labeller(value).label
        except ValueError:
            return value
    function: Callable[[Any], Any] = labeller  # any other class is called like a function
    return function(value)
