"""`docker compose up` with only SECRET_KEY set serves http://127.0.0.1:8000.

Docker does not run here, so the web service's environment is read from
docker-compose.yml (with compose's `${VAR:-default}` interpolation) and the settings are
loaded with it in a fresh interpreter: the system checks pass and a browser's request to
http://127.0.0.1:8000 is answered, not refused for its host, redirected to https or given
cookies it would drop. Only the addresses of the postgres and redis containers, which
resolve inside compose only, are replaced by local ones.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
INTERPOLATION = re.compile(r"\$\{(?P<name>\w+)(?::(?P<op>[-?])(?P<arg>[^}]*))?\}")

PROBE = """
import json, django
django.setup()
from django.conf import settings
from django.core.management import call_command
from django.test import Client, override_settings
call_command("check", "--fail-level", "ERROR")
# The image runs collectstatic at build time; here the static files are served unhashed.
plain_static = {**settings.STORAGES, "staticfiles": {
    "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}
with override_settings(STORAGES=plain_static):
    response = Client().get("/login/", HTTP_HOST="127.0.0.1:8000")
cookie = response.cookies.get(settings.CSRF_COOKIE_NAME)
print(json.dumps({
    "status": response.status_code,
    "location": response.get("Location"),
    "csrf_cookie_secure": bool(cookie and cookie["secure"]),
    "session_cookie_secure": settings.SESSION_COOKIE_SECURE,
    "debug": settings.DEBUG,
    "public_base_url": settings.PUBLIC_BASE_URL,
}))
"""


def interpolate(value: str, shell: dict[str, str]) -> str:
    def substitute(match: re.Match[str]) -> str:
        name, op, arg = match["name"], match["op"], match["arg"]
        if shell.get(name):
            return shell[name]
        if op == "?":
            raise AssertionError(f"compose requires {name}: {arg}")
        return arg or ""

    return INTERPOLATION.sub(substitute, value)


def web_environment(shell: dict[str, str]) -> dict[str, str]:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    environment = compose["services"]["web"]["environment"]
    return {name: interpolate(str(value), shell) for name, value in environment.items()}


def probe(shell: dict[str, str]) -> dict[str, object]:
    env = web_environment(shell)
    assert env["DATABASE_URL"].startswith("postgres://") and env["REDIS_URL"]
    scratch = tempfile.mkdtemp(prefix="cerniq-compose-")
    env["DATABASE_URL"] = f"sqlite:///{scratch}/db.sqlite3"
    env["PROMETHEUS_MULTIPROC_DIR"] = scratch
    del env["REDIS_URL"]
    inherited = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DEBUG", "REDIS_", "DJANGO_ALLOW_ASYNC", "PUBLIC_BASE_URL"))
    }
    result = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        env={**inherited, "DJANGO_SETTINGS_MODULE": "cerniq.settings", **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_compose_defaults_serve_plain_http_on_this_machine():
    answer = probe({"SECRET_KEY": "a-secret-key-set-in-dot-env-for-the-local-trial-0123456789"})
    assert answer["debug"] is False
    assert answer["status"] == 200, answer  # not 400 (host) nor 301 (https redirect)
    assert answer["csrf_cookie_secure"] is False  # a browser keeps it over http: login works
    assert answer["session_cookie_secure"] is False
    assert answer["public_base_url"] == "http://127.0.0.1:8000"


def test_compose_behind_tls_gets_secure_cookies_from_its_public_address():
    answer = probe(
        {
            "SECRET_KEY": "a-secret-key-set-in-dot-env-for-the-real-server-0123456789",
            "PUBLIC_BASE_URL": "https://outreach.example.ro",
            "ALLOWED_HOSTS": "outreach.example.ro,127.0.0.1",
        }
    )
    assert answer["csrf_cookie_secure"] is True
    assert answer["session_cookie_secure"] is True


def test_compose_still_requires_a_secret_key():
    try:
        web_environment({})
    except AssertionError as refused:
        assert "SECRET_KEY" in str(refused)
    else:
        raise AssertionError("docker-compose.yml runs without SECRET_KEY")


def test_production_without_a_public_address_fails_the_checks():
    env = {
        "DEBUG": "false",
        "SECRET_KEY": "a-long-random-production-secret-key-7f3c9a1e5b2d8f4c6a0e9b7d3c1f5a8e2b",
        "ALLOWED_HOSTS": "outreach.example.ro",
        "DATABASE_URL": f"sqlite:///{tempfile.mkdtemp()}/db.sqlite3",
    }
    inherited = {
        k: v for k, v in os.environ.items() if not k.startswith(("REDIS_", "PUBLIC_BASE_URL"))
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=ROOT,
        env={**inherited, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode != 0
    assert "cerniq.E020" in result.stderr and "PUBLIC_BASE_URL is not set" in result.stderr
