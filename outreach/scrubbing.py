"""How an erasure blanks one kind of row (outreach.erasure): each data-subject export
section (outreach.person_data) says how its rows are scrubbed, with these helpers.

What is blanked: whatever names or quotes the person (names, numbers, addresses, what they
wrote and what was written to them, provider payloads, free text people typed about
them). What stays: ids, times, channels, statuses, stages and the AI's classification, so
every count and rate is unchanged. Free text that must not be empty becomes ERASED.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import phonenumbers
from django.db.models import QuerySet

from outreach.models import Lead

ERASED = "[erased]"


@dataclass(frozen=True)
class Person:
    """What an erased person's data looks like in text: their company and contact name
    (and its longer words), their number (as stored, and its national digits however it
    was written) and their address. Found before the lead row is blanked, used on every section."""

    lead_id: int
    texts: tuple[str, ...]

    @classmethod
    def of(cls, lead: Lead) -> Person:
        texts = [lead.name, lead.contact_name, lead.phone, lead.email.strip().lower()]
        texts.append(lead.whatsapp_user_id)  # WhatsApp's id of the person (a BSUID)
        # A surname on its own ("Vlădescu's farm"); short words ("Ana", "SRL") would blank
        # other people's text too.
        texts += [word for word in lead.contact_name.split() if len(word) >= 4]
        if lead.phone:
            texts.append(str(phonenumbers.parse(lead.phone).national_number))
        # Longest first, so a number is blanked whole before its digits are looked for.
        unique = sorted({t.strip() for t in texts if t and len(t.strip()) >= 3}, key=len)
        return cls(lead.pk, tuple(reversed(unique)))

    @cached_property
    def _pattern(self) -> re.Pattern[str] | None:
        if not self.texts:
            return None
        return re.compile("|".join(re.escape(t) for t in self.texts), re.IGNORECASE)

    def named_in(self, text: str) -> bool:
        pattern = self._pattern
        return bool(text) and pattern is not None and pattern.search(text) is not None

    def redact(self, text: str) -> str:
        """The text with every mention of the person replaced by ERASED."""
        pattern = self._pattern
        return pattern.sub(ERASED, text) if pattern is not None and text else text

    def redact_json(self, value: Any) -> Any:
        """A JSON value with every string that mentions the person redacted (keys too)."""
        if isinstance(value, str):
            return self.redact(value)
        if isinstance(value, list):
            return [self.redact_json(item) for item in value]
        if isinstance(value, dict):
            return {self.redact(str(k)): self.redact_json(v) for k, v in value.items()}
        return value

    def drop_lines(self, content: bytes) -> bytes:
        """A file with the lines naming the person emptied (line numbers kept, so an import
        report's "line 12" still points at the right row)."""
        text = content.decode("utf-8", errors="replace")
        lines = text.splitlines(keepends=True)
        kept = [
            (line[len(line.rstrip("\r\n")) :] if self.named_in(line) else line) for line in lines
        ]
        return "".join(kept).encode("utf-8")


Scrub = Callable[[QuerySet, Person], int]


def blank(**values: Any) -> Scrub:
    """Set these fields on every row (one UPDATE)."""

    def scrub(rows: QuerySet, person: Person) -> int:
        return rows.update(**values)

    return scrub


def redact(*fields: str, then: Iterable[Scrub] = ()) -> Scrub:
    """Redact the person's mentions in these text or JSON fields, row by row."""

    def scrub(rows: QuerySet, person: Person) -> int:
        count = 0
        for row in rows:
            changed = []
            for name in fields:
                value = getattr(row, name)
                new = person.redact_json(value)
                if new != value:
                    setattr(row, name, new)
                    changed.append(name)
            if changed:
                type(row)._default_manager.filter(pk=row.pk).update(
                    **{name: getattr(row, name) for name in changed}
                )
            count += 1
        for more in then:
            more(rows, person)
        return count

    return scrub


def delete_rows(rows: QuerySet, person: Person) -> int:
    deleted, _ = rows.delete()
    return deleted


def nothing(rows: QuerySet, person: Person) -> int:
    """Rows that hold no personal field of their own (a read mark): kept as they are."""
    return 0


def both(*scrubs: Scrub) -> Scrub:
    def scrub(rows: QuerySet, person: Person) -> int:
        return max(s(rows, person) for s in scrubs)

    return scrub


def delete_files(field: str) -> Scrub:
    """Delete each row's stored file, then the rows."""

    def scrub(rows: QuerySet, person: Person) -> int:
        count = 0
        for row in rows:
            getattr(row, field).delete(save=False)
            row.delete()
            count += 1
        return count

    return scrub


def drop_lines(field: str, *json_fields: str) -> Scrub:
    """Empty the lines of an uploaded file that name the person; redact its report."""

    def scrub(rows: QuerySet, person: Person) -> int:
        count = 0
        for row in rows:
            updates: dict[str, Any] = {field: person.drop_lines(bytes(getattr(row, field)))}
            for name in json_fields:
                updates[name] = person.redact_json(getattr(row, name))
            type(row)._default_manager.filter(pk=row.pk).update(**updates)
            count += 1
        return count

    return scrub


def analysis_kept(analysis: Any) -> dict[str, Any] | None:
    """What of a reply's stored analysis the figures read (intent, sentiment, confidence):
    the rest may quote the reply."""
    if not isinstance(analysis, dict):
        return None
    found = analysis.get("triage")
    triage: dict[str, Any] = found if isinstance(found, dict) else {}
    kept = {
        key: analysis.get(key, triage.get(key)) for key in ("intent", "sentiment", "confidence")
    }
    kept = {key: value for key, value in kept.items() if value not in (None, "")}
    return kept or None
