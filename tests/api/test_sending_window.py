"""GET /api/v1/sending-window/ and the phones' `next_send`: the banner's answer over the API."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
import time_machine

from tests.factories import make_phone

pytestmark = pytest.mark.django_db
SATURDAY = datetime(2026, 11, 28, 9, 0, tzinfo=UTC)


@pytest.fixture
def signed_in(read_api):
    """A read key: unlike a session, it does not expire when a test travels in time (CI
    runs these tests from other moments too, docs/testing-clock.md)."""
    return read_api


@time_machine.travel(SATURDAY, tick=False)
def test_the_window_is_closed_at_a_weekend_with_when_and_why(signed_in):
    body = signed_in.get("/api/v1/sending-window/", HTTP_ACCEPT_LANGUAGE="en").json()
    assert body["open"] is False
    assert body["opens_at"] == "2026-12-02T09:00:00+02:00"
    assert body["next_send"]["reason"] == "window_closed"
    assert body["next_send"]["window_closed_because"] == "weekend"
    assert body["next_send"]["holidays"] == ["Saint Andrew's Day", "National Day"]
    assert (body["start"], body["end"], body["working_days"]) == ("09:00", "18:00", [0, 1, 2, 3, 4])
    ro = signed_in.get("/api/v1/sending-window/", HTTP_ACCEPT_LANGUAGE="ro").json()
    assert ro["next_send"]["holidays"][-1] == "Ziua Națională a României"


@time_machine.travel(datetime(2026, 11, 25, 8, 0, tzinfo=UTC), tick=False)
def test_the_window_is_open_on_a_weekday_morning(signed_in):
    body = signed_in.get("/api/v1/sending-window/").json()
    assert (body["open"], body["next_send"]["reason"]) == (True, "now")


@time_machine.travel(SATURDAY, tick=False)
def test_a_phone_says_the_same_next_moment_and_why(signed_in, tenant):
    make_phone(tenant)
    [row] = signed_in.get("/api/v1/phones/").json()["results"]
    assert row["next_slot"] == row["next_send"]["at"]
    assert row["next_send"]["at"].startswith("2026-12-02T09:00:00")
    assert row["next_send"]["reason"] == "window_closed"


def test_without_credentials_it_is_refused(client):
    assert client.get("/api/v1/sending-window/").status_code == 401
