"""Hostile inputs, shared by the tests that send them (tests/api/test_hostile_shapes.py,
tests/test_hostile_api.py, tests/test_hostile_forms.py): the values (hypothesis strategies
and a fixed set every field gets), a tenant with one row of everything, the ids each API
collection's routes take, a snapshot of the whole database (to show a refusal changed
nothing and a hostile value was never stored), and the API's error shape.

Each case runs in a savepoint rolled back afterwards (`run_case`), so every case starts from
the same rows and one snapshot taken before all of them is the "before" of each.
"""

from __future__ import annotations

import contextlib
import json
import logging
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from django.apps import apps
from django.db import connection, models, transaction
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests.factories import make_one_of_everything

OVERSIZE = 100_001  # characters: more than any text field of ours takes (60,000 at most)
HUGE_COUNT = 20_000  # items or keys: more than any list or object of ours takes
CONTROL = ["\x00", "\x01", "\x07", "\x08", "\x0b", "\x0c", "\x1b", "\x7f", "\x85", "\x9b"]
SURROGATES = ["\ud800", "\udfff"]
# Columns a request may touch without changing anything a person would call data.
VOLATILE = {("cerniq", "tenantapikey"): {"last_used_at"}, ("sessions", "session"): {"*"}}


# --- the values --------------------------------------------------------------------------


@dataclass(frozen=True)
class Hostile:
    kind: str
    raw: bytes  # the value as JSON text (API) or as form text (pages)
    must_refuse: bool  # hostile whatever the field (else: a value some field may take)
    marker: str = ""  # what shows it stored: a run of it, the character itself

    def __repr__(self) -> str:
        return f"Hostile({self.kind!r}, {len(self.raw)} bytes)"


def _json(value: Any) -> bytes:
    return json.dumps(value).encode()


def oversize(n: int = OVERSIZE, *, as_json: bool = True) -> Hostile:
    text = "x" * n
    return Hostile("oversize", _json(text) if as_json else text.encode(), True, "x" * 1000)


def control(char: str, *, as_json: bool = True) -> Hostile:
    text = f"Agro {char} SRL"
    raw = _json(text) if as_json else text.encode("utf-8", "surrogatepass")
    return Hostile(f"U+{ord(char):04X}", raw, True, char)


def not_utf8(*, as_json: bool = True) -> Hostile:
    raw = b'"Agro \xff\xfe SRL"' if as_json else b"Agro \xff\xfe SRL"
    return Hostile("not UTF-8", raw, True, "\ufffd")


def huge_number(digits: int, *, must_refuse: bool) -> Hostile:
    return Hostile(f"a {digits}-digit number", b"9" * digits, must_refuse, "9" * 20)


def nested(depth: int) -> Hostile:
    return Hostile(f"nested {depth} deep", b"[" * depth + b'"x"' + b"]" * depth, True)


def huge_list(item: bytes) -> Hostile:
    return Hostile("huge count", b"[" + b",".join([item] * HUGE_COUNT) + b"]", True)


def huge_object() -> Hostile:
    keys = b",".join(b'"k%d":"x"' % n for n in range(HUGE_COUNT))
    return Hostile("huge count", b"{" + keys + b"}", True)


def hostile_text(*, as_json: bool = True) -> st.SearchStrategy[Hostile]:
    """Hostile as text, whatever the field."""
    return st.one_of(
        st.integers(OVERSIZE, 4 * OVERSIZE).map(lambda n: oversize(n, as_json=as_json)),
        st.sampled_from(CONTROL + (SURROGATES if as_json else [])).map(
            lambda c: control(c, as_json=as_json)
        ),
        st.just(not_utf8(as_json=as_json)),
    )


def wrong_types(values: list[str]) -> st.SearchStrategy[Hostile]:
    return st.sampled_from(values).map(
        lambda raw: Hostile(f"wrong type {raw!r}", raw.encode(), False)
    )


def fuzz(strategy: st.SearchStrategy, examples: int) -> Callable:
    """@given with the runs' settings: derandomized (CI sees the same cases every time), no
    shrinking (the values are simple), no deadline, no health check on large data."""

    def decorate(test: Callable) -> Callable:
        return settings(
            max_examples=examples,
            phases=[Phase.explicit, Phase.generate],
            derandomize=True,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )(given(case=strategy)(test))

    return decorate


def failed(run: Callable[[], None]) -> list[str]:
    """Run one operation's or form's cases; a failure as a line, so one run lists all."""
    try:
        run()
    except Exception as failure:  # noqa: BLE001 - an assertion, or hypothesis' report of one
        return [str(failure).split("\n+")[0][:2000]]
    return []


# --- the rows ----------------------------------------------------------------------------


def one_of_everything(tenant: Any) -> tuple[dict[str, Any], dict[str, int]]:
    """The rows, and a real id for each collection of /api/v1/<collection>/{id}/."""
    rows = make_one_of_everything(tenant)
    ids = {
        "leads": rows["lead"].pk,
        "companies": rows["lead"].company_id,
        "phones": rows["phone"].pk,
        "reviews": rows["review"].pk,
        "messages": rows["message"].pk,
        "sequences": rows["sequence"].pk,
        "templates": rows["template"].pk,
        "webhooks": rows["webhook_endpoint"].pk,
        "webhook-deliveries": rows["webhook_delivery"].pk,
        "imports": rows["import_job"].pk,
        "quick-replies": rows["quick_reply"].pk,
        "suppressions": rows["suppression"].pk,
    }
    return rows, ids


def api_path(template: str, ids: dict[str, int]) -> str:
    """/api/v1/leads/{id}/pause/ with a real lead's id."""
    collection = template.split("/")[3]
    return template.replace("{id}", str(ids.get(collection, ids["leads"])))


def snapshot() -> dict[str, list[dict]]:
    """Every row of every table, as values (volatile columns left out)."""
    found = {}
    for model in apps.get_models():
        meta = model._meta
        skip = VOLATILE.get((meta.app_label, meta.model_name), set())
        if meta.proxy or not meta.managed or "*" in skip:
            continue
        names = [
            f.attname
            for f in meta.concrete_fields
            if f.attname not in skip and not isinstance(f, models.FileField)
        ]
        found[meta.label] = list(model._default_manager.order_by("pk").values(*names))
    return found


def changed_tables(before: dict[str, list[dict]], after: dict[str, list[dict]]) -> list[str]:
    return [label for label in before if before[label] != after.get(label)]


def writes() -> int | None:
    """Rows the connection has written so far; None where it cannot tell. SQLite counts
    them per connection; PostgreSQL per transaction (pg_stat_xact_user_tables: rows
    inserted, updated or deleted so far in this transaction, savepoints rolled back
    included, so the sum only grows). Without it, every case on PostgreSQL read every
    table to look for a change: most of the hostile tests' time in CI."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT COALESCE(SUM(n_tup_ins + n_tup_upd + n_tup_del), 0)"
                " FROM pg_stat_xact_user_tables"
            )
            return int(cursor.fetchone()[0])
    raw = connection.connection
    return raw.total_changes if connection.vendor == "sqlite" and raw is not None else None


@dataclass
class Outcome:
    """What a case did to the database: the tables it changed, and the rows after it."""

    before: dict[str, list[dict]]
    written: bool = True
    after: dict[str, list[dict]] | None = None

    def changed(self) -> list[str]:
        return changed_tables(self.before, self.after) if self.written and self.after else []

    def stored(self, marker: str) -> list[str]:
        """The tables with a new or changed row holding `marker` in any of its values."""
        if not self.written or self.after is None:
            return []
        found = []
        for label, rows in self.after.items():
            old = self.before.get(label, [])
            if any(marker in text for row in rows if row not in old for text in texts(row)):
                found.append(label)
        return found


def run_case(before: dict[str, list[dict]], send: Callable[[], Any]) -> tuple[Any, Outcome]:
    """Send one request in a savepoint rolled back afterwards, so every case starts from the
    same rows; what it wrote (a snapshot only when the connection wrote anything)."""
    with transaction.atomic():
        start = writes()
        response = send()
        written = start is None or writes() != start
        outcome = Outcome(before, written, snapshot() if written else None)
        transaction.set_rollback(True)
    return response, outcome


def texts(value: Any) -> Iterator[str]:
    """Every text inside a stored value (JSON columns walked, bytes as Latin-1)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, bytes | memoryview):
        yield bytes(value).decode("latin-1")
    elif isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from texts(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from texts(item)
    elif value is not None:
        yield str(value)


# --- the answers -------------------------------------------------------------------------


def assert_error_shape(response: Any, where: str) -> dict:
    """The API's one error shape: {"error": {"code", "message", "fields"}}, a message said."""
    assert response["Content-Type"].startswith("application/json"), (where, response.content[:200])
    error = response.json()["error"]
    assert set(error) >= {"code", "message", "fields"}, (where, error)
    assert error["message"], where
    return error


class LastError(logging.Handler):
    """The traceback of the last error logged: a 5xx's cause, for the failure message."""

    text = ""

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info:
            LastError.text = "".join(traceback.format_exception(*record.exc_info))[-1500:]


@contextlib.contextmanager
def errors_logged() -> Iterator[type[LastError]]:
    handler = LastError(level=logging.ERROR)
    logging.getLogger().addHandler(handler)
    try:
        yield LastError
    finally:
        logging.getLogger().removeHandler(handler)
