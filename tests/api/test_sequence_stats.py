"""GET /api/v1/sequences/{id}/stats/: the sequence page's figures (known sequence:
tests/sequence_world.py), the range and its validation, tenants, keys, the schema."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.factories import make_sequence
from tests.sequence_world import build

pytestmark = pytest.mark.django_db


def url(sequence_id: int) -> str:
    return f"/api/v1/sequences/{sequence_id}/stats/"


@pytest.fixture
def world(tenant):
    return build(tenant)


def test_the_figures_per_step_version_and_total(read_api, world):
    response = read_api.get(url(world.sequence.pk))
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["sequence"], body["version"], body["start"], body["end"]) == (
        world.sequence.pk,
        1,
        None,
        None,
    )
    total = body["total"]
    assert total == {
        "sent": 12,
        "delivered": 5,
        "read": 2,
        "replied": 5,
        "positive_replies": 2,
        "opt_outs": 1,
        "bounces": 1,
        "delivered_of": 12,
        "read_of": 8,
        "delivered_rate": 41.7,
        "read_rate": 25.0,
        "reply_rate": 41.7,
        "positive_rate": 16.7,
        "opt_out_rate": 8.3,
        "bounce_rate": 8.3,
    }
    step2 = body["steps"][1]
    assert step2["step"] == world.steps[1].pk
    assert (step2["position"], step2["channel"], step2["current"]) == (2, "EMAIL_COLD", True)
    assert step2["template"] == world.steps[1].template_id
    assert (step2["figures"]["read"], step2["figures"]["read_rate"]) == (None, None)
    v1, v2 = step2["versions"]
    assert (v1["template_version"], v1["version"]) == (world.versions[1][0].pk, 1)
    assert (v1["figures"]["sent"], v1["figures"]["bounces"], v1["figures"]["bounce_rate"]) == (
        2,
        1,
        50.0,
    )
    assert (v2["figures"]["replied"], v2["figures"]["positive_replies"]) == (1, 1)


def test_the_range(read_api, world):
    body = read_api.get(url(world.sequence.pk), {"start": "2026-11-19"}).json()
    assert body["start"] == "2026-11-19" and body["end"] is None
    assert [step["figures"]["sent"] for step in body["steps"]] == [0, 4, 2]
    assert body["steps"][0]["figures"]["reply_rate"] is None  # nothing sent: no rate


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"start": "2026-11-20", "end": "2026-11-19"}, "end"),
        ({"start": "20/11/2026"}, "start"),
        ({"end": "tomorrow"}, "end"),
        # Days the instants cannot hold were a 500 (found by the schemathesis run).
        ({"start": "0001-01-01"}, "start"),
        ({"end": "9999-12-31"}, "end"),
        ({"start": "1999-12-31", "end": "2026-11-20"}, "start"),
    ],
)
def test_bad_dates_are_a_400_naming_the_field(read_api, world, params, field):
    response = read_api.get(url(world.sequence.pk), params)
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == [field]


def test_another_tenants_sequence_is_a_404(read_api, other_tenant):
    theirs = build(other_tenant, name="Secretul lor")
    for sequence_id in (theirs.sequence.pk, 2**63, 10**30):
        response = read_api.get(url(sequence_id))
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "not_found"


def test_a_key_is_needed(anonymous, world):
    assert anonymous.get(url(world.sequence.pk)).status_code == 401


def test_read_only(api, world):
    assert api.post(url(world.sequence.pk), {}).status_code == 405


def test_a_fixed_number_of_queries(read_api, world, tenant):
    empty = make_sequence(tenant)  # one step, nothing sent
    read_api.get(url(empty.pk))  # the key's first use is recorded once
    with CaptureQueriesContext(connection) as small:
        read_api.get(url(empty.pk))
    with CaptureQueriesContext(connection) as large:
        read_api.get(url(world.sequence.pk), {"start": "2026-11-01"})
    assert len(small) == len(large)


def test_documented_in_the_schema(read_api):
    from rest_framework.test import APIClient

    schema = APIClient().get("/api/schema/?format=json").json()
    operation = schema["paths"]["/api/v1/sequences/{id}/stats/"]["get"]
    assert {"200", "400", "401", "404"} <= set(operation["responses"])
    assert {p["name"] for p in operation["parameters"]} >= {"start", "end"}
    figures = schema["components"]["schemas"]["Figures"]["properties"]
    assert "denominator" in figures["read_of"]["description"]
    assert figures["read"]["nullable"] is True
