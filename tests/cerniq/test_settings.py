"""Settings behave as the deployment contract says (checked in fresh interpreters)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PRODUCTION_ENV = {
    "DEBUG": "false",
    "SECRET_KEY": "a-long-random-production-secret-key-7f3c9a1e5b2d8f4c6a0e9b7d3c1f5a8e2b",
    "ALLOWED_HOSTS": "outreach.example.ro",
    "DATABASE_URL": "sqlite:////tmp/cerniq-check-deploy.sqlite3",
}


def run_python(code: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    dropped = {"DEBUG", "SECRET_KEY", "REDIS_URL", "DJANGO_ALLOW_ASYNC_UNSAFE"}
    base = {k: v for k, v in os.environ.items() if k not in dropped}
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**base, "DJANGO_SETTINGS_MODULE": "cerniq.settings", **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_production_refuses_to_start_without_secret_key():
    env = {k: v for k, v in PRODUCTION_ENV.items() if k != "SECRET_KEY"}
    result = run_python("import django; django.setup()", env)
    assert result.returncode != 0
    assert "SECRET_KEY is not set" in result.stderr


def test_debug_mode_gets_a_development_key():
    result = run_python(
        "import django; django.setup(); from django.conf import settings; "
        "print(settings.SECRET_KEY.startswith('django-insecure'))",
        {"DEBUG": "true"},
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "True"


def test_check_deploy_is_clean_with_production_values():
    result = run_python(
        "import django, sys; django.setup(); from django.core.management import call_command; "
        "call_command('check', '--deploy', '--fail-level', 'WARNING')",
        PRODUCTION_ENV,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def broker_class_name(env: dict[str, str]) -> str:
    result = run_python(
        "import django; django.setup(); import dramatiq; "
        "print(type(dramatiq.get_broker()).__name__)",
        {"DEBUG": "true", **env},
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_broker_is_a_stub_without_redis_url():
    assert broker_class_name({}) == "StubBroker"


def test_broker_is_redis_when_redis_url_is_set():
    # RedisBroker connects lazily, so no server is needed to see which broker is wired.
    assert broker_class_name({"REDIS_URL": "redis://127.0.0.1:6399/0"}) == "RedisBroker"


def test_embedded_defaults_are_sqlite_under_var_and_bucharest_time():
    result = run_python(
        "import django; django.setup(); from django.conf import settings as s; "
        "print(s.DATABASES['default']['ENGINE'], s.DATABASES['default']['NAME'], "
        "s.TIME_ZONE, s.USE_TZ, s.EMBEDDED)",
        {"DEBUG": "true", "DATABASE_URL": ""},
    )
    assert result.returncode == 0, result.stderr
    engine, name, tz, use_tz, embedded = result.stdout.split()
    assert engine == "django.db.backends.sqlite3"
    assert name == str(ROOT / "var" / "db.sqlite3")
    assert (tz, use_tz, embedded) == ("Europe/Bucharest", "True", "True")
