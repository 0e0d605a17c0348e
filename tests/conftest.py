from __future__ import annotations

import os
from datetime import datetime

import pytest
import time_machine

from tests.clock import CLOCK_MODULES
from tests.factories import make_tenant, make_user

# A moment to run the tests at (ISO 8601 with its offset), e.g. a Saturday noon:
#   CERNIQ_TEST_MOMENT=2026-11-28T11:00:00+02:00 pytest -m clock
# CI (.ci/run) runs the tests marked `clock` (tests/clock.py) at a few fixed moments, all in
# one session: CERNIQ_TEST_MOMENTS=<moment>,<moment>,… (docs/testing-clock.md).
MOMENT_VARIABLE = "CERNIQ_TEST_MOMENT"
# Several moments, comma-separated: each `clock` test runs once per moment in one session
# (CI: one collection and one set of test databases instead of one per moment).
MOMENTS_VARIABLE = "CERNIQ_TEST_MOMENTS"


def parse_moment(raw: str, variable: str = MOMENT_VARIABLE) -> datetime:
    try:
        moment = datetime.fromisoformat(raw)
    except ValueError as error:
        raise pytest.UsageError(f"{variable}={raw!r}: not an ISO 8601 moment") from error
    if moment.utcoffset() is None:
        raise pytest.UsageError(
            f"{variable}={raw!r}: give the offset (+02:00), a wall time is ambiguous"
        )
    return moment


def moment_from_environment() -> datetime | None:
    """The moment CERNIQ_TEST_MOMENT names, or None (the real clock)."""
    raw = os.environ.get(MOMENT_VARIABLE, "").strip()
    return parse_moment(raw) if raw else None


def moments_from_environment() -> list[datetime]:
    """The moments CERNIQ_TEST_MOMENTS names (none when unset)."""
    raw = os.environ.get(MOMENTS_VARIABLE, "")
    return [parse_moment(one.strip(), MOMENTS_VARIABLE) for one in raw.split(",") if one.strip()]


def is_clock_test(config: pytest.Config, path) -> bool:  # noqa: ANN001 - a pathlib.Path
    return path.relative_to(config.rootpath).as_posix() in CLOCK_MODULES


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """With CERNIQ_TEST_MOMENTS, a `clock` test is one test per moment (its id names it)."""
    moments = moments_from_environment()
    clock = is_clock_test(metafunc.config, metafunc.definition.path) or (
        metafunc.definition.get_closest_marker("clock") is not None
    )
    pinned = metafunc.definition.get_closest_marker("own_moment") is not None
    if moments and clock and not pinned and "at_the_test_moment" in metafunc.fixturenames:
        metafunc.parametrize(
            "at_the_test_moment",
            moments,
            indirect=True,
            ids=[f"at-{moment.isoformat()}" for moment in moments],
        )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        # A test that sets its own moment before it makes anything is the same test at any
        # moment: the clock phase (-m clock) leaves it out; the main run still runs it.
        if is_clock_test(config, item.path) and item.get_closest_marker("own_moment") is None:
            item.add_marker(pytest.mark.clock)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "clock: the test (or the code it calls) depends on the date or time of day: CI runs "
        f"it again at fixed moments (a Saturday, a holiday, a DST night) via {MOMENT_VARIABLE}",
    )
    config.addinivalue_line(
        "markers",
        "own_moment: the test travels to a fixed moment of its own (tick=False, or ticking "
        "from it) before it creates anything, so CI's fixed moments would only repeat it: "
        "in a clock module, it is not a `clock` test (docs/testing-clock.md)",
    )
    moment_from_environment()  # a malformed moment stops the run before any test
    moments_from_environment()


@pytest.fixture(autouse=True)
def at_the_test_moment(request: pytest.FixtureRequest):
    """With CERNIQ_TEST_MOMENT set, every test runs from that moment on (the clock ticks):
    a test that reads the real clock where it should travel fails on the day it names.
    With CERNIQ_TEST_MOMENTS, each `clock` test runs from each moment (its parameter).
    Without either, nothing changes."""
    moment = getattr(request, "param", None) or moment_from_environment()
    if moment is None:
        yield None
        return
    with time_machine.travel(moment, tick=True):
        yield moment


@pytest.fixture(autouse=True)
def fresh_cache():
    """Every test starts with an empty cache: figures kept by id (the dashboard's counts)
    would otherwise leak from a test into the next one that reuses the ids (SQLite does).
    On Redis (CI) only at the first test: each xdist worker has a database of its own, and
    PostgreSQL never reuses an id within a run."""
    from django.core.cache import caches
    from django.core.cache.backends.locmem import LocMemCache

    global _cache_cleared
    default = caches["default"]
    if isinstance(default, LocMemCache) or not _cache_cleared:
        default.clear()
        _cache_cleared = True


_cache_cleared = False


@pytest.fixture(autouse=True)
def backups_of_its_own(tmp_path):
    """Each test's backups and erasure ledger (STORAGES["dbbackup"]) in a folder of its own:
    never the checkout's var/, and never another test's erasures applied again after a
    flush (outreach.erasure.reapply runs after every migrate)."""
    from django.conf import settings
    from django.test import override_settings

    storage = {
        "BACKEND": "django.core.files.storage.FileSystemStorage",
        "OPTIONS": {"location": str(tmp_path / "backups")},
    }
    with override_settings(STORAGES={**settings.STORAGES, "dbbackup": storage}):
        yield


@pytest.fixture(autouse=True, scope="session")
def fast_password_hasher():
    """Hash passwords with MD5 in tests: PBKDF2's million iterations cost about 0.2 s per
    user created or logged in. Production keeps Django's default hashers
    (tests/cerniq/test_password_hashing.py checks both)."""
    from django.test import override_settings

    with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]):
        yield


@pytest.fixture
def tenant(db):
    return make_tenant(name="Agro Demo", slug="agro-demo")


@pytest.fixture
def other_tenant(db):
    """'Charlie's' workspace: everything in it must be invisible to `tenant`'s users."""
    return make_tenant(name="Other Co", slug="other-co")


@pytest.fixture
def operator(tenant):
    return make_user(tenant)


@pytest.fixture
def superuser(db):
    from django.contrib.auth import get_user_model

    return get_user_model().objects.create_superuser("root", "root@example.com", "pw-for-tests-1")


@pytest.fixture(autouse=True)
def english_by_default():
    """Each test starts in English: a request in Romanian must not leak into the next test."""
    from django.utils import translation

    translation.activate("en")
    yield
    translation.deactivate()


@pytest.fixture
def client():
    """Django's test client, asking for English unless a test asks otherwise (the site's
    default language is Romanian)."""
    from django.test import Client

    return Client(HTTP_ACCEPT_LANGUAGE="en")


@pytest.fixture
def admin_client(db, admin_user):
    """pytest-django's admin client, in English like `client`."""
    from django.test import Client

    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(admin_user)
    return client


@pytest.fixture
def alert_receiver():
    """A generic alert webhook on 127.0.0.1 (tests/alert_receiver.py), for json:// and
    form:// alert channels."""
    from tests.alert_receiver import AlertReceiver

    with AlertReceiver() as receiver:
        yield receiver
