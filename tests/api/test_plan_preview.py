"""GET /api/v1/plan/: the next working day's plan over the API; filters, errors, isolation."""

from __future__ import annotations

import pytest
import time_machine

from outreach import reasons as codes
from outreach.models import Sequence
from tests.factories import make_outreach_world
from tests.outreach.test_plan_preview import FRIDAY_EVENING, WEDNESDAY_OPENING, build_world
from whatsapp.models import Phone

pytestmark = pytest.mark.django_db
URL = "/api/v1/plan/"


@time_machine.travel(FRIDAY_EVENING, tick=False)
def test_the_plan_has_its_day_totals_and_waiting_reasons(read_api, tenant):
    build_world(tenant, WEDNESDAY_OPENING)
    body = read_api.get(URL, HTTP_ACCEPT_LANGUAGE="en").json()
    assert body["opening"] == "2026-12-02T09:00:00+02:00"
    assert (body["first"], body["follow_ups"], body["total"]) == (8, 2, 10)
    assert len(body["sends"]) == 10
    send = body["sends"][0]
    assert set(send) == {
        "lead",
        "sequence",
        "sequence_name",
        "step",
        "channel",
        "phone",
        "first",
        "queued_at",
        "send_at",
    }
    waiting = {w["code"]: w for w in body["waiting"]}
    assert waiting[codes.STOP_TAKEOVER]["reason"] == "a colleague took the conversation over"
    assert {p["name"]: p["limit"] for p in body["phones"]}["Warming"] == 2
    ro = read_api.get(URL, HTTP_ACCEPT_LANGUAGE="ro").json()
    assert [w["code"] for w in ro["waiting"]] == [w["code"] for w in body["waiting"]]
    assert read_api.get(URL, {"limit": 3}).json()["total"] == 10
    assert len(read_api.get(URL, {"limit": 3}).json()["sends"]) == 3


@time_machine.travel(FRIDAY_EVENING, tick=False)
def test_filters(read_api, tenant):
    build_world(tenant, WEDNESDAY_OPENING)
    mail = Sequence.objects.get(tenant=tenant, name="Email")
    warming = Phone.objects.get(tenant=tenant, label="Warming")
    assert read_api.get(URL, {"sequence": mail.pk}).json()["total"] == 2
    by_phone = read_api.get(URL, {"phone": warming.pk}).json()
    assert by_phone["total"] == 2 and {s["phone"] for s in by_phone["sends"]} == {warming.pk}


@time_machine.travel(FRIDAY_EVENING, tick=False)
@pytest.mark.parametrize(
    ("params", "field"),
    [({"sequence": "abc"}, "sequence"), ({"phone": "0"}, "phone"), ({"limit": "-1"}, "limit")],
)
def test_bad_filters_are_a_400_naming_the_field(read_api, tenant, params, field):
    response = read_api.get(URL, params)
    assert response.status_code == 400
    assert field in response.json()["error"]["fields"]


@time_machine.travel(FRIDAY_EVENING, tick=False)
def test_another_workspaces_sequence_or_phone_is_a_404(read_api, tenant, other_tenant):
    theirs = make_outreach_world(other_tenant, leads=3)
    assert read_api.get(URL, {"sequence": theirs["sequence"].pk}).status_code == 404
    assert read_api.get(URL, {"phone": theirs["phones"][0].pk}).status_code == 404
    body = read_api.get(URL).json()
    assert body["total"] == 0 and body["phones"] == []


def test_anonymous_is_refused(anonymous):
    assert anonymous.get(URL).status_code == 401


def test_the_schema_documents_the_endpoint(read_api):
    schema = read_api.get("/api/schema/", {"format": "json"}).json()
    operation = schema["paths"]["/api/v1/plan/"]["get"]
    assert {p["name"] for p in operation["parameters"]} >= {"sequence", "phone", "limit"}
    assert {"200", "400", "404"} <= set(operation["responses"])
