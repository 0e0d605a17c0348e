"""The leads' search text: one folded column per lead, and the folding shared with the query.

Why a stored column: an operator types "Agroindustriala Stirbei", "Ştirbei" (the cedilla
that old Romanian keyboards and many exports still produce) or "Știrbei" (comma below) and
expects the same company. Folding the query is not enough: the stored names must be folded
too, and folding 50,000 names in SQL on every search (a chain of REPLACE, or `unaccent`,
which SQLite lacks) reads every lead. So each lead keeps `Lead.search_text`, folded once
when it is written, and PostgreSQL indexes it with trigrams (`gin_trgm_ops`): a
`search_text LIKE '%word%'` per searched word is answered from the index. SQLite runs the
same LIKE over the rows (small databases, tests).

What goes in: the company name, the contact's name, the email, and the phone in E.164
(+40722345678) and national form (0722345678), so a fragment of either finds it. Not the
CUI: a CUI is an identifier, matched whole on its own (indexed) field by the search
(`outreach.lead_filters`); as text, a complete CUI would also find every longer CUI that
contains it (12345678 in 123456789), and CUI digits would answer phone fragments.

Kept in sync on every write: `Lead.save()` and the `LeadQuerySet` methods (`bulk_create`,
`bulk_update`, `update`) call `search_text_of` whenever a source field is written; the
import's batched UPDATE writes the column itself. A change to the folding below needs a
data migration that calls `refill` again.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable
from typing import Any

import phonenumbers
from django.db import connections, models, transaction
from django.db.models import QuerySet

# The Lead fields the search text is made of: writing any of them rewrites it.
SOURCE_FIELDS = ("name", "contact_name", "email", "phone")
_IDS_PER_QUERY = 900  # under SQLite's 999 bound parameters
MAX_WORDS = 12  # a pasted paragraph is searched by its longest words, not one LIKE per word

# Letters that Unicode does not decompose into a base letter and a mark.
_LETTERS = str.maketrans({"ł": "l", "đ": "d", "ø": "o", "ħ": "h", "ı": "i", "æ": "ae", "œ": "oe"})
# Joiners vanish ("S.R.L." is "srl", "ion.pop@" is "ionpop@"); other punctuation separates.
_JOINERS = re.compile(r"[.'’‘`´]")
_SEPARATORS = re.compile(r"[^\w@+&]+")
# "0722 345 678" and "0722-345-678" are one number: digit groups are joined.
_DIGIT_GAP = re.compile(r"(?<=\d) (?=\d)")


def fold(text: str) -> str:
    """Lower case, diacritics removed (ș ş → s, ț ţ → t, ă â → a, î → i, and any other
    letter with a mark), dots and apostrophes dropped, other punctuation and runs of
    whitespace made one space, digit groups joined. The stored text and the searched words
    are folded by this one function, so they always agree."""
    folded = text.casefold()
    if not folded.isascii():
        decomposed = unicodedata.normalize("NFKD", folded)
        folded = "".join(c for c in decomposed if not unicodedata.combining(c))
        folded = folded.translate(_LETTERS)
    folded = _SEPARATORS.sub(" ", _JOINERS.sub("", folded)).strip()
    return _DIGIT_GAP.sub("", folded)


def search_words(query: str) -> list[str]:
    """The folded words every match must contain, without words another one contains
    ("agro" adds nothing to "agroindustriala"); at most MAX_WORDS, the longest."""
    words = sorted(set(fold(query).split()), key=len, reverse=True)
    kept: list[str] = []
    for word in words:
        if not any(word in longer for longer in kept):
            kept.append(word)
    return kept[:MAX_WORDS]


@functools.cache
def _trunk_prefix(country_code: int) -> str:
    """The digits a country dials before a national number ("0" in Romania)."""
    region = phonenumbers.region_code_for_country_code(country_code)
    return phonenumbers.ndd_prefix_for_region(region, True) or ""


def national_digits(e164: str) -> str:
    """+40722345678 → 0722345678: the number as written inside its country.

    From the country code's trunk prefix, without parsing the number (50,000 leads are
    written at once by an import: a full parse each costs seconds)."""
    digits = e164.removeprefix("+")
    if not digits.isdigit():
        return ""
    for size in (1, 2, 3):  # country codes are prefix-free: the first one known is it
        code = int(digits[:size])
        if code in phonenumbers.COUNTRY_CODE_TO_REGION_CODE:
            return _trunk_prefix(code) + digits[size:]
    return ""


def search_text_of(values: Any) -> str:
    """The search text of a lead, or of anything with the source fields as attributes or
    keys (a model instance, a historical model in a migration, a dict of values)."""
    get = values.get if isinstance(values, dict) else lambda name: getattr(values, name)
    phone = get("phone") or ""
    parts = [fold(get("name") or ""), fold(get("contact_name") or ""), fold(get("email") or "")]
    if phone:
        parts += [phone, national_digits(phone)]
    return " ".join(part for part in parts if part)


def writes_sources(fields: Iterable[str] | None) -> bool:
    """Whether writing `fields` (None: all of them) changes the search text."""
    return fields is None or not set(SOURCE_FIELDS).isdisjoint(fields)


def refill(leads: QuerySet, *, chunk: int = 2000) -> int:
    """Recompute the search text of `leads` where it differs; the number changed.

    A data migration passes its historical Lead's queryset (no save() of ours there)."""
    changed, last = 0, 0
    columns = ("pk", *SOURCE_FIELDS, "search_text")
    while rows := list(leads.filter(pk__gt=last).order_by("pk").values_list(*columns)[:chunk]):
        last = rows[-1][0]
        texts = {}
        for pk, *values, stored in rows:
            text = search_text_of(dict(zip(SOURCE_FIELDS, values, strict=True)))
            if text != stored:
                texts[pk] = text
        write_search_texts(leads.model, texts, using=leads.db)
        changed += len(texts)
    return changed


def write_search_texts(model: Any, texts: dict[int, str], *, using: str = "default") -> None:
    """Store computed search texts by lead id: one UPDATE per lead, sent as one batch
    (bulk_update's CASE, a branch per lead, took a migration of 55,000 leads twice as long).
    For rows whose other columns change too, write the text in that same UPDATE instead
    (as the import does): a second UPDATE writes every row twice."""
    if not texts:
        return
    connection = connections[using]
    table, pk = (
        connection.ops.quote_name(n) for n in (model._meta.db_table, model._meta.pk.column)
    )
    with connection.cursor() as cursor:
        cursor.executemany(
            f"UPDATE {table} SET search_text = %s WHERE {pk} = %s",  # noqa: S608 (names only)
            [(text, lead_id) for lead_id, text in texts.items()],
        )


class LeadQuerySet(models.QuerySet):
    """Lead's queryset: the bulk writes keep the search text in step with its sources."""

    def bulk_create(self, objs: Iterable[Any], *args: Any, **kwargs: Any) -> list[Any]:
        objs = list(objs)
        for lead in objs:
            lead.search_text = search_text_of(lead)
        if kwargs.get("update_fields") and writes_sources(kwargs["update_fields"]):
            kwargs["update_fields"] = [*kwargs["update_fields"], "search_text"]  # an upsert
        return super().bulk_create(objs, *args, **kwargs)

    def bulk_update(self, objs: Iterable[Any], fields: Iterable[str], *args: Any, **kwargs: Any):
        fields = list(fields)
        if writes_sources(fields) and "search_text" not in fields:
            objs = list(objs)
            for lead in objs:
                lead.search_text = search_text_of(lead)
            fields.append("search_text")
        return super().bulk_update(objs, fields, *args, **kwargs)

    def update(self, **kwargs: Any) -> int:
        """A source written as one value for many leads (an admin action, a fix-up):
        their search text is recomputed from the stored rows afterwards, in the same
        transaction. Callers that can compute it (the import) pass `search_text` too."""
        if "search_text" in kwargs or not writes_sources(kwargs):
            return super().update(**kwargs)
        with transaction.atomic(using=self.db):
            ids = list(self.values_list("pk", flat=True))
            count = super().update(**kwargs)
            for start in range(0, len(ids), _IDS_PER_QUERY):
                refill(self.model._base_manager.filter(pk__in=ids[start : start + _IDS_PER_QUERY]))
        return count
