"""The Sequences endpoints: scoping, keys, the page's step rules and versioning, bulk enroll
with a result per lead, stop, constant queries on the list."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from outreach.models import (
    Channel,
    Enrollment,
    Journey,
    Message,
    Sequence,
    SequenceStep,
    Stage,
    TemplateVersion,
)
from outreach.sequences import enroll_many
from tests.factories import make_lead, make_message, make_sequence, make_template

SEQUENCES = "/api/v1/sequences/"


def url(sequence: Sequence, suffix: str = "") -> str:
    return f"{SEQUENCES}{sequence.pk}/{suffix}"


def step(template, **kw) -> dict:
    return {"channel": template.channel, "template": template.pk, **kw}


# --- scoping and keys ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "suffix"),
    [("get", ""), ("patch", ""), ("post", "enroll/"), ("post", "stop/")],
)
def test_another_tenants_sequence_is_404_everywhere(api, tenant, other_tenant, method, suffix):
    theirs = make_sequence(other_tenant)
    lead = make_lead(other_tenant)
    enroll_many([lead], theirs)
    body = {"name": "Mine now", "lead_ids": [lead.pk]}
    response = getattr(api, method)(url(theirs, suffix), body, format="json")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    theirs.refresh_from_db()
    assert theirs.name != "Mine now"
    assert Enrollment.objects.get(lead=lead).status == Enrollment.Status.ACTIVE


def test_list_shows_own_sequences_only(api, tenant, other_tenant):
    mine = make_sequence(tenant)
    make_sequence(other_tenant)
    rows = api.get(SEQUENCES).json()["results"]
    assert [row["id"] for row in rows] == [mine.pk]
    assert rows[0]["steps_count"] == 1 and rows[0]["active_enrollments"] == 0


@pytest.mark.parametrize(
    ("method", "path"),
    [("get", ""), ("get", "{id}/"), ("post", ""), ("patch", "{id}/"), ("post", "{id}/enroll/")],
)
def test_every_endpoint_needs_a_key(anonymous, tenant, method, path):
    sequence = make_sequence(tenant)
    response = getattr(anonymous, method)(SEQUENCES + path.format(id=sequence.pk))
    assert response.status_code == 401


@pytest.mark.parametrize(
    ("method", "path"),
    [("post", ""), ("patch", "{id}/"), ("post", "{id}/enroll/"), ("post", "{id}/stop/")],
)
def test_a_read_only_key_cannot_write(read_api, tenant, method, path):
    sequence = make_sequence(tenant)
    lead = make_lead(tenant)
    template = make_template(tenant)
    body = {"name": "New", "steps": [step(template)], "lead_ids": [lead.pk]}
    response = getattr(read_api, method)(
        SEQUENCES + path.format(id=sequence.pk), body, format="json"
    )
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "permission_denied"
    assert Sequence.objects.filter(tenant=tenant).count() == 1
    assert not Enrollment.objects.exists()
    assert read_api.get(url(sequence)).status_code == 200


# --- create and update ----------------------------------------------------------------------


def test_create_with_two_steps(api, tenant):
    whatsapp = make_template(tenant)
    email = make_template(tenant, channel=Channel.EMAIL_COLD)
    body = {
        "name": "Fermieri",
        "steps": [step(whatsapp), step(email, delay_value=2, delay_unit="WORKING_DAYS")],
    }
    response = api.post(SEQUENCES, body, format="json")
    assert response.status_code == 201, response.json()
    data = response.json()
    assert data["version"] == 1 and data["steps_count"] == 2
    assert [(s["position"], s["template"]) for s in data["steps"]] == [
        (1, whatsapp.pk),
        (2, email.pk),
    ]
    assert data["versions"][0]["version"] == 1
    sequence = Sequence.objects.get(pk=data["id"], tenant=tenant)
    assert sequence.steps.count() == 2


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"steps": []}, "name"),
        ({"name": "No steps", "steps": []}, "steps"),
        ({"name": "X", "steps": [{"channel": "FAX", "template": 1}]}, "steps.0.channel"),
        ({"name": "X", "steps": "many"}, "steps"),
    ],
)
def test_bad_bodies_name_the_field(api, tenant, body, field):
    response = api.post(SEQUENCES, body, format="json")
    assert response.status_code == 400
    fields = response.json()["error"]["fields"]  # a list's own error: `steps.non_field_errors`
    assert field in {name.removesuffix(".non_field_errors") for name in fields}
    assert not Sequence.objects.exists()


def test_the_pages_step_rules_apply(api, tenant, other_tenant):
    email = make_template(tenant, channel=Channel.EMAIL_COLD)
    linked = make_template(tenant)
    TemplateVersion.objects.filter(template=linked).update(body="Salut, vezi agroferma.ro")
    theirs = make_template(other_tenant)
    body = {
        "name": "Wrong",
        "steps": [
            step(linked),
            {"channel": Channel.WHATSAPP, "template": email.pk},
            step(theirs),
        ],
    }
    response = api.post(SEQUENCES, body, format="json")
    assert response.status_code == 400
    fields = response.json()["error"]["fields"]
    assert "links are not allowed" in fields["steps.0.template"][0]
    assert "needs a template for that channel" in fields["steps.1.template"][0]
    assert fields["steps.2.template"] == ["No such template in your workspace."]
    assert not Sequence.objects.exists()


def test_a_taken_name_or_foreign_fallback_is_refused(api, tenant, other_tenant):
    mine = make_sequence(tenant, name="Taken")
    theirs = make_sequence(other_tenant)
    template = make_template(tenant)
    response = api.post(
        SEQUENCES,
        {"name": "Taken", "fallback_sequence": theirs.pk, "steps": [step(template)]},
        format="json",
    )
    assert response.status_code == 400
    assert set(response.json()["error"]["fields"]) == {"name", "fallback_sequence"}
    assert api.patch(url(mine), {"fallback_sequence": mine.pk}, format="json").status_code == 400


def test_editing_steps_with_leads_running_makes_a_new_version(api, tenant):
    sequence = make_sequence(tenant)
    old_template = sequence.steps.get().template
    lead = make_lead(tenant)
    enroll_many([lead], sequence)
    new_template = make_template(tenant)
    response = api.patch(url(sequence), {"steps": [step(new_template)]}, format="json")
    assert response.status_code == 200, response.json()
    data = response.json()
    assert data["version"] == 2 and data["steps"][0]["template"] == new_template.pk
    assert [(v["version"], v["enrollments"]) for v in data["versions"]] == [(2, 0), (1, 1)]
    assert data["versions"][1]["steps"][0]["template"] == old_template.pk
    assert Enrollment.objects.get(lead=lead).sequence_version == 1


def test_editing_without_leads_keeps_the_version_and_same_steps_change_nothing(api, tenant):
    sequence = make_sequence(tenant)
    template = sequence.steps.get().template
    response = api.patch(
        url(sequence), {"description": "new", "steps": [step(template)]}, format="json"
    )
    assert response.status_code == 200
    assert response.json()["version"] == 1 and response.json()["description"] == "new"
    enroll_many([make_lead(tenant)], sequence)
    same = api.patch(url(sequence), {"steps": [step(template)]}, format="json").json()
    assert same["version"] == 1  # unchanged steps are no new version, leads or not
    assert SequenceStep.objects.filter(sequence=sequence).count() == 1


# --- enroll and stop ------------------------------------------------------------------------


def test_enroll_answers_per_lead(api, tenant, other_tenant):
    sequence = make_sequence(tenant)
    fresh = make_lead(tenant)
    busy = make_lead(tenant)
    enroll_many([busy], make_sequence(tenant))
    dead = make_lead(tenant)
    Journey.objects.filter(lead=dead).update(stage=Stage.DEAD)
    theirs = make_lead(other_tenant)
    ids = [fresh.pk, busy.pk, dead.pk, theirs.pk, 99999999, fresh.pk]  # a repeat answers once
    response = api.post(url(sequence, "enroll/"), {"lead_ids": ids}, format="json")
    assert response.status_code == 200, response.json()
    data = response.json()
    assert (data["enrolled"], data["skipped"]) == (1, 4)
    assert [(r["lead_id"], r["enrolled"], r["reason"]) for r in data["results"]] == [
        (fresh.pk, True, ""),
        (busy.pk, False, "already in a sequence"),
        (dead.pk, False, "the lead is Dead"),
        (theirs.pk, False, "not in this workspace"),
        (99999999, False, "not in this workspace"),
    ]
    assert Enrollment.objects.get(lead=fresh).sequence == sequence
    assert not Enrollment.objects.filter(lead=theirs).exists()


def test_enroll_in_an_inactive_sequence_is_409(api, tenant):
    sequence = make_sequence(tenant, is_active=False)
    lead = make_lead(tenant)
    response = api.post(url(sequence, "enroll/"), {"lead_ids": [lead.pk]}, format="json")
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "enrollment_refused"
    assert not Enrollment.objects.exists()


@pytest.mark.parametrize(
    ("body", "field"),
    [({}, "lead_ids"), ({"lead_ids": ["x"]}, "lead_ids.0"), ({"lead_ids": [2**63]}, "lead_ids.0")],
)
def test_enroll_names_the_bad_field(api, tenant, body, field):
    response = api.post(url(make_sequence(tenant), "enroll/"), body, format="json")
    assert response.status_code == 400
    assert field in response.json()["error"]["fields"]


def test_stop_stops_the_sequences_leads_and_cancels_their_queue(api, tenant):
    sequence = make_sequence(tenant)
    other = make_sequence(tenant)
    first, second = make_lead(tenant), make_lead(tenant)
    elsewhere = make_lead(tenant)
    enroll_many([first, second], sequence)
    enroll_many([elsewhere], other)
    queued = make_message(first)
    response = api.post(url(sequence, "stop/"), {"lead_ids": [first.pk]}, format="json")
    assert response.json() == {"stopped": [first.pk]}
    assert Enrollment.objects.get(lead=first).status == Enrollment.Status.STOPPED
    queued.refresh_from_db()
    assert queued.status == Message.Status.CANCELLED
    response = api.post(url(sequence, "stop/"), {}, format="json")
    assert response.json() == {"stopped": [second.pk]}
    assert Enrollment.objects.get(lead=elsewhere).status == Enrollment.Status.ACTIVE


# --- queries --------------------------------------------------------------------------------


def _list_queries(api, size: int) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = api.get(SEQUENCES, {"page_size": size})
    assert response.status_code == 200
    assert len(response.json()["results"]) == size
    return len(queries)


def test_list_queries_do_not_grow_with_the_page_size(api, tenant):
    for _ in range(12):
        sequence = make_sequence(tenant)
        enroll_many([make_lead(tenant)], sequence)
    api.get(SEQUENCES)  # the key's last use is written once a minute: not in the counts
    assert _list_queries(api, 3) == _list_queries(api, 12)
