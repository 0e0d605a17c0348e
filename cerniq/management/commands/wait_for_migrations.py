"""Wait until the database is reachable and fully migrated, then exit 0.

The worker and the scheduler start next to the web process, which runs `migrate`; they
run this first (docker-compose.yml) instead of crash-looping on missing tables. It exits
non-zero, naming what is missing, when the timeout passes first.
"""

from __future__ import annotations

from time import monotonic, sleep
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections
from django.db.migrations.executor import MigrationExecutor


def unapplied_migrations(database: str = DEFAULT_DB_ALIAS) -> list[str]:
    """`app.migration` names not applied yet, in the order `migrate` would apply them."""
    executor = MigrationExecutor(connections[database])
    plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    return [f"{migration.app_label}.{migration.name}" for migration, _ in plan]


class Command(BaseCommand):
    help = "Wait for the database to be reachable and migrated (exit 1 after --timeout)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--timeout", type=float, default=300.0, help="seconds (default 300)")
        parser.add_argument("--interval", type=float, default=2.0, help="seconds between checks")
        parser.add_argument("--database", default=DEFAULT_DB_ALIAS)

    def handle(
        self, *args: Any, timeout: float, interval: float, database: str, **opts: Any
    ) -> None:
        if timeout < 0 or interval <= 0:
            raise CommandError("--timeout must be 0 or more and --interval more than 0")
        if database not in connections:
            raise CommandError(f"--database: no database {database!r} in DATABASES")
        deadline = monotonic() + timeout
        while True:
            problem = self.problem(database)
            if not problem:
                self.stdout.write("Database migrated.")
                return
            if monotonic() >= deadline:
                raise CommandError(f"gave up after {timeout:g} s: {problem}")
            self.stderr.write(f"waiting: {problem}")
            sleep(interval)

    def problem(self, database: str) -> str:
        """What keeps the database from being ready ("" when nothing does)."""
        try:
            missing = unapplied_migrations(database)
        except DatabaseError as exc:  # not reachable yet
            connections[database].close()
            return f"database not reachable ({type(exc).__name__})"
        if missing:
            return f"{len(missing)} unapplied migration(s), first {missing[0]}"
        return ""
