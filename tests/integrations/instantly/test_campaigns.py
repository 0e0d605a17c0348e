"""Campaign and lead payloads, and the time zone mapping onto Instantly's closed list.

The mapping is checked against zoneinfo independently of the code under test: for every
day of the year (at every hour) the tenant's zone and the chosen zone give the same UTC
offset, so the sending window opens and closes at the same instants."""

from __future__ import annotations

import json
from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest

from integrations.instantly.campaigns import (
    Schedule,
    campaign_payload,
    lead_payload,
    schedule_payload,
    text_to_html,
)
from integrations.instantly.timezones import (
    ALLOWED_TIMEZONES,
    UnsupportedTimezone,
    instantly_timezone,
)
from outreach.hours import SendingWindow
from tests.factories import make_tenant
from tests.integrations.instantly.conftest import API_FIXTURES

YEAR = 2026


def same_clock_every_hour(a: str, b: str, year: int = YEAR) -> bool:
    """Same UTC offset every day of `year` (a quick pass), then at every hour of it."""
    start = datetime(year, 1, 1, tzinfo=UTC)
    za, zb = ZoneInfo(a), ZoneInfo(b)
    for step in (24, 1):
        for hour in range(0, 366 * 24, step):
            at = start + timedelta(hours=hour)
            if at.astimezone(za).utcoffset() != at.astimezone(zb).utcoffset():
                return False
    return True


def test_the_list_is_instantlys_102_zones_and_zoneinfo_knows_them_all():
    assert len(ALLOWED_TIMEZONES) == len(set(ALLOWED_TIMEZONES)) == 102
    for zone in ALLOWED_TIMEZONES:
        ZoneInfo(zone)
    assert "America/New_York" not in ALLOWED_TIMEZONES
    assert "Europe/London" not in ALLOWED_TIMEZONES


def test_bucharest_is_accepted_as_it_is():
    assert instantly_timezone("Europe/Bucharest", year=YEAR) == "Europe/Bucharest"


@pytest.mark.parametrize(
    ("zone", "expected"),
    [
        ("Europe/London", "Europe/Isle_of_Man"),
        ("America/New_York", "America/Detroit"),
        ("Europe/Kyiv", "Europe/Bucharest"),
        ("Europe/Athens", "Europe/Bucharest"),
        ("Europe/Sofia", "Europe/Bucharest"),
        ("Europe/Berlin", "Europe/Belgrade"),
        ("America/Denver", "America/Boise"),
    ],
)
def test_a_zone_not_listed_maps_to_a_listed_zone_with_the_same_clock(zone, expected):
    mapped = instantly_timezone(zone, year=YEAR)
    assert mapped == expected and mapped in ALLOWED_TIMEZONES
    assert same_clock_every_hour(zone, mapped)
    assert same_clock_every_hour(zone, mapped, YEAR + 1)


@pytest.mark.parametrize("zone", ["America/Los_Angeles", "Europe/Chisinau"])
def test_a_zone_without_a_twin_is_refused_not_approximated(zone):
    # Los Angeles: no Pacific zone with DST in the list. Chisinau: +2/+3 like Bucharest,
    # but it changes over at 02:00/03:00 local, not at 01:00 UTC (checked below).
    assert not any(same_clock_every_hour(zone, allowed) for allowed in ALLOWED_TIMEZONES)
    with pytest.raises(UnsupportedTimezone, match=zone):
        instantly_timezone(zone, year=YEAR)


def test_an_unknown_zone_is_refused():
    with pytest.raises(UnsupportedTimezone):
        instantly_timezone("Mars/Olympus_Mons")


def test_the_schedule_uses_sunday_first_days_and_whole_minutes():
    schedule = Schedule("Europe/London", time(9, 0), time(17, 30), frozenset({0, 1, 2, 3, 4}))
    payload = schedule_payload(schedule, year=YEAR)["schedules"][0]
    assert payload["timing"] == {"from": "09:00", "to": "17:30"}
    assert payload["days"] == {
        "0": False, "1": True, "2": True, "3": True, "4": True, "5": True, "6": False
    }  # fmt: skip
    assert payload["timezone"] == "Europe/Isle_of_Man"
    saturday = Schedule("Europe/Bucharest", time(9), time(13), frozenset({5, 6}))
    assert schedule_payload(saturday)["schedules"][0]["days"]["6"] is True  # Saturday
    assert schedule_payload(saturday)["schedules"][0]["days"]["0"] is True  # Sunday
    with pytest.raises(ValueError):
        schedule_payload(Schedule("Europe/Bucharest", time(9, 0, 30), time(17), frozenset({0})))


def test_the_schedule_comes_from_the_tenants_sending_window(db):
    tenant = make_tenant(
        time_zone="Europe/Bucharest", window_start=time(8), window_end=time(16),
        working_days=[0, 1, 2, 3, 4, 5],
    )  # fmt: skip
    schedule = Schedule.for_window(SendingWindow.for_tenant(tenant))
    payload = schedule_payload(schedule)["schedules"][0]
    assert payload["timezone"] == "Europe/Bucharest"
    assert payload["timing"] == {"from": "08:00", "to": "16:00"}
    assert [day for day, on in payload["days"].items() if on] == ["1", "2", "3", "4", "5", "6"]


def payload(**overrides):
    args = {
        "name": "Ferme Moldova Q4",
        "step_delays_days": [0, 3, 4],
        "schedule": Schedule("Europe/Bucharest", time(9), time(18), frozenset(range(5))),
        "daily_limit": 40,
        "senders": ["vanzari@cerniq-mail.ro"],
    }
    return campaign_payload(**{**args, **overrides})


def test_the_campaign_steps_are_placeholders_filled_per_lead():
    steps = payload()["sequences"][0]["steps"]
    assert [s["variants"] for s in steps] == [
        [{"subject": "{{subject_1}}", "body": "{{body_1}}"}],
        [{"subject": "{{subject_2}}", "body": "{{body_2}}"}],
        [{"subject": "{{subject_3}}", "body": "{{body_3}}"}],
    ]
    # Instantly's delay is the wait before the NEXT step; ours the wait before this one.
    assert [s["delay"] for s in steps] == [3, 4, 0]
    assert {s["type"] for s in steps} == {"email"} and {s["delay_unit"] for s in steps} == {"days"}


def test_the_campaign_stops_on_reply_and_has_safe_defaults():
    body = payload()
    assert body["stop_on_reply"] is True and body["stop_on_auto_reply"] is False
    assert body["insert_unsubscribe_header"] is True and body["stop_for_company"] is False
    assert body["open_tracking"] is False and body["link_tracking"] is False
    assert body["email_list"] == ["vanzari@cerniq-mail.ro"] and body["daily_limit"] == 40
    assert payload(open_tracking=True, email_gap_minutes=12)["email_gap"] == 12


def test_the_payload_has_the_shape_of_the_recorded_campaign():
    recorded = json.loads((API_FIXTURES / "campaign_create.json").read_text())
    body = payload(step_delays_days=[0, 3])
    assert body["campaign_schedule"] == recorded["campaign_schedule"]
    assert body["sequences"] == recorded["sequences"]


@pytest.mark.parametrize(
    "bad",
    [
        {"name": " "},
        {"step_delays_days": []},
        {"step_delays_days": [0, -1]},
        {"step_delays_days": [0, 1.5]},
        {"daily_limit": 0},
        {"senders": []},
        {"senders": ["not an address"]},
    ],
)
def test_a_bad_campaign_is_refused_clearly(bad):
    with pytest.raises(ValueError):
        payload(**bad)


def test_a_lead_carries_our_rendered_text_as_scalar_custom_variables():
    lead = lead_payload(
        email="ion.popescu@agroferma-example.ro",
        steps=[("Irigații pentru Agroferma", text_to_html("Bună ziua,\nAvem o ofertă.")),
               ("", "Revin cu oferta <b>&</b> prețul.")],
        first_name="Ion",
        company_name="Agroferma Popescu SRL",
        variables={"cerniq_lead": 42, "variant_1": "a1b2c3"},
    )  # fmt: skip
    assert lead["email"] == "ion.popescu@agroferma-example.ro"
    assert lead["first_name"] == "Ion" and lead["company_name"] == "Agroferma Popescu SRL"
    assert lead["custom_variables"] == {
        "cerniq_lead": 42,
        "variant_1": "a1b2c3",
        "subject_1": "Irigații pentru Agroferma",
        "body_1": "Bună ziua,<br/>Avem o ofertă.",
        "subject_2": "",
        "body_2": "Revin cu oferta <b>&</b> prețul.",
    }
    assert all(not isinstance(v, dict | list) for v in lead["custom_variables"].values())


def test_text_to_html_escapes_and_keeps_line_breaks():
    assert text_to_html("a < b\r\nc & d") == "a &lt; b<br/>c &amp; d"


@pytest.mark.parametrize(
    "bad",
    [
        {"email": "nobody"},
        {"steps": []},
        {"steps": [("", "body")]},
        {"steps": [("Salut {{firstName}}", "body")]},
        {"variables": {"nested": {"a": 1}}},
    ],
)
def test_a_bad_lead_is_refused(bad):
    args = {"email": "a@b.ro", "steps": [("Subiect", "Text")]}
    with pytest.raises(ValueError):
        lead_payload(**{**args, **bad})
