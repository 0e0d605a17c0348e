"""The backup settings (settings.py, "Backups"), read in fresh interpreters."""

from __future__ import annotations

import json

import pytest

from tests.cerniq.test_settings import run_python

READ = (
    "import json, django; django.setup(); from django.conf import settings as s; "
    "print(json.dumps({'jobs': {j['name']: j for j in s.PERIODIC_JOBS}, "
    "'storage': s.STORAGES['dbbackup']}))"
)


def read_settings(env: dict[str, str]) -> dict:
    result = run_python(READ, {"DEBUG": "true", "DATABASE_URL": "", **env})
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.mark.parametrize(
    ("env", "job"),
    [
        ({}, None),  # embedded mode (a demo on SQLite): backups by hand
        ({"REDIS_URL": "redis://127.0.0.1:6399/0"}, "15 3 * * *"),  # production: nightly
        ({"REDIS_URL": "redis://127.0.0.1:6399/0", "BACKUP_SCHEDULE": ""}, None),
    ],
    ids=["embedded", "production", "production-off"],
)
def test_the_backup_job_runs_nightly_in_production_unless_turned_off(env, job):
    jobs = read_settings(env)["jobs"]
    if job is None:
        assert "backup" not in jobs
    else:
        assert jobs["backup"] == {"name": "backup", "cron": job, "command": "backup"}


def test_a_bucket_sends_backups_to_s3_private_and_encrypted_with_keys_from_the_environment():
    storage = read_settings(
        {
            "BACKUP_S3_BUCKET": "acme-backups",
            "BACKUP_S3_ENDPOINT_URL": "https://s3.eu-central-003.backblazeb2.com",
            "BACKUP_S3_ACCESS_KEY_ID": "key-id",
            "BACKUP_S3_SECRET_ACCESS_KEY": "secret",
        }
    )["storage"]

    assert storage["BACKEND"] == "storages.backends.s3.S3Storage"
    options = storage["OPTIONS"]
    assert options["bucket_name"] == "acme-backups"
    assert options["location"] == "cerniq-backups"
    assert (options["access_key"], options["secret_key"]) == ("key-id", "secret")
    assert options["object_parameters"] == {"ServerSideEncryption": "AES256"}
    assert options["default_acl"] is None and options["file_overwrite"] is False
