"""Step conditions and the reply options through the Sequences API: accepted and returned in
the stored shape, refused with a 400 naming the part (`steps.N.conditions.all.M.hours`)
with nothing saved, a change of conditions is a new version when leads run on the old one,
and the schema documents a condition as an object, not a free dict."""

from __future__ import annotations

import pytest

from outreach.models import Enrollment, Sequence, Stage
from outreach.sequences import enroll_many
from tests.factories import make_lead, make_sequence, make_template

pytestmark = pytest.mark.django_db

SEQUENCES = "/api/v1/sequences/"


def step(template, conditions: list[dict] | None = None) -> dict:
    found = {"channel": template.channel, "template": template.pk}
    if conditions is not None:
        found["conditions"] = {"all": conditions}
    return found


def test_conditions_and_reply_options_are_stored_and_returned(api, tenant):
    first, second = make_template(tenant), make_template(tenant)
    conditions = [
        {"kind": "replied"},
        {"kind": "whatsapp_not_read", "hours": 24},
        {"kind": "stage_not", "stages": [Stage.PAUSED, Stage.PAUSED, Stage.DEAD]},
        {"kind": "no_phone", "hours": 5, "stages": [Stage.DEAD]},  # parts it does not use
    ]
    body = {
        "name": "Reply first",
        "stop_on_reply": False,
        "company_reply": "pause",
        "company_pause_days": 10,
        "steps": [step(first), step(second, conditions)],
    }
    response = api.post(SEQUENCES, body, format="json")
    assert response.status_code == 201, response.json()
    stored = {
        "all": [
            {"kind": "replied"},
            {"kind": "whatsapp_not_read", "hours": 24},
            {"kind": "stage_not", "stages": [Stage.PAUSED, Stage.DEAD]},
            {"kind": "no_phone"},
        ]
    }
    sequence = Sequence.objects.get(tenant=tenant, name="Reply first")
    assert [s.conditions for s in sequence.steps.order_by("position")] == [{}, stored]
    assert (sequence.stop_on_reply, sequence.company_reply, sequence.company_pause_days) == (
        False,
        "pause",
        10,
    )
    data = response.json()
    assert [s["conditions"] for s in data["steps"]] == [{"all": []}, stored]
    assert (data["stop_on_reply"], data["company_reply"], data["company_pause_days"]) == (
        False,
        "pause",
        10,
    )
    again = api.get(f"{SEQUENCES}{sequence.pk}/").json()
    assert again["steps"][1]["conditions"] == stored
    assert again["versions"][0]["steps"][1]["conditions"] == stored


@pytest.mark.parametrize(
    ("conditions", "field", "message"),
    [
        (
            [{"kind": "no_reply"}, {"kind": "whatsapp_not_read"}],
            "steps.1.conditions.all.1.hours",
            "Give the hours as a whole number from 1 to 720.",
        ),
        (
            [{"kind": "whatsapp_not_delivered", "hours": 0}],
            "steps.1.conditions.all.0.hours",
            "",
        ),
        ([{"kind": "stage_not"}], "steps.1.conditions.all.0.stages", "Choose one or more stages."),
        ([{"kind": "stage_not", "stages": []}], "steps.1.conditions.all.0.stages", ""),
        ([{"kind": "stage_not", "stages": ["NOPE"]}], "steps.1.conditions.all.0.stages.0", ""),
        ([{"kind": "opened"}], "steps.1.conditions.all.0.kind", ""),
        ([{"hours": 3}], "steps.1.conditions.all.0.kind", ""),
        ([{"kind": "no_reply"}] * 9, "steps.1.conditions.all", ""),
    ],
)
def test_a_bad_condition_is_a_400_naming_it_and_nothing_is_saved(
    api, tenant, conditions, field, message
):
    sequence = make_sequence(tenant, name="Kept")
    first = sequence.steps.get().template
    body = {"name": "Renamed", "steps": [step(first), step(make_template(tenant), conditions)]}
    response = api.patch(f"{SEQUENCES}{sequence.pk}/", body, format="json")
    assert response.status_code == 400
    fields = response.json()["error"]["fields"]
    named = {name.removesuffix(".non_field_errors"): problems for name, problems in fields.items()}
    assert field in named, fields
    assert message in named[field][0]
    sequence.refresh_from_db()
    assert (sequence.name, sequence.version, sequence.steps.count()) == ("Kept", 1, 1)


def test_the_conditions_must_be_an_object_with_all(api, tenant):
    template = make_template(tenant)
    for conditions in ({}, [], {"any": []}, "replied"):
        body = {"name": "Shape", "steps": [{**step(template), "conditions": conditions}]}
        response = api.post(SEQUENCES, body, format="json")
        assert response.status_code == 400, conditions
        assert any(
            name.startswith("steps.0.conditions") for name in response.json()["error"]["fields"]
        )
    assert not Sequence.objects.filter(name="Shape").exists()


def test_changed_conditions_are_a_new_version_when_leads_run(api, tenant):
    sequence = make_sequence(tenant)
    template = sequence.steps.get().template
    lead = make_lead(tenant)
    enroll_many([lead], sequence)
    url = f"{SEQUENCES}{sequence.pk}/"
    response = api.patch(url, {"steps": [step(template, [{"kind": "no_reply"}])]}, format="json")
    assert response.status_code == 200, response.json()
    data = response.json()
    assert data["version"] == 2
    assert [v["steps"][0]["conditions"] for v in data["versions"]] == [
        {"all": [{"kind": "no_reply"}]},
        {"all": []},
    ]
    assert Enrollment.objects.get(lead=lead).sequence_version == 1
    same = api.patch(url, {"steps": [step(template, [{"kind": "no_reply"}])]}, format="json")
    assert same.json()["version"] == 2


@pytest.mark.parametrize(
    "body",
    [{"company_reply": "forget"}, {"company_pause_days": 0}, {"company_pause_days": 366}],
)
def test_bad_reply_options_are_refused(api, tenant, body):
    sequence = make_sequence(tenant)
    response = api.patch(f"{SEQUENCES}{sequence.pk}/", body, format="json")
    assert response.status_code == 400
    assert set(response.json()["error"]["fields"]) == set(body)
    sequence.refresh_from_db()
    assert (sequence.company_reply, sequence.company_pause_days) == ("stop", 14)


def test_the_schema_documents_a_condition(client):
    schemas = client.get("/api/schema/?format=json").json()["components"]["schemas"]
    for suffix in ("", "Request"):
        conditions = schemas[f"StepConditions{suffix}"]
        assert conditions["properties"]["all"]["items"] == {
            "$ref": f"#/components/schemas/Condition{suffix}"
        }
        condition = schemas[f"Condition{suffix}"]
        assert set(condition["properties"]) == {"kind", "hours", "stages"}
        assert condition["required"] == ["kind"]
        assert condition["properties"]["hours"]["maximum"] == 720
    assert "whatsapp_not_read" in schemas["ConditionKindEnum"]["enum"]
    request = schemas["StepWriteRequest"]["properties"]["conditions"]
    assert request["allOf"][0]["$ref"] == "#/components/schemas/StepConditionsRequest"
    sequence = schemas["PatchedSequenceWriteRequest"]["properties"]
    assert sequence["company_reply"]["allOf"][0]["$ref"].endswith("/CompanyReplyEnum")
    assert sequence["company_pause_days"]["maximum"] == 365


def test_a_reply_first_step_in_a_sequence_a_reply_stops_is_refused(api, tenant):
    first, second = make_template(tenant), make_template(tenant)
    body = {
        "name": "Never reached",
        "steps": [step(first), step(second, [{"kind": "replied"}])],
    }  # stop_on_reply defaults to true
    response = api.post(SEQUENCES, body, format="json")
    assert response.status_code == 400
    assert (
        "Step 2 goes only once the lead replied" in response.json()["error"]["fields"]["steps"][0]
    )
    assert not Sequence.objects.filter(tenant=tenant, name="Never reached").exists()
    body["stop_on_reply"] = False
    created = api.post(SEQUENCES, body, format="json")
    assert created.status_code == 201
    # Turning the nurture off alone is refused too, and changes nothing.
    url = f"{SEQUENCES}{created.json()['id']}/"
    refused = api.patch(url, {"stop_on_reply": True}, format="json")
    assert refused.status_code == 400
    assert Sequence.objects.get(tenant=tenant, name="Never reached").stop_on_reply is False
