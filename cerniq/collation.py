"""Romanian order for names: Ă after A, Â after Ă, Î after I, Ș after S, Ț after T.

PostgreSQL sorts the name columns with `ro_icu`, ICU's Romanian collation (a copy of the
built-in `ro-x-icu` under a name SQLite accepts too; created by migration outreach 0020,
declared on the fields with `db_collation=NAME_COLLATION`). SQLite has no ICU, so every
SQLite connection gets a collation of the same name whose comparison is `sort_key` below:
the Unicode collation algorithm's three levels with the Romanian tailoring of CLDR, for
the characters that company and person names use (letters with any accent, digits, spaces
and common punctuation). Where ICU and this key could disagree (rare symbols), both still give a
total, stable order.

- Primary: letters by the Romanian alphabet, case and other accents ignored (É = E);
  space < punctuation < digits < letters, as in CLDR's root order. Ş/ș (cedilla) and
  Ș/ș (comma below) are the same letter, as are Ţ/ţ and Ț/ț.
- Secondary: other accents (e < é).
- Tertiary: lower case before upper case.
- Last, code points, as PostgreSQL breaks ties of a deterministic collation.
"""

from __future__ import annotations

import unicodedata
from functools import cmp_to_key

NAME_COLLATION = "ro_icu"
# The collation it copies on PostgreSQL.
ICU_LOCALE = "ro"
CREATE_ON_POSTGRESQL = (
    f"CREATE COLLATION IF NOT EXISTS {NAME_COLLATION} (provider = icu, locale = '{ICU_LOCALE}')"
)

# CLDR root order of the punctuation company names carry, after whitespace, before digits.
_PUNCTUATION = "_-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$"
_ALPHABET = "aăâbcdefghiîjklmnopqrsștțuvwxyz"
_SAME_LETTER = {"ş": "ș", "ţ": "ț"}  # cedilla forms, still common in Romanian data
_ROMANIAN = frozenset("ăâîșț")

# Primary weights: 1 whitespace, then punctuation, digits, letters; 9999 anything else.
_WEIGHTS: dict[str, int] = {" ": 1, "\t": 1, "\n": 1}
_WEIGHTS.update({c: 10 + i for i, c in enumerate(_PUNCTUATION)})
_WEIGHTS.update({str(d): 100 + d for d in range(10)})
_WEIGHTS.update({c: 200 + i for i, c in enumerate(_ALPHABET)})


def _letters(text: str):
    """(primary, secondary, tertiary) for each character of `text`."""
    for char in text:
        lower = char.lower()
        lower = _SAME_LETTER.get(lower, lower)
        upper = 1 if char != char.lower() else 0
        if lower in _ROMANIAN or lower in _WEIGHTS:
            yield _WEIGHTS[lower], 0, upper
            continue
        decomposed = unicodedata.normalize("NFD", lower)
        base, marks = decomposed[:1], decomposed[1:]
        if base in _WEIGHTS:
            yield _WEIGHTS[base], sum(ord(m) for m in marks) % 997 + 1 if marks else 0, upper
        else:
            yield 9999 + ord(char), 0, upper


def sort_key(text: str) -> tuple:
    """The key that orders `text` as PostgreSQL's ICU Romanian collation does."""
    weights = list(_letters(text or ""))
    return (
        [w[0] for w in weights],
        [w[1] for w in weights],
        [w[2] for w in weights],
        [ord(c) for c in text or ""],
    )


def compare(left: str | None, right: str | None) -> int:
    """-1, 0 or 1, as SQLite's collation callback wants."""
    a, b = sort_key(left or ""), sort_key(right or "")
    return (a > b) - (a < b)


romanian_key = cmp_to_key(compare)


def install_on_sqlite(sender, connection, **kwargs) -> None:
    """connection_created: give every SQLite connection the `ro_icu` collation."""
    if connection.vendor == "sqlite":
        connection.connection.create_collation(NAME_COLLATION, compare)
