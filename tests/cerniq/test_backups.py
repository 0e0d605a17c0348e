"""manage.py backup / restore (cerniq.backups): a backup restored into an empty database holds
the same rows, through a local folder and through a local S3 server (moto's, over HTTP).

The restores run as `manage.py restore` in a fresh process pointed at a new, empty database
(PostgreSQL: a database created for the test; SQLite: a new file), as an operator would.
"""

from __future__ import annotations

import gzip
import os
import socket
import sqlite3
import stat
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from cerniq import backups
from tests.factories import make_one_of_everything, make_outreach_world, make_tenant

ROOT = Path(__file__).resolve().parents[2]
BUCKET = "cerniq-backups-test"
S3_KEYS = {"BACKUP_S3_ACCESS_KEY_ID": "test-key-id", "BACKUP_S3_SECRET_ACCESS_KEY": "test-secret"}

# pg_dump and pg_restore run in processes of their own: the seeded rows must be committed.
pytestmark = pytest.mark.django_db(transaction=True)


# --- fixtures and helpers ---------------------------------------------------------------


@pytest.fixture
def media_root(tmp_path, settings) -> Path:
    settings.MEDIA_ROOT = str(tmp_path / "media")
    return tmp_path / "media"


@pytest.fixture
def backup_dir(tmp_path, settings, media_root) -> Path:
    """The local backup folder, as settings.py configures it for BACKUP_DIR."""
    folder = tmp_path / "backups"
    settings.STORAGES = {
        **settings.STORAGES,
        "dbbackup": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {
                "location": str(folder),
                "file_permissions_mode": 0o600,
                "directory_permissions_mode": 0o700,
            },
        },
    }
    return folder


@pytest.fixture
def s3_endpoint() -> Iterator[str]:
    """moto's S3 server on a free local port, with an empty bucket."""
    import requests
    from moto.server import ThreadedMotoServer

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    endpoint = f"http://127.0.0.1:{port}"
    requests.post(f"{endpoint}/moto-api/reset", timeout=10)  # moto's state is per process
    s3_client(endpoint).create_bucket(Bucket=BUCKET)
    yield endpoint
    server.stop()


def s3_client(endpoint: str):
    import boto3

    return boto3.client(
        "s3",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id=S3_KEYS["BACKUP_S3_ACCESS_KEY_ID"],
        aws_secret_access_key=S3_KEYS["BACKUP_S3_SECRET_ACCESS_KEY"],
    )


@pytest.fixture
def s3_backups(s3_endpoint, settings, media_root) -> str:
    """The backup storage in the bucket, with the options settings.py gives BACKUP_S3_*."""
    settings.STORAGES = {
        **settings.STORAGES,
        "dbbackup": {
            "BACKEND": "storages.backends.s3.S3Storage",
            "OPTIONS": {
                "bucket_name": BUCKET,
                "location": "nightly",
                "endpoint_url": s3_endpoint,
                "region_name": "us-east-1",
                "access_key": S3_KEYS["BACKUP_S3_ACCESS_KEY_ID"],
                "secret_key": S3_KEYS["BACKUP_S3_SECRET_ACCESS_KEY"],
                "default_acl": None,
                "file_overwrite": False,
                "object_parameters": {"ServerSideEncryption": "AES256"},
            },
        },
    }
    return s3_endpoint


@pytest.fixture
def empty_database(tmp_path) -> Iterator[str]:
    """The URL of a new, empty database on the engine the tests run on."""
    if connection.vendor == "sqlite":
        yield f"sqlite:///{tmp_path / 'restored.sqlite3'}"
        return
    import psycopg
    from psycopg import sql

    settings_dict = connection.settings_dict
    name = f"{settings_dict['NAME']}_restored"[:63]
    params = {k: v for k, v in connection.get_connection_params().items() if k != "dbname"}
    with psycopg.connect(dbname="postgres", autocommit=True, **params) as maintenance:
        drop = sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        maintenance.execute(drop)
        maintenance.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        user, password = settings_dict["USER"] or "", settings_dict["PASSWORD"] or ""
        credentials = f"{user}:{password}@" if password else f"{user}@" if user else ""
        host, port = settings_dict["HOST"] or "localhost", settings_dict["PORT"] or 5432
        yield f"postgres://{credentials}{host}:{port}/{name}"
        maintenance.execute(drop)


def seed() -> dict:
    """Rows in every app: one of every model, and a small enrolled outreach world."""
    world = make_one_of_everything(make_tenant())
    make_outreach_world(make_tenant(), phones=2, leads=5)
    return world


def table_names() -> list[str]:
    with connection.cursor() as cursor:
        return connection.introspection.table_names(cursor)


def counts_here(tables: list[str]) -> dict[str, int]:
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        result = {}
        for table in tables:
            cursor.execute(f"SELECT COUNT(*) FROM {quote(table)}")  # noqa: S608
            result[table] = cursor.fetchone()[0]
        return result


def counts_at(url: str, tables: list[str]) -> dict[str, int]:
    """Row counts read straight from the restored database, not through Django."""
    if url.startswith("sqlite:///"):
        db = sqlite3.connect(url.removeprefix("sqlite:///"))
        try:
            return {t: db.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0] for t in tables}  # noqa: S608
        finally:
            db.close()
    import psycopg

    with psycopg.connect(url) as db:
        return {t: db.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0] for t in tables}  # noqa: S608


def manage(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`manage.py <args>` in a fresh process: development settings, no Redis, `env`."""
    inherited = {
        k: v
        for k, v in os.environ.items()
        if k not in {"REDIS_URL", "DATABASE_URL"} and not k.startswith("BACKUP_")
    }
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**inherited, "DEBUG": "true", **env},
        capture_output=True,
        text=True,
        timeout=180,
    )


def assert_round_trip(world: dict, target_url: str, restored_media: Path, output: str) -> None:
    tables = table_names()
    expected = counts_here(tables)
    assert expected["outreach_lead"] >= 6 and expected["outreach_messageattachment"] == 1
    assert counts_at(target_url, tables) == expected
    attachment = world["attachment"].file.name
    assert (restored_media / attachment).read_bytes() == b"%PDF"
    assert "Restored cerniq-db-" in output


# --- round trips --------------------------------------------------------------------------


def test_backup_to_a_local_folder_restores_into_an_empty_database(
    backup_dir, empty_database, tmp_path
):
    world = seed()

    out = call_and_capture("backup")

    files = sorted(p.name for p in backup_dir.iterdir())
    assert [f for f in files if f.startswith("cerniq-db-")] == backups.list_backups()
    assert len(files) == 2 and files[1].startswith("cerniq-media-"), files
    assert str(backup_dir) in out and files[0] in out
    # Never world-readable: the folder is the owner's alone, the files too.
    assert stat.S_IMODE(backup_dir.stat().st_mode) == 0o700
    assert {stat.S_IMODE((backup_dir / f).stat().st_mode) for f in files} == {0o600}

    restored_media = tmp_path / "restored-media"
    result = manage(
        "restore",
        "--noinput",
        env={
            "DATABASE_URL": empty_database,
            "BACKUP_DIR": str(backup_dir),
            "MEDIA_ROOT": str(restored_media),
        },
    )

    assert result.returncode == 0, result.stderr
    assert_round_trip(world, empty_database, restored_media, result.stdout)


def test_backup_to_s3_is_private_and_encrypted_and_restores_into_an_empty_database(
    s3_backups, empty_database, tmp_path
):
    world = seed()

    result = backups.create_backup()

    listing = s3_client(s3_backups).list_objects_v2(Bucket=BUCKET)["Contents"]
    keys = sorted(item["Key"] for item in listing)
    assert keys == [f"nightly/{result.database}", f"nightly/{result.media}"]
    assert result.where == f"s3://{BUCKET}/nightly/ at {s3_backups}"
    for key in keys:
        head = s3_client(s3_backups).head_object(Bucket=BUCKET, Key=key)
        assert head["ServerSideEncryption"] == "AES256"
        grants = s3_client(s3_backups).get_object_acl(Bucket=BUCKET, Key=key)["Grants"]
        assert [g["Permission"] for g in grants] == ["FULL_CONTROL"]  # the owner alone
        assert grants[0]["Grantee"]["Type"] == "CanonicalUser"

    restored_media = tmp_path / "restored-media"
    restore = manage(
        "restore",
        "--noinput",
        env={
            "DATABASE_URL": empty_database,
            "BACKUP_S3_BUCKET": BUCKET,
            "BACKUP_S3_PREFIX": "nightly",
            "BACKUP_S3_ENDPOINT_URL": s3_backups,
            "BACKUP_S3_REGION": "us-east-1",
            **S3_KEYS,
            "MEDIA_ROOT": str(restored_media),
        },
    )

    assert restore.returncode == 0, restore.stderr
    assert_round_trip(world, empty_database, restored_media, restore.stdout)


def test_retention_keeps_the_newest_backups_and_deletes_the_oldest(s3_backups):
    import time_machine

    make_tenant()
    taken = []
    for day in (1, 2, 3):
        with time_machine.travel(datetime(2026, 3, day, 1, 15, tzinfo=UTC)):
            taken.append(backups.create_backup(keep=2))

    oldest, *kept = taken
    assert taken[-1].removed == sorted([oldest.database, oldest.media])
    assert taken[0].removed == taken[1].removed == []
    listing = s3_client(s3_backups).list_objects_v2(Bucket=BUCKET)["Contents"]
    assert sorted(item["Key"] for item in listing) == sorted(
        f"nightly/{name}" for backup in kept for name in (backup.database, backup.media)
    )
    assert backups.list_backups() == [kept[1].database, kept[0].database]
    assert "-2026-03-03-011500." in kept[1].database


# --- refusals: each changes nothing -------------------------------------------------------


@pytest.mark.parametrize("name", ["cerniq-db-2020-01-01-000000.psql.bin.gz", "db.sqlite3"])
def test_restore_of_a_missing_backup_names_it(backup_dir, name):
    with pytest.raises(CommandError, match=f"No backup named '{name}'"):
        call_command("restore", name, "--noinput")


def test_restore_refuses_a_database_that_holds_data_unless_forced(backup_dir):
    make_tenant()
    backups.create_backup()
    make_tenant()
    before = counts_here(["cerniq_tenant"])

    with pytest.raises(CommandError, match=r"is not empty \(.*cerniq_tenant.*--force"):
        call_command("restore", "--noinput")

    assert counts_here(["cerniq_tenant"]) == before == {"cerniq_tenant": 2}


def test_restore_asks_before_replacing_and_stops_on_no(backup_dir, monkeypatch):
    make_tenant()
    backups.create_backup()
    make_tenant()
    monkeypatch.setattr("builtins.input", lambda prompt: "n")

    with pytest.raises(CommandError, match="cancelled"):
        call_command("restore", "--force")

    assert counts_here(["cerniq_tenant"]) == {"cerniq_tenant": 2}


def test_forced_restore_replaces_what_the_database_holds(backup_dir):
    make_tenant(slug="kept")
    backups.create_backup(media=False)
    make_tenant(slug="gone")

    call_command("restore", "--noinput", "--force")

    from cerniq.models import Tenant

    assert list(Tenant.objects.values_list("slug", flat=True)) == ["kept"]


def _engine_extension() -> str:
    return "sqlite3" if connection.vendor == "sqlite" else "psql.bin"


@pytest.mark.parametrize(
    ("content", "other_engine", "problem"),
    [
        (b"not gzip at all", False, "is not a readable backup"),
        (gzip.compress(b"gzip, but no database inside"), False, "failed"),
        (gzip.compress(b"from the other engine"), True, "backup; this database is"),
    ],
    ids=["not-gzip", "not-a-database", "other-engine"],
)
def test_restore_of_an_unusable_file_fails_and_changes_nothing(
    backup_dir, content, other_engine, problem
):
    make_tenant(slug="still-here")
    extension = _engine_extension()
    if other_engine:
        extension = "psql.bin" if extension == "sqlite3" else "sqlite3"
    backup_dir.mkdir(mode=0o700, exist_ok=True)
    name = f"cerniq-db-2026-01-01-000000.{extension}.gz"
    (backup_dir / name).write_bytes(content)

    with pytest.raises(CommandError, match=problem):
        call_command("restore", name, "--noinput", "--force")

    from cerniq.models import Tenant

    assert list(Tenant.objects.values_list("slug", flat=True)) == ["still-here"]


def call_and_capture(*args: str) -> str:
    from io import StringIO

    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()
