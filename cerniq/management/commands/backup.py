"""Back up the database and the media files (cerniq.backups); the "backup" periodic job."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from cerniq.backups import BackupError, create_backup


class Command(BaseCommand):
    help = (
        "Back up the database and MEDIA_ROOT (gzipped) to the backup storage: BACKUP_DIR, or "
        "the S3-compatible bucket BACKUP_S3_BUCKET; then delete all but the newest "
        "BACKUP_KEEP backups. Restore one with `manage.py restore`."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--keep", type=int, default=None, help="backups to keep (default: BACKUP_KEEP)"
        )
        parser.add_argument(
            "--no-media", action="store_false", dest="media", help="the database only"
        )

    def handle(self, *args: Any, keep: int | None, media: bool, **options: Any) -> None:
        try:
            result = create_backup(keep=keep, media=media)
        except BackupError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"Backed up to {result.where}")
        self.stdout.write(f"  database: {result.database}")
        if result.media:
            self.stdout.write(f"  media:    {result.media}")
        for name in result.removed:
            self.stdout.write(f"  deleted (beyond the newest kept): {name}")
