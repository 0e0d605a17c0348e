"""Password reset by e-mail (console.views.password_reset): the whole way from the login page
to signing in with the new password, what the pages never reveal, the limits, the link's
single use and expiry, and the page without e-mail."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.core.cache import cache
from django.test import Client

from tests.factories import make_user

MOMENT = datetime(2026, 11, 24, 10, 0, tzinfo=ZoneInfo("Europe/Bucharest"))
NEW_PASSWORD = "Brazda-noua-2026!"
LINK = re.compile(r"(https?://[^/\s]+)(/password-reset/[^\s]+/)")


@pytest.fixture(autouse=True)
def fresh_counts():
    """The reset limits count in the cache: each test starts with none."""
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def clock():
    """First among a test's arguments: what the other fixtures make (a signed-in session)
    is made at the moment, not weeks before it (CERNIQ_TEST_MOMENT)."""
    with time_machine.travel(MOMENT, tick=False) as traveller:
        yield traveller


@pytest.fixture
def maria(tenant):
    return make_user(tenant, username="maria", email="maria@agronord.ro")


def ask_for_link(client: Client, email: str, address: str = "203.0.113.5"):
    return client.post("/password-reset/", {"email": email}, REMOTE_ADDR=address)


def link_path(message) -> str:
    found = LINK.search(message.body)
    assert found, message.body
    return found.group(2)


def test_an_operator_resets_the_password_by_email_and_signs_in_with_it(
    clock, client, maria, mailoutbox, settings
):
    settings.PUBLIC_BASE_URL = "https://outreach.example.ro"
    login = client.get("/login/").content.decode()
    assert 'href="/password-reset/"' in login and "Forgot your password?" in login
    assert client.get("/password-reset/").status_code == 200

    response = ask_for_link(client, "Maria@AgroNord.ro")
    assert response.status_code == 302 and response["Location"] == "/password-reset/sent/"
    assert (
        "a link to set a new password is on its way"
        in client.get("/password-reset/sent/").content.decode()
    )
    (message,) = mailoutbox
    assert message.to == ["maria@agronord.ro"]
    assert message.subject == "Set a new password for Cerniq Outreach"
    assert "Hello maria," in message.body and "for 60 minutes" in message.body
    assert LINK.search(message.body).group(1) == "https://outreach.example.ro"

    form = client.get(link_path(message), follow=True)
    assert form.status_code == 200 and 'name="new_password1"' in form.content.decode()
    done = client.post(
        form.redirect_chain[-1][0],
        {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert done.status_code == 302 and done["Location"] == "/password-reset/done/"
    assert "Your new password is set" in client.get(done["Location"]).content.decode()

    fresh = Client(HTTP_ACCEPT_LANGUAGE="en")
    assert (
        fresh.post("/login/", {"username": "maria", "password": "pw-for-tests-1"}).status_code
        == 200
    )
    assert fresh.post("/login/", {"username": "maria", "password": NEW_PASSWORD}).status_code == 302
    assert fresh.get("/outreach/dashboard/").status_code == 200

    again = client.get(link_path(message), follow=True)  # the link works once
    assert "This link does not work any more" in again.content.decode()


def test_an_unknown_address_gets_the_same_answer_and_no_email(clock, client, maria, mailoutbox):
    known = ask_for_link(client, "maria@agronord.ro", address="198.51.100.1")
    unknown = ask_for_link(client, "nobody@agronord.ro", address="198.51.100.2")
    assert (known.status_code, known["Location"]) == (unknown.status_code, unknown["Location"])
    assert len(mailoutbox) == 1 and mailoutbox[0].to == ["maria@agronord.ro"]


def test_an_inactive_account_gets_no_email(clock, client, maria, mailoutbox):
    maria.is_active = False
    maria.save()
    assert ask_for_link(client, "maria@agronord.ro").status_code == 302
    assert mailoutbox == []


def test_the_link_expires_after_an_hour(clock, client, maria, mailoutbox):
    ask_for_link(client, "maria@agronord.ro")
    clock.shift(timedelta(minutes=61))
    page = client.get(link_path(mailoutbox[0]), follow=True).content.decode()
    assert "This link does not work any more" in page and 'name="new_password1"' not in page


def test_five_requests_an_hour_per_address_then_429(clock, client, maria, mailoutbox):
    for n in range(5):
        assert ask_for_link(client, f"someone{n}@example.ro").status_code == 302
    refused = ask_for_link(client, "maria@agronord.ro")
    assert refused.status_code == 429 and refused["Retry-After"] == "3600"
    assert "Too many password reset requests. Try again in 60 minutes." in refused.content.decode()
    assert mailoutbox == []
    clock.shift(timedelta(hours=1, seconds=1))
    assert ask_for_link(client, "maria@agronord.ro").status_code == 302
    assert len(mailoutbox) == 1


def test_three_requests_an_hour_per_email_address_from_anywhere(clock, client, maria, mailoutbox):
    for n in range(3):
        assert (
            ask_for_link(client, "maria@agronord.ro", address=f"198.51.100.{n}").status_code == 302
        )
    assert ask_for_link(client, "MARIA@agronord.ro", address="192.0.2.1").status_code == 429
    assert len(mailoutbox) == 3
    # The same limit for an address nobody has: a refusal says nothing about accounts.
    for n in range(3):
        ask_for_link(client, "nobody@agronord.ro", address=f"192.0.2.{10 + n}")
    assert ask_for_link(client, "nobody@agronord.ro", address="192.0.2.20").status_code == 429


def test_a_new_password_from_the_link_lifts_a_sign_in_lockout(clock, client, maria, mailoutbox):
    for _ in range(10):
        client.post(
            "/login/", {"username": "maria", "password": "wrong"}, REMOTE_ADDR="198.51.100.9"
        )
    locked = client.post("/login/", {"username": "maria", "password": "pw-for-tests-1"})
    assert locked.status_code == 429 and 'href="/password-reset/"' in locked.content.decode()

    ask_for_link(client, "maria@agronord.ro")
    form = client.get(link_path(mailoutbox[0]), follow=True)
    client.post(
        form.redirect_chain[-1][0], {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}
    )
    assert (
        client.post("/login/", {"username": "maria", "password": NEW_PASSWORD}).status_code == 302
    )


def test_without_email_the_pages_are_gone_and_the_login_page_says_ask_an_admin(
    client, maria, settings
):
    settings.PASSWORD_RESET_BY_EMAIL = False
    login = client.get("/login/").content.decode()
    assert "/password-reset/" not in login
    assert "Ask an admin of your workspace to set a new one." in login
    assert client.get("/password-reset/").status_code == 404
    assert client.post("/password-reset/", {"email": "maria@agronord.ro"}).status_code == 404
