"""Ids in a request are strings anyone can change: every page that reads one answers junk
with "not found", a form error or nothing done, never a 500 (cerniq.params)."""

from __future__ import annotations

import pytest

from cerniq.params import MAX_ID, MAX_PAGE, parse_id, parse_ids, parse_page
from tests.factories import make_lead, make_user

pytestmark = pytest.mark.django_db

# Not ids: empty, words, signs, a superscript digit (`"²".isdigit()` is true), more digits
# than Python converts, one past PostgreSQL's bigint, a NUL, a number with spaces inside.
JUNK = ["", "abc", "-1", "0", "+5", "²", "1" * 5000, str(MAX_ID + 1), "1\x00", "1 2", "٣"]


@pytest.mark.parametrize("value", JUNK)
def test_junk_names_no_id(value):
    assert parse_id(value) is None


def test_a_page_number_is_bounded():
    assert [parse_page(v) for v in ("3", "", "x", "-2", str(MAX_ID))] == [3, 1, 1, 1, MAX_PAGE]


def test_ids_are_ascii_digits_within_a_bigint():
    assert parse_id("42") == 42 and parse_id(" 7 ") == 7 and parse_id(str(MAX_ID)) == MAX_ID
    assert parse_ids(["3", "x", "3", str(MAX_ID + 1), "9"]) == [3, 3, 9]


@pytest.fixture
def admin(client, tenant):
    client.force_login(make_user(tenant, role="ADMIN"))
    return client


POSTS = [
    (
        "/outreach/leads/bulk/",
        [{"ids": "{v}", "action": "pause"}, {"ids": "1", "action": "enroll", "sequence": "{v}"}],
    ),
    ("/outreach/dead-letters/messages/", [{"ids": "{v}", "action": "retry"}]),
    ("/outreach/dead-letters/events/", [{"event_ids": "{v}", "action": "retry"}]),
    ("/outreach/alerts/acknowledge/", [{"ids": "{v}"}]),
    ("/outreach/alerts/resolve/", [{"ids": "{v}"}]),
]
GETS = [
    "/outreach/leads/?phone={v}&sequence={v}&q={v}&county={v}&page={v}",
    "/outreach/alerts/?page={v}",
    "/outreach/review/?page={v}",
]


@pytest.mark.parametrize("value", JUNK)
def test_no_page_answers_a_junk_id_with_a_server_error(admin, tenant, value):
    lead = make_lead(tenant)
    answers = []
    for url, bodies in POSTS:
        for body in bodies:
            data = {key: text.replace("{v}", value) for key, text in body.items()}
            answers.append((url, admin.post(url, data).status_code))
    enroll = f"/outreach/leads/{lead.pk}/enroll/"
    answers.append((enroll, admin.post(enroll, {"sequence": value}).status_code))
    for url in GETS:
        answers.append((url, admin.get(url.replace("{v}", value)).status_code))
    assert [(url, code) for url, code in answers if code >= 500] == []
    assert all(code in (200, 302, 400, 404) for _, code in answers), answers
