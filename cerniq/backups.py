"""Backups of the database and the media files, and restoring one (manage.py backup, restore).

django-dbbackup does the database side: its connectors dump and restore (pg_dump and
pg_restore for PostgreSQL, SQLite's online backup API) and its Storage finds the newest
backup and prunes the oldest by the date in their names. The files go to
STORAGES["dbbackup"]: a local folder or an S3-compatible bucket (settings, "Backups"). One
backup is two gzipped files named by the same UTC time:

    cerniq-db-2026-05-01-011500.psql.bin.gz   (cerniq-db-….sqlite3.gz on SQLite)
    cerniq-media-2026-05-01-011500.tar.gz     (MEDIA_ROOT: the email attachments)

A restore checks everything it can before it changes anything: the backup exists, comes
from the same database engine, and the target database holds no data (unless forced);
a file that turns out unreadable stops it before the database is touched.
"""

from __future__ import annotations

import logging
import os
import shutil
import sqlite3
import tarfile
import tempfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import IO

from dbbackup import settings as dbbackup_settings
from dbbackup import utils as dbbackup_utils
from dbbackup.db.base import BaseDBConnector, get_connector
from dbbackup.db.exceptions import CommandConnectorError
from dbbackup.db.postgresql import PgDumpBinaryConnector
from dbbackup.db.sqlite import SqliteBackupConnector
from dbbackup.storage import Storage as DbbackupStorage
from django.conf import settings
from django.core.exceptions import SuspiciousFileOperation
from django.core.files.storage import FileSystemStorage, Storage, default_storage, storages
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections

from cerniq import collation
from cerniq.collation import NAME_COLLATION

DB_PREFIX = "cerniq-db-"
MEDIA_PREFIX = "cerniq-media-"
# Tables `migrate` fills by itself: a database holding rows only there is still empty.
MIGRATE_TABLES = frozenset({"django_migrations", "django_content_type", "auth_permission"})
# Objects owned by, and grants to, whoever restores: a fresh server need not have the roles
# of the one the dump came from.
PG_RESTORE_OPTIONS = "--no-owner --no-privileges"
# dbbackup sets its command logger to DEBUG when imported (each pg_dump command line):
# back to the level the logging settings give.
logging.getLogger("dbbackup.command").setLevel(logging.NOTSET)


class BackupError(Exception):
    """A backup or restore that cannot go on; the message says why (the commands print it)."""


@dataclass(frozen=True)
class BackupResult:
    database: str  # file names in the backup storage
    media: str | None
    where: str
    removed: list[str]  # older backups deleted to keep BACKUP_KEEP


@dataclass(frozen=True)
class RestorePlan:
    """A restore that passed every check that needs no download: what `run_restore` does."""

    database: str
    media: str | None  # the media archive of the same backup, when there is one and wanted
    where: str
    target: str  # the database written to (its name)
    replace_media: bool
    using: str = DEFAULT_DB_ALIAS


@dataclass(frozen=True)
class RestoreResult:
    database: str
    media: str | None
    media_files: int  # files written into MEDIA_ROOT (existing ones are kept unless forced)


class BackupFiles(DbbackupStorage):
    """dbbackup's listing, newest and pruning over the configured storage. (Its own
    constructor takes the storage from STORAGES["dbbackup"] once, when dbbackup is imported;
    this one asks Django's storages each time, so a changed setting is seen.)"""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self.name = type(storage).__name__


def backup_files() -> BackupFiles:
    storage = storages["dbbackup"]
    if isinstance(storage, FileSystemStorage):
        # Ours alone: FileSystemStorage makes it 0700 only when it creates it itself.
        os.makedirs(storage.location, mode=0o700, exist_ok=True)
        os.chmod(storage.location, 0o700)
    return BackupFiles(storage)


def where(storage: Storage) -> str:
    """The folder or bucket, for messages (never a credential)."""
    if isinstance(storage, FileSystemStorage):
        return str(storage.location)
    bucket = getattr(storage, "bucket_name", None)
    if bucket:
        place = f"s3://{bucket}/{getattr(storage, 'location', '')}".rstrip("/") + "/"
        endpoint = getattr(storage, "endpoint_url", None)
        return f"{place} at {endpoint}" if endpoint else place
    return str(storage)


def list_backups() -> list[str]:
    """The database backups, newest first."""
    files = backup_files()
    names = [name for name in files.list_backups(content_type="db") if _is_db_backup(name)]
    return sorted(names, key=dbbackup_utils.filename_to_date, reverse=True)


# --- backup -------------------------------------------------------------------------------


def create_backup(
    *, keep: int | None = None, media: bool = True, using: str = DEFAULT_DB_ALIAS
) -> BackupResult:
    """Dump the database (and MEDIA_ROOT) into the backup storage, then delete the backups
    beyond the newest `keep` (BACKUP_KEEP)."""
    keep = settings.BACKUP_KEEP if keep is None else keep
    if keep < 1:
        raise BackupError(f"Keep at least one backup (BACKUP_KEEP / --keep is {keep}).")
    files = backup_files()
    connector = _connector(using)
    stamp = _free_stamp(files, connector.extension)
    try:
        dump = connector.create_dump()
    except (CommandConnectorError, DatabaseError, sqlite3.Error) as exc:
        raise BackupError(f"Could not dump the database: {exc}") from exc
    with dump:
        compressed, _ = dbbackup_utils.compress_file(dump, _db_name(stamp, connector.extension))
    with compressed:
        database_name = files.storage.save(_db_name(stamp, connector.extension), compressed)
    media_name = None
    if media:
        with _media_tarball(default_storage) as archive:
            media_name = files.storage.save(_media_name(stamp), archive)
    return BackupResult(database_name, media_name, where(files.storage), prune(files, keep))


def prune(files: BackupFiles, keep: int) -> list[str]:
    """Delete all but the newest `keep` database backups and media archives; return them."""
    before = set(files.list_directory())
    # dbbackup's name filters are substring matches: ours start with the prefixes.
    files.clean_old_backups(content_type="db", database=DB_PREFIX, keep_number=keep)
    files.clean_old_backups(content_type="media", database=MEDIA_PREFIX, keep_number=keep)
    return sorted(before - set(files.list_directory()))


def _free_stamp(files: BackupFiles, extension: str) -> str:
    """Now (UTC) in dbbackup's date format, a second later while a backup of that second
    exists: the storage would otherwise rename the file past recognition."""
    moment = datetime.now(UTC)
    while True:
        stamp = moment.strftime(dbbackup_settings.DATE_FORMAT)
        taken = (_db_name(stamp, extension), _media_name(stamp))
        if not any(files.storage.exists(name) for name in taken):
            return stamp
        moment += timedelta(seconds=1)


def _media_tarball(media: Storage) -> IO[bytes]:
    archive = dbbackup_utils.create_spooled_temporary_file()
    with tarfile.open(fileobj=archive, mode="w:gz") as tar:
        for name in _walk(media):
            info = tarfile.TarInfo(name)
            info.size = media.size(name)
            with media.open(name, "rb") as content:
                tar.addfile(info, content)
    archive.seek(0)
    return archive


def _walk(media: Storage, path: str = "") -> Iterator[str]:
    try:
        folders, names = media.listdir(path)
    except FileNotFoundError:  # no MEDIA_ROOT yet: nothing uploaded
        return
    for name in sorted(names):
        yield f"{path}/{name}" if path else name
    for folder in sorted(folders):
        yield from _walk(media, f"{path}/{folder}" if path else folder)


# --- restore ------------------------------------------------------------------------------


def prepare_restore(
    name: str | None = None,
    *,
    force: bool = False,
    media: bool = True,
    using: str = DEFAULT_DB_ALIAS,
) -> RestorePlan:
    """Check a restore of backup `name` (default: the newest) into database `using`:
    the backup exists, was taken from this database engine, and the database holds no data
    (unless `force`, which also replaces media files of the same name)."""
    files = backup_files()
    place = where(files.storage)
    if name is None:
        found = list_backups()
        if not found:
            raise BackupError(f"No backups in {place}.")
        name = found[0]
    if not _is_db_backup(name) or not files.storage.exists(name):
        newest = ", ".join(list_backups()[:5]) or "none"
        raise BackupError(f"No backup named {name!r} in {place}. Newest backups: {newest}.")
    connector = _connector(using)
    taken_from = _extension(name)
    if taken_from != connector.extension:
        raise BackupError(
            f"{name} is a {_ENGINES.get(taken_from, taken_from)} backup; this database is "
            f"{_ENGINES.get(connector.extension, connector.extension)}."
        )
    target = str(connections[using].settings_dict["NAME"])
    if not force:
        filled = tables_with_rows(using)
        if filled:
            raise BackupError(
                f"The database {target} is not empty ({len(filled)} tables hold rows, e.g. "
                f"{', '.join(filled[:3])}). Restore into an empty database, or pass --force "
                "to replace what it holds."
            )
    media_name = _media_name(_stamp(name)) if media else None
    if media_name and not files.storage.exists(media_name):
        media_name = None
    return RestorePlan(name, media_name, place, target, replace_media=force, using=using)


def run_restore(plan: RestorePlan) -> RestoreResult:
    """Restore the database of `plan`, then its media files. An unreadable file stops it
    before the database is touched (PostgreSQL restores in one transaction)."""
    files = backup_files()
    dump = _read_dump(files, plan.database)
    connector = _connector(plan.using)
    try:
        connector.restore_dump(dump)
    except (CommandConnectorError, DatabaseError, sqlite3.Error) as exc:
        raise BackupError(f"Restoring {plan.database} failed: {exc}") from exc
    finally:
        dump.close()
        connections[plan.using].close()
    written = 0
    if plan.media:
        written = _restore_media(files, plan.media, replace=plan.replace_media)
    return RestoreResult(plan.database, plan.media, written)


def tables_with_rows(using: str = DEFAULT_DB_ALIAS) -> list[str]:
    """The tables of database `using` holding at least one row (besides `migrate`'s own)."""
    connection = connections[using]
    quote = connection.ops.quote_name
    filled = []
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names(cursor):
            if table in MIGRATE_TABLES:
                continue
            cursor.execute(f"SELECT 1 FROM {quote(table)} LIMIT 1")  # noqa: S608 - a table name
            if cursor.fetchone():
                filled.append(table)
    return filled


def _read_dump(files: BackupFiles, name: str) -> IO[bytes]:
    try:
        with files.read_file(name) as compressed:
            dump, _ = dbbackup_utils.uncompress_file(compressed, name)
    except (OSError, EOFError, zlib.error) as exc:
        raise BackupError(f"{name} is not a readable backup (gzip: {exc}).") from exc
    dump.seek(0)
    return dump


def _restore_media(files: BackupFiles, name: str, *, replace: bool) -> int:
    written = 0
    try:
        with files.read_file(name) as raw, tarfile.open(fileobj=raw, mode="r:gz") as tar:
            for member in tar:
                content = tar.extractfile(member)  # also for a link; None for a folder
                if content is None or not member.isfile():
                    continue
                if default_storage.exists(member.name):
                    if not replace:
                        continue
                    default_storage.delete(member.name)
                default_storage.save(member.name, content)
                written += 1
    except (OSError, EOFError, zlib.error, tarfile.TarError) as exc:
        raise BackupError(
            f"The database is restored; the media archive {name} is not: {exc}"
        ) from exc
    except SuspiciousFileOperation as exc:  # a name outside MEDIA_ROOT: not one of ours
        raise BackupError(f"The database is restored; {name} holds a bad path: {exc}") from exc
    return written


# --- names and connectors -----------------------------------------------------------------

_ENGINES = {
    SqliteBackupConnector.extension: "SQLite",
    PgDumpBinaryConnector.extension: "PostgreSQL",
}


def _db_name(stamp: str, extension: str) -> str:
    return f"{DB_PREFIX}{stamp}.{extension}.gz"


def _media_name(stamp: str) -> str:
    return f"{MEDIA_PREFIX}{stamp}.tar.gz"


def _is_db_backup(name: str) -> bool:
    return (
        name.startswith(DB_PREFIX)
        and name.endswith(".gz")
        and dbbackup_utils.filename_to_datestring(name) is not None
    )


def _stamp(name: str) -> str:
    return dbbackup_utils.filename_to_datestring(name)


def _extension(name: str) -> str:
    """The engine's extension in a backup's name: psql.bin in cerniq-db-<stamp>.psql.bin.gz."""
    return name[len(DB_PREFIX) + len(_stamp(name)) + 1 : -len(".gz")]


class SqliteOnlineRestore(SqliteBackupConnector):
    """dbbackup's SQLite connector dumps with SQLite's online backup API but restores by
    writing over the database file, which corrupts a database in WAL mode (ours) while a
    connection has it open. This one restores with the same API, through the connection,
    after checking that the dump is a sound SQLite database."""

    def restore_dump(self, dump: IO[bytes]) -> None:
        with tempfile.NamedTemporaryFile(suffix=".sqlite3") as copy:
            shutil.copyfileobj(dump, copy)
            copy.flush()
            source = sqlite3.connect(copy.name)
            try:
                # The CHECK constraints call Django's SQL functions (REGEXP), which this bare
                # connection lacks; they held when the rows were written. The name columns'
                # collation is ours (cerniq.collation): the integrity check compares by it.
                source.execute("PRAGMA ignore_check_constraints = ON")
                source.create_collation(NAME_COLLATION, collation.compare)
                (verdict,) = source.execute("PRAGMA quick_check").fetchone()
                if verdict != "ok":
                    raise sqlite3.DatabaseError(f"quick_check: {verdict}")
                self.connection.ensure_connection()
                source.backup(self.connection.connection)
            finally:
                source.close()


def _connector(using: str) -> BaseDBConnector:
    connector = get_connector(using)
    if isinstance(connector, SqliteBackupConnector):
        return SqliteOnlineRestore(using)
    if isinstance(connector, PgDumpBinaryConnector):
        connector.pg_options = PG_RESTORE_OPTIONS
    return connector
