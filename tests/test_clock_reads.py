"""A guard: no test module reads the clock when it is imported.

A module-level `NOW = timezone.now()` (or a clock read in a decorator's arguments or a
default value) is evaluated at collection, before any `time_machine.travel` and before the
moment CI runs the suite at (CERNIQ_TEST_MOMENT, docs/testing-clock.md): the test then
depends on the day it happens to run. Fixed moments are written out
(`datetime(2026, 11, 24, 10, 0, tzinfo=...)`); "now" is read inside the test."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
CLOCK_OWNERS = {"datetime", "date", "timezone", "time", "dt"}
CLOCK_READS = {"now", "today", "utcnow", "localdate", "localtime", "time", "monotonic"}


def _is_clock_read(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return False
    owner = node.func.value
    name = owner.attr if isinstance(owner, ast.Attribute) else getattr(owner, "id", "")
    return node.func.attr in CLOCK_READS and name in CLOCK_OWNERS


def _run_at_import(node: ast.AST):
    """The nodes Python evaluates when the module is imported: everything except the
    bodies of functions and lambdas (their decorators and default values are included)."""
    yield node
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        evaluated = [*node.decorator_list, *node.args.defaults, *node.args.kw_defaults]
        for child in evaluated:
            if child is not None:
                yield from _run_at_import(child)
        return
    if isinstance(node, ast.Lambda):
        for child in [*node.args.defaults, *node.args.kw_defaults]:
            if child is not None:
                yield from _run_at_import(child)
        return
    for child in ast.iter_child_nodes(node):
        yield from _run_at_import(child)


def clock_reads_at_import(source: str) -> list[int]:
    """Line numbers of the clock reads a module makes when it is imported."""
    tree = ast.parse(source)
    return sorted({n.lineno for n in _run_at_import(tree) if _is_clock_read(n)})


def test_the_guard_finds_clock_reads_at_import_and_only_those():
    source = """
import datetime as dt
from django.utils import timezone
NOW = timezone.now()
TODAY = dt.date.today()

@pytest.mark.parametrize("at", [datetime.now(UTC)])
def test_a(at, when=time.time()):
    inside = timezone.now()  # read while the test runs: fine

class Cases:
    START = timezone.localdate()

    def method(self):
        return date.today()

later = lambda: timezone.now()
"""
    assert clock_reads_at_import(source) == [4, 5, 7, 8, 12]


def test_no_test_module_reads_the_clock_at_import():
    found = {
        str(path.relative_to(TESTS.parent)): lines
        for path in sorted(TESTS.rglob("*.py"))
        if (lines := clock_reads_at_import(path.read_text(encoding="utf-8")))
    }
    assert found == {}, "read the clock inside the test, or write the moment out"


def test_the_test_moment_is_an_aware_iso_moment_or_nothing(monkeypatch):
    from tests.conftest import MOMENT_VARIABLE, moment_from_environment

    monkeypatch.setenv(MOMENT_VARIABLE, "2026-10-25T03:30:00+03:00")
    moment = moment_from_environment()
    assert moment is not None and moment.utcoffset().total_seconds() == 3 * 3600
    monkeypatch.setenv(MOMENT_VARIABLE, "")
    assert moment_from_environment() is None
    for wrong in ("2026-11-28T12:00:00", "next saturday"):  # a wall time is ambiguous
        monkeypatch.setenv(MOMENT_VARIABLE, wrong)
        with pytest.raises(pytest.UsageError, match=MOMENT_VARIABLE):
            moment_from_environment()


def test_every_module_named_date_sensitive_exists():
    """A renamed module would silently drop out of the runs at fixed moments."""
    from tests.clock import CLOCK_MODULES

    assert sorted(m for m in CLOCK_MODULES if not (TESTS.parent / m).is_file()) == []
