"""Sign-in lockouts (cerniq.signin, django-axes): by account from anywhere, by address across
accounts, on /login/ and /admin/login/, the page that says so, the wait, and unlocking."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from io import StringIO
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.core.management import call_command
from django.test import Client

from tests.factories import make_user

MOMENT = datetime(2026, 11, 24, 10, 0, tzinfo=ZoneInfo("Europe/Bucharest"))
PASSWORD = "pw-for-tests-1"  # tests.factories.make_user's
HOME = "203.0.113.5"


@pytest.fixture
def clock():
    """First among a test's arguments: what the other fixtures make (a signed-in session)
    is made at the moment, not weeks before it (CERNIQ_TEST_MOMENT)."""
    with time_machine.travel(MOMENT, tick=False) as traveller:
        yield traveller


def sign_in(client: Client, username: str, password: str, address: str = HOME, path="/login/"):
    return client.post(path, {"username": username, "password": password}, REMOTE_ADDR=address)


def signed_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def test_an_account_locks_after_ten_failures_from_anywhere_and_the_page_says_for_how_long(
    clock, client, operator
):
    answers = [
        sign_in(client, operator.username, "wrong", address=f"198.51.100.{n}").status_code
        for n in range(1, 11)
    ]
    assert answers == [200] * 9 + [429]

    response = sign_in(client, operator.username, PASSWORD, address="192.0.2.77")
    assert response.status_code == 429 and not signed_in(client)
    assert response["Retry-After"] == "900"
    page = response.content.decode()
    assert (
        "Too many failed sign-in attempts. Try again in 15 minutes, or ask an admin to "
        "unlock your account." in page
    )
    assert "Wrong username or password" not in page
    assert f'value="{operator.username}"' in page  # the form is there to try again later

    other = make_user(operator.memberships.get().tenant, username="ioana")
    assert sign_in(client, other.username, PASSWORD).status_code == 302  # others sign in


def test_an_address_locks_after_thirty_failures_across_accounts(clock, client, operator):
    answers = [sign_in(client, f"guess{n}", "wrong").status_code for n in range(30)]
    assert answers == [200] * 29 + [429]

    assert sign_in(client, operator.username, PASSWORD).status_code == 429
    assert not signed_in(client)
    elsewhere = Client(HTTP_ACCEPT_LANGUAGE="en")
    assert sign_in(elsewhere, operator.username, PASSWORD, address="192.0.2.8").status_code == 302


def test_the_lock_ends_after_the_wait_and_each_attempt_while_locked_restarts_it(
    clock, client, operator
):
    for _ in range(10):
        sign_in(client, operator.username, "wrong")
    clock.shift(timedelta(minutes=10))
    assert sign_in(client, operator.username, PASSWORD).status_code == 429  # restarts the wait
    clock.shift(timedelta(minutes=14))
    assert sign_in(client, operator.username, "wrong").status_code == 429  # 14 of 15: locked
    clock.shift(timedelta(minutes=15, seconds=1))
    response = sign_in(client, operator.username, PASSWORD)
    assert response.status_code == 302 and signed_in(client)


def test_the_admin_login_locks_too_and_shares_the_count(clock, client, superuser):
    for _ in range(9):
        response = sign_in(client, "root", "wrong", path="/admin/login/?next=/admin/")
        assert response.status_code == 200
    response = sign_in(client, "root", "wrong", path="/admin/login/?next=/admin/")
    assert response.status_code == 429
    assert "Too many failed sign-in attempts" in response.content.decode()
    assert 'name="next" value="/admin/"' in response.content.decode()
    assert sign_in(client, "root", PASSWORD).status_code == 429  # /login/ as well
    assert sign_in(client, "root", PASSWORD, path="/admin/login/").status_code == 429


def test_signing_in_forgets_the_accounts_failures_but_not_the_addresss(clock, client, operator):
    for _ in range(9):
        sign_in(client, operator.username, "wrong")
    assert sign_in(client, operator.username, PASSWORD).status_code == 302
    client.logout()
    for _ in range(9):  # 9 more: the account starts again from none
        assert sign_in(client, operator.username, "wrong").status_code == 200
    assert sign_in(client, operator.username, PASSWORD).status_code == 302
    client.logout()

    for n in range(29):  # the address: 9 + 9 on the account were forgotten, these are not
        sign_in(client, f"guess{n}", "wrong")
    assert sign_in(client, operator.username, PASSWORD).status_code == 302
    client.logout()
    assert sign_in(client, "guess-again", "wrong").status_code == 429


def test_an_admin_unlocks_an_account_from_the_user_list(clock, client, admin_client, operator):
    for _ in range(10):
        sign_in(client, operator.username, "wrong", address="198.51.100.9")
    assert sign_in(client, operator.username, PASSWORD).status_code == 429

    response = admin_client.post(
        "/admin/auth/user/",
        {"action": "unlock_sign_in", "_selected_action": [operator.pk]},
        follow=True,
    )
    assert "Sign-in unlocked for 1 account(s)" in response.content.decode()
    assert sign_in(client, operator.username, PASSWORD).status_code == 302


def test_the_axes_commands_unlock_an_account_or_an_address(clock, client, operator):
    for _ in range(10):
        sign_in(client, operator.username, "wrong", address="198.51.100.9")
    call_command("axes_reset_username", operator.username, stdout=StringIO())
    assert sign_in(client, operator.username, PASSWORD).status_code == 302
    client.logout()

    for n in range(30):
        sign_in(client, f"guess{n}", "wrong")
    call_command("axes_reset_ip", HOME, stdout=StringIO())
    assert sign_in(client, operator.username, PASSWORD).status_code == 302


def test_behind_the_proxy_the_address_is_the_one_it_saw_not_what_the_client_wrote(
    clock, client, operator, settings
):
    settings.CLIENT_IP_HEADER = "X-Forwarded-For"
    for n in range(30):  # a forged left part each time; the proxy appended the real one
        client.post(
            "/login/",
            {"username": f"guess{n}", "password": "wrong"},
            REMOTE_ADDR="10.0.0.2",  # the proxy
            HTTP_X_FORWARDED_FOR=f"192.0.2.{n}, {HOME}",
        )
    locked = client.post(
        "/login/",
        {"username": operator.username, "password": PASSWORD},
        REMOTE_ADDR="10.0.0.2",
        HTTP_X_FORWARDED_FOR=HOME,
    )
    assert locked.status_code == 429
    other = Client(HTTP_ACCEPT_LANGUAGE="en").post(
        "/login/",
        {"username": operator.username, "password": PASSWORD},
        REMOTE_ADDR="10.0.0.2",  # the same proxy, another client behind it
        HTTP_X_FORWARDED_FOR="198.51.100.200",
    )
    assert other.status_code == 302


def test_lockout_log_lines_name_neither_the_account_nor_the_address(
    clock, client, operator, caplog
):
    with caplog.at_level(logging.INFO):
        for _ in range(10):
            sign_in(client, operator.username, "wrong")
    assert "Locking out" in caplog.text
    assert operator.username not in caplog.text and HOME not in caplog.text
