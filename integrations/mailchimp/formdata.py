"""Mailchimp's webhook bodies (`application/x-www-form-urlencoded`, PHP-style keys such as
`data[merges][FNAME]`) as nested dicts, with the rules the JSON door applies to every
provider (cerniq.webhooks): UTF-8 only, no NUL or lone surrogate, nesting bounded, no field
given twice. Anything else is MalformedPayload naming the field, so the intake answers 400
and keeps the body as a MALFORMED row."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl

from cerniq.webhooks import MalformedPayload, check_strings_and_depth

MAX_FIELDS = 500  # a member's merge fields are a few dozen at most
_KEY = re.compile(r"([^\[\]]+)((?:\[[^\[\]]+\])*)")
_PART = re.compile(r"\[([^\[\]]+)\]")
_SHOWN = 64


def _shown(text: str) -> str:
    cleaned = "".join(ch if ch.isprintable() else "?" for ch in text[:_SHOWN])
    return cleaned + ("…" if len(text) > _SHOWN else "")


def _path(parts: list[str]) -> str:
    return ".".join(_shown(part) for part in parts) or "(body)"


def parse(raw: bytes, *, max_depth: int) -> dict[str, Any]:
    """The form as a dict: `a[b][c]=v` becomes {"a": {"b": {"c": "v"}}}; every value a
    string (an empty one too)."""
    try:
        text = raw.decode("utf-8")
        pairs = parse_qsl(
            text,
            keep_blank_values=True,
            strict_parsing=True,
            encoding="utf-8",
            errors="strict",
            max_num_fields=MAX_FIELDS,
        )
    except UnicodeDecodeError:
        raise MalformedPayload(field="(body)", problem="not UTF-8") from None
    except ValueError as exc:  # a field without "=", or too many fields
        problem = f"more than {MAX_FIELDS} fields" if "Max number" in str(exc) else str(exc)
        raise MalformedPayload(field="(body)", problem=f"not a form: {problem}"[:120]) from None
    form: dict[str, Any] = {}
    for key, value in pairs:
        match = _KEY.fullmatch(key)
        if match is None:
            raise MalformedPayload(field=_shown(key), problem="not a field name (name[part]…)")
        parts = [match[1], *_PART.findall(match[2])]
        if len(parts) > max_depth:
            raise MalformedPayload(
                field=_path(parts[:max_depth]),
                problem=f"objects and arrays nested deeper than {max_depth} levels",
            )
        _put(form, parts, value)
    check_strings_and_depth(form, max_depth=max_depth)
    return form


def _put(form: dict[str, Any], parts: list[str], value: str) -> None:
    node = form
    for depth, part in enumerate(parts[:-1]):
        child = node.setdefault(part, {})
        if not isinstance(child, dict):
            raise MalformedPayload(
                field=_path(parts[: depth + 1]), problem="both a value and a group of fields"
            )
        node = child
    last = parts[-1]
    if last in node:
        problem = "given twice" if isinstance(node[last], str) else "both a value and a group"
        raise MalformedPayload(field=_path(parts), problem=problem)
    node[last] = value


def encode(form: dict[str, Any], prefix: str = "") -> list[tuple[str, str]]:
    """The pairs of a nested dict, keys written as Mailchimp writes them (tests, fixtures)."""
    pairs: list[tuple[str, str]] = []
    for key, value in form.items():
        name = f"{prefix}[{key}]" if prefix else key
        if isinstance(value, dict):
            pairs += encode(value, name)
        else:
            pairs.append((name, str(value)))
    return pairs
