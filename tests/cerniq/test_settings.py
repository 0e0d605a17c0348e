"""Settings behave as the deployment contract says (checked in fresh interpreters)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

PRODUCTION_ENV = {
    "DEBUG": "false",
    "SECRET_KEY": "a-long-random-production-secret-key-7f3c9a1e5b2d8f4c6a0e9b7d3c1f5a8e2b",
    "ERASURE_HASH_KEY": "a-long-random-erasure-key-3b9f1c7e5a2d8f6c4e0a9b1d7f3c5e8a",
    "ALLOWED_HOSTS": "outreach.example.ro",
    "PUBLIC_BASE_URL": "https://outreach.example.ro",
    "DATABASE_URL": "sqlite:////tmp/cerniq-check-deploy.sqlite3",
    "TIMELINESAI_API_TOKEN": "a-timelinesai-token",
    "RESEND_API_KEY": "re_production_key",
    "RESEND_FROM": "Agro Demo <oferte@agrofirma.ro>",
    "RESEND_INBOUND_DOMAIN": "reply.agrofirma.ro",
    "RESEND_WEBHOOK_SECRET": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
    "INSTANTLY_API_KEY": "an-instantly-api-key",
    "INSTANTLY_SENDERS": "vanzari@agrofirma-mail.ro",
    "META_ACCESS_TOKEN": "EAAG-a-system-user-token",
    "META_APP_SECRET": "a-meta-app-secret",
    "META_VERIFY_TOKEN": "a-meta-verify-token",
    "MAILCHIMP_API_KEY": "0123456789abcdef0123456789abcdef-us21",
}
SANDBOX_EMAIL = "integrations.sandbox.email.SandboxEmail"


def inherited() -> dict[str, str]:
    """This process's environment without what the test environment sets for itself."""
    dropped = {"DEBUG", "SECRET_KEY", "REDIS_URL", "DJANGO_ALLOW_ASYNC_UNSAFE"}
    return {
        k: v
        for k, v in os.environ.items()
        if k not in dropped
        and not k.startswith(
            ("TIMELINESAI_", "RESEND_", "INSTANTLY_", "META_", "MAILCHIMP_", "ALLOW_SANDBOX")
        )
    }


def run_python(code: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**inherited(), "DJANGO_SETTINGS_MODULE": "cerniq.settings", **env},
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


def manage(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**inherited(), **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


SANDBOX_WHATSAPP = "integrations.sandbox.whatsapp.SandboxWhatsApp"


def test_a_sandbox_provider_in_production_fails_check_deploy_naming_it():
    env = {
        **PRODUCTION_ENV,
        "TIMELINESAI_BACKEND": SANDBOX_WHATSAPP,
        "INSTANTLY_BACKEND": SANDBOX_EMAIL,
        "ALLOW_SANDBOX_PROVIDERS": "email.instantly",
    }
    result = manage("check", "--deploy", env=env)
    assert result.returncode != 0
    assert "cerniq.E010" in result.stderr and "whatsapp.timelinesai" in result.stderr
    assert "email.instantly" not in result.stderr  # allowed on purpose above


def test_email_sandbox_without_the_opt_in_fails_check_deploy():
    env = {**PRODUCTION_ENV, "INSTANTLY_BACKEND": SANDBOX_EMAIL}
    result = manage("check", "--deploy", env=env)
    assert result.returncode != 0
    assert "email.instantly" in result.stderr
    assert "email.resend" not in result.stderr  # the real client since issue #11


def test_the_opt_in_lets_a_demo_server_use_the_sandbox():
    env = {
        **PRODUCTION_ENV,
        "TIMELINESAI_BACKEND": SANDBOX_WHATSAPP,
        "INSTANTLY_BACKEND": SANDBOX_EMAIL,
        "ALLOW_SANDBOX_PROVIDERS": "true",
    }
    result = manage("check", "--deploy", "--fail-level", "WARNING", env=env)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_wsgi_application_refuses_to_start_with_a_silent_sandbox():
    env = {**PRODUCTION_ENV, "TIMELINESAI_BACKEND": SANDBOX_WHATSAPP}
    result = run_python("import cerniq.wsgi", env)
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr and "whatsapp.timelinesai" in result.stderr
    assert run_python("import cerniq.wsgi", PRODUCTION_ENV).returncode == 0


def test_development_uses_the_sandbox_without_a_word():
    result = manage("check", "--fail-level", "WARNING", env={"DEBUG": "true"})
    assert result.returncode == 0, result.stdout + result.stderr


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


@pytest.mark.parametrize(
    ("variable", "option"),
    [
        ("INSTANTLY_SENDERS", "senders"),
        ("RESEND_FROM", "from_address"),
        ("RESEND_INBOUND_DOMAIN", "inbound_domain"),  # replies to warm emails would be lost
    ],
)
def test_check_deploy_warns_when_an_email_backend_lacks_what_it_sends_with(variable, option):
    env = {k: v for k, v in PRODUCTION_ENV.items() if k != variable}
    result = run_python(
        "import django, sys; django.setup(); from django.core.management import call_command; "
        "call_command('check', '--deploy', '--fail-level', 'WARNING')",
        env,
    )
    assert result.returncode != 0
    assert f"{option} is empty" in result.stdout + result.stderr
