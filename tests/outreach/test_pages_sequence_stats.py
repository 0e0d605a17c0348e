"""The sequence page's results table and the sequences list's figures (the figures
themselves: tests/outreach/test_sequence_stats.py)."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from tests.sequence_world import build

pytestmark = pytest.mark.django_db


def cells(html: str, row: str) -> list[str]:
    """The text of each cell of the first row matching `row` (an attribute)."""
    found = re.search(rf"<tr[^>]*{row}[^>]*>(.*?)</tr>", html, re.S)
    assert found, row
    texts = re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", found.group(1), re.S)
    return [re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", text)).strip() for text in texts]


@pytest.fixture
def world(tenant):
    return build(tenant)


def test_the_sequence_page_shows_steps_versions_and_totals(client, operator, world):
    client.force_login(operator)
    response = client.get(reverse("outreach:sequence", args=[world.sequence.pk]))
    html = response.content.decode()
    assert response.status_code == 200
    assert "All time" in html
    s2 = world.steps[1]
    step = cells(html, f'data-step="{s2.pk}"')
    assert step[0].startswith("Step 2 · Cold email")
    # sent, delivered (of the sent), read unknown, replied, positive, opt-outs, bounces
    assert step[1:] == ["4", "1 25.0%", "—", "1 25.0%", "1 25.0%", "0 0.0%", "1 25.0%"]
    version = cells(html, f'data-version="{world.versions[1][0].pk}"')
    assert version == ["v1", "2", "0 0.0%", "—", "0 0.0%", "0 0.0%", "0 0.0%", "1 50.0%"]
    total = cells(html, "data-total")
    # read: 2 of the 8 messages of the steps that report reads
    assert total == [
        "Sequence total",
        "12",
        "5 41.7%",
        "2 25.0% of 8",
        "5 41.7%",
        "2 16.7%",
        "1 8.3%",
        "1 8.3%",
    ]


def test_rates_follow_the_locale(client, operator, world):
    client.force_login(operator)
    url = reverse("outreach:sequence", args=[world.sequence.pk])
    html = client.get(url, HTTP_ACCEPT_LANGUAGE="ro").content.decode()
    assert cells(html, "data-total")[2] == "5 41,7%"


def test_the_range_and_a_bad_range(client, operator, world):
    client.force_login(operator)
    url = reverse("outreach:sequence", args=[world.sequence.pk])
    html = client.get(url, {"start": "2026-11-18", "end": "2026-11-18"}).content.decode()
    assert cells(html, "data-total")[1] == "6"
    assert "All time" in html  # the link back
    html = client.get(url, {"start": "2026-11-19", "end": "2026-11-18"}).content.decode()
    assert "To: The end date is before the start date." in html
    assert "data-total" not in html
    html = client.get(url, {"start": "yesterday"}).content.decode()
    assert "From: Enter a valid date." in html
    html = client.get(url, {"start": "0001-01-01"}).content.decode()
    assert "From: Choose a day between 2000-01-01 and 2999-12-31." in html
    assert "data-total" not in html


def test_another_tenants_sequence_is_not_found(client, operator, other_tenant):
    theirs = build(other_tenant, name="Secretul lor")
    client.force_login(operator)
    response = client.get(reverse("outreach:sequence", args=[theirs.sequence.pk]))
    assert response.status_code == 404


def test_the_list_shows_sent_and_rates(client, operator, world):
    client.force_login(operator)
    html = client.get(reverse("outreach:sequences")).content.decode()
    row = cells(html, f'data-sequence="{world.sequence.pk}"')
    assert row[-3:] == ["12", "41.7%", "16.7%"]
