"""Ids and text from a request's parameters: what a page or an API view may safely look up.

A posted or queried id is a string anyone can change. Only ASCII digits naming a value a
primary key can hold pass (`"²".isdigit()` is true but `int("²")` fails; a 5,000-digit
string exceeds Python's conversion limit; 2**63 overflows PostgreSQL's bigint): anything
else is None, so a page answers "not found" or ignores it instead of a 500.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

MAX_ID = 2**63 - 1  # PostgreSQL bigint, Django's BigAutoField
_MAX_DIGITS = len(str(MAX_ID))
# No list is paged this far; a larger number would only make an OFFSET overflow a bigint.
MAX_PAGE = 1_000_000


def parse_id(value: str | None) -> int | None:
    """The id `value` names, or None when it names none (empty, not digits, out of range)."""
    text = (value or "").strip()
    if not text or len(text) > _MAX_DIGITS or not (text.isascii() and text.isdigit()):
        return None
    number = int(text)
    return number if 0 < number <= MAX_ID else None


def parse_ids(values: Iterable[str]) -> list[int]:
    """The ids among `values`, in order, without the values that name none."""
    return [pk for pk in (parse_id(v) for v in values) if pk is not None]


def parse_page(value: str | None) -> int:
    """A page number from 1 to MAX_PAGE; 1 for anything that is not one."""
    return min(parse_id(value) or 1, MAX_PAGE)


def text_param(params: Mapping[str, str], key: str) -> str:
    """A free-text parameter (a search box) trimmed, without NUL characters, which no
    PostgreSQL text can hold (a query with one would fail, not find nothing)."""
    return (params.get(key) or "").replace("\x00", "").strip()
