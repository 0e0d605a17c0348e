"""Tests hash passwords with a fast hasher (tests/conftest.py); production keeps Django's."""

from __future__ import annotations

import pytest
from django.contrib.auth.hashers import get_hasher

from tests.cerniq.test_settings import PRODUCTION_ENV, run_python
from tests.factories import make_user


def test_production_hashes_passwords_with_django_defaults():
    result = run_python(
        "import django; django.setup(); from django.conf import settings; "
        "from django.contrib.auth.hashers import get_hasher; "
        "print(get_hasher().algorithm, *settings.PASSWORD_HASHERS)",
        PRODUCTION_ENV,
    )
    assert result.returncode == 0, result.stderr
    algorithm, *hashers = result.stdout.split()
    assert algorithm == "pbkdf2_sha256"
    assert "django.contrib.auth.hashers.Argon2PasswordHasher" in hashers
    assert not any("MD5" in hasher for hasher in hashers)


@pytest.mark.django_db
def test_the_test_run_uses_the_fast_hasher():
    assert get_hasher().algorithm == "md5"
    user = make_user()
    assert user.password.startswith("md5$")
    assert user.check_password("pw-for-tests-1")
