"""`manage.py wait_for_migrations`: 0 once the database is migrated, non-zero naming what
is missing when the timeout passes first (the worker and the scheduler run it first)."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import OperationalError, connection, connections
from django.db.migrations.loader import MigrationLoader
from django.db.migrations.recorder import MigrationRecorder

from cerniq.management.commands.wait_for_migrations import unapplied_migrations

pytestmark = pytest.mark.django_db


@pytest.fixture
def unapplied():
    """The platform's latest migration, marked not applied (rolled back after the test)."""
    (leaf,) = MigrationLoader(connection).graph.leaf_nodes("cerniq")
    MigrationRecorder(connection).record_unapplied(*leaf)
    return leaf


def test_a_migrated_database_passes_at_once(capsys):
    call_command("wait_for_migrations", "--timeout", "0")
    assert "Database migrated." in capsys.readouterr().out


def test_an_unapplied_migration_times_out_naming_it(unapplied, capsys):
    name = f"cerniq.{unapplied[1]}"
    assert unapplied_migrations() == [name]
    with pytest.raises(
        CommandError, match=rf"gave up after 0.2 s: 1 unapplied migration\(s\), first {name}$"
    ):
        call_command("wait_for_migrations", "--timeout", "0.2", "--interval", "0.05")
    assert "waiting: 1 unapplied migration(s)" in capsys.readouterr().err


def test_it_waits_until_the_migration_is_applied(unapplied, monkeypatch, capsys):
    """The web process migrates meanwhile: the wait ends as soon as nothing is missing."""
    naps = []

    def nap(seconds):
        naps.append(seconds)
        if len(naps) == 2:
            MigrationRecorder(connection).record_applied(*unapplied)

    monkeypatch.setattr("cerniq.management.commands.wait_for_migrations.sleep", nap)
    call_command("wait_for_migrations", "--timeout", "60", "--interval", "1")
    assert naps == [1.0, 1.0] and "Database migrated." in capsys.readouterr().out


def test_an_unreachable_database_is_waited_for_then_named(monkeypatch):
    def refuse():
        raise OperationalError("could not connect to server")

    monkeypatch.setattr(connections["default"], "ensure_connection", refuse)
    with pytest.raises(CommandError, match=r"database not reachable \(OperationalError\)"):
        call_command("wait_for_migrations", "--timeout", "0.1", "--interval", "0.05")


@pytest.mark.parametrize(
    "args, problem",
    [
        (["--timeout", "-1"], "--timeout must be 0 or more"),
        (["--interval", "0"], "--interval more than 0"),
        (["--database", "nosuch"], "--database: no database 'nosuch'"),
    ],
)
def test_bad_options_are_named(args, problem):
    with pytest.raises(CommandError, match=problem):
        call_command("wait_for_migrations", *args)
