"""The fuzzing machinery the receivers' property tests share (tests/integrations/*/test_fuzz.py):
walking and mutating a fixture, and serialising it with the tricks a careless or hostile
sender plays (NaN, Infinity, a truncated body). What is valid stays each provider's own
oracle, written independently of its receiver; only the mutation machinery is common."""

from __future__ import annotations

import copy
import json
import os
import re
from typing import Any

from django.db import transaction
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

MISSING = object()
MAX_DEPTH = 32  # cerniq.webhooks.Receiver.MAX_DEPTH, restated: the oracle does not import it


def get(body: Any, path: str) -> Any:
    """The value at a dotted path, or MISSING."""
    node = body
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            return MISSING
        node = node[part]
    return node


def bad_strings_or_depth(value: Any, depth: int = 0) -> bool:
    """A NUL, a lone surrogate or nesting deeper than the limit anywhere."""
    if isinstance(value, str):
        return "\x00" in value or any(0xD800 <= ord(ch) <= 0xDFFF for ch in value)
    if isinstance(value, dict | list):
        if depth + 1 > MAX_DEPTH:
            return True
        items = value.items() if isinstance(value, dict) else enumerate(value)
        return any(
            bad_strings_or_depth(k, depth) or bad_strings_or_depth(v, depth + 1) for k, v in items
        )
    return False


def deep(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = {"k": value} if depth % 2 else [value]
    return value


def all_paths(node: Any, prefix: tuple = ()) -> list[tuple]:
    paths = [prefix] if prefix else []
    if isinstance(node, dict):
        for key, value in node.items():
            paths += all_paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            paths += all_paths(value, (*prefix, index))
    return paths


def apply(body: Any, path: tuple, operation: str, junk: Any) -> None:
    junk = copy.deepcopy(junk)  # shared sample values must never be mutated in place
    *parents, last = path
    node = body
    for part in parents:
        node = node[part]
    if operation == "delete":
        if isinstance(node, dict):
            del node[last]
        else:
            node.pop(last)
    elif operation == "add" and isinstance(node[last], dict):
        node[last]["fuzz_extra"] = junk
    elif operation == "retext":  # a string stays a string, often still a valid one
        if isinstance(node[last], str) and isinstance(junk, str):
            node[last] = junk
    else:
        node[last] = junk


def serialize(draw, body: Any) -> tuple[bytes, Any]:
    """(raw body, parsed body or None when it is not JSON an oracle can judge): sometimes a
    number becomes NaN or -Infinity, sometimes the body is cut short."""
    raw = json.dumps(body, ensure_ascii=draw(st.booleans())).encode("utf-8", "surrogatepass")
    trick = draw(st.sampled_from(["none"] * 12 + ["nan", "infinity", "truncate"]))
    if trick in ("nan", "infinity"):
        constant = b"NaN" if trick == "nan" else b"-Infinity"
        replaced, count = re.subn(rb"(?<=: )-?[0-9]+(?=[,}\]\n])", constant, raw, count=1)
        if count:
            return replaced, None
    if trick == "truncate":
        return raw[: draw(st.integers(min_value=0, max_value=max(len(raw) - 1, 0)))], None
    return raw, body


@st.composite
def nested_mutations(draw, original: dict, junk) -> tuple[bytes, Any]:
    """1–3 mutations anywhere in a nested fixture (replace, delete, add a key, retext a
    string), then `serialize`."""
    body = copy.deepcopy(original)
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        paths = all_paths(body)
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        operation = draw(st.sampled_from(["replace", "delete", "add", "retext", "retext"]))
        apply(body, path, operation, draw(st.text(max_size=40) if operation == "retext" else junk))
    return serialize(draw, body)


# --- Running a property ------------------------------------------------------------------

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "30"))  # per fixture, the same in every CI run
RANDOM = bool(os.environ.get("FUZZ_RANDOM"))  # FUZZ_RANDOM=1 FUZZ_EXAMPLES=500 explores further


def fuzz_settings():
    """Hypothesis settings of every receiver's property: derandomised and bounded, so CI
    runs the same cases each time; the test's fixtures live across examples."""
    return settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=not RANDOM,
        database=None,
        suppress_health_check=[
            HealthCheck.function_scoped_fixture,
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.large_base_example,
        ],
    )


class _Rollback(Exception):
    pass


def rolled_back(check, *args: Any) -> None:
    """Run one example in a savepoint that is rolled back: every example starts from the
    same data."""
    try:
        with transaction.atomic():
            check(*args)
            raise _Rollback
    except _Rollback:
        pass
