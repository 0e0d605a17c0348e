"""Restore a backup taken by `manage.py backup` into an empty database (cerniq.backups)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from cerniq.backups import (
    BackupError,
    backup_files,
    list_backups,
    prepare_restore,
    run_restore,
)
from cerniq.backups import where as backup_place
from cerniq.restore_signal import restored


class Command(BaseCommand):
    help = (
        "Restore a backup (default: the newest) from the backup storage into the configured "
        "database, which must be empty (a new database, migrated or not) unless --force; "
        "then its media files into MEDIA_ROOT. --list shows the backups."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name", nargs="?", help="a backup's file name (see --list)")
        parser.add_argument(
            "--list", action="store_true", dest="show_list", help="list the backups, newest first"
        )
        parser.add_argument(
            "--noinput",
            "--no-input",
            action="store_false",
            dest="interactive",
            help="do not ask for confirmation",
        )
        parser.add_argument(
            "--force",
            action="store_true",
            help="replace a database that holds data, and media files of the same name",
        )
        parser.add_argument(
            "--no-media", action="store_false", dest="media", help="the database only"
        )

    def handle(
        self,
        *args: Any,
        name: str | None,
        show_list: bool,
        interactive: bool,
        force: bool,
        media: bool,
        **options: Any,
    ) -> None:
        try:
            if show_list:
                self._list()
                return
            plan = prepare_restore(name, force=force, media=media)
            if interactive and not self._confirmed(plan.database, plan.target, force):
                raise CommandError("Restore cancelled.")
            result = run_restore(plan)
        except BackupError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"Restored {result.database} from {plan.where} into {plan.target}")
        if result.media:
            self.stdout.write(f"  media: {result.media_files} files from {result.media}")
        for _receiver, said in restored.send(sender=type(self), using=plan.using):
            if said:
                self.stdout.write(f"  {said}")

    def _list(self) -> None:
        self.stdout.write(f"Backups in {backup_place(backup_files().storage)}, newest first:")
        for name in list_backups():
            self.stdout.write(f"  {name}")

    def _confirmed(self, name: str, target: str, force: bool) -> bool:
        what = "REPLACES everything in" if force else "writes into"
        try:
            answer = input(f"Restoring {name} {what} the database {target}. Continue? [y/N] ")
        except EOFError:
            return False
        return answer.strip().lower() in {"y", "yes"}
