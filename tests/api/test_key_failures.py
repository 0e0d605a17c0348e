"""Wrong API keys from one address: 429 in the API's error shape with Retry-After, for any
key that address sends, until the wait is over; valid keys elsewhere are not slowed.
Which address: the trusted one (cerniq.client_ip), also for the per-address throttle."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.test import override_settings
from rest_framework.test import APIClient

from tests.factories import make_user

MOMENT = datetime(2026, 11, 24, 10, 0, tzinfo=ZoneInfo("Europe/Bucharest"))
LEADS = "/api/v1/leads/"
GUESSER = "203.0.113.66"


@pytest.fixture
def clock():
    """First among a test's arguments: what the other fixtures make (a signed-in session)
    is made at the moment, not weeks before it (CERNIQ_TEST_MOMENT)."""
    with time_machine.travel(MOMENT, tick=False) as traveller:
        yield traveller


def call(key: str, address: str = GUESSER, **headers: str):
    client = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    return client.get(LEADS, HTTP_AUTHORIZATION=f"Api-Key {key}", REMOTE_ADDR=address, **headers)


def test_twenty_wrong_keys_then_429_with_retry_after_for_any_key_until_the_wait_ends(
    clock, read_key
):
    assert [call(f"guess{n}.secret").status_code for n in range(20)] == [401] * 20

    refused = call(read_key)  # the right key too: a guesser learns nothing more
    assert refused.status_code == 429
    assert refused["Retry-After"] == "900"
    error = refused.json()["error"]
    assert error["code"] == "throttled" and error["fields"] == {}
    assert error["message"].startswith("Too many wrong API keys from your address.")
    assert call("guess.again").status_code == 429

    assert call(read_key, address="198.51.100.10").status_code == 200  # other addresses: as usual

    clock.shift(timedelta(minutes=10))
    assert call(read_key)["Retry-After"] == "300"
    clock.shift(timedelta(minutes=5, seconds=1))
    assert call(read_key).status_code == 200
    assert call("guess.after").status_code == 401  # counting starts afresh


def test_valid_keys_never_count_and_the_count_is_per_window(clock, read_key):
    for _ in range(30):
        assert call(read_key).status_code == 200
    for n in range(19):
        assert call(f"guess{n}.secret").status_code == 401
    clock.shift(timedelta(minutes=10))  # the next window
    for n in range(19):
        assert call(f"again{n}.secret").status_code == 401
    assert call(read_key).status_code == 200


def test_a_revoked_or_expired_key_counts_as_a_wrong_one(clock, tenant, tenant_admin):
    from cerniq import api_keys

    stored, key = api_keys.create_key(tenant, name="old", scope="read", user=tenant_admin)
    api_keys.revoke_key(tenant, stored.prefix, user=tenant_admin)
    for _ in range(20):
        assert call(key).status_code == 401
    assert call(key).status_code == 429


@override_settings(CLIENT_IP_HEADER="X-Forwarded-For")
def test_behind_the_proxy_a_forged_forwarded_for_does_not_escape_the_count(clock, read_key):
    for n in range(20):
        response = call(
            f"guess{n}.secret", address="10.0.0.2", HTTP_X_FORWARDED_FOR=f"192.0.2.{n}, {GUESSER}"
        )
        assert response.status_code == 401
    assert call(read_key, address="10.0.0.2", HTTP_X_FORWARDED_FOR=GUESSER).status_code == 429
    other = call(read_key, address="10.0.0.2", HTTP_X_FORWARDED_FOR="198.51.100.10")
    assert other.status_code == 200


@override_settings(API_THROTTLE_RATE="3/min")
def test_the_per_address_throttle_ignores_a_forwarded_for_it_was_not_told_to_trust(clock, tenant):
    client = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    answers = [
        client.get("/api/schema/", REMOTE_ADDR=GUESSER, HTTP_X_FORWARDED_FOR=f"192.0.2.{n}")
        for n in range(4)
    ]
    assert [response.status_code for response in answers] == [200, 200, 200, 429]


def test_a_signed_in_operator_is_not_counted_by_address(clock, tenant):
    client = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(make_user(tenant))
    for n in range(20):
        call(f"guess{n}.secret")
    assert client.get(LEADS, REMOTE_ADDR=GUESSER).status_code == 200
