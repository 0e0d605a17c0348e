"""Bulk import through the API: CSV or JSON rows become an import job run by the CSV
import; repeats are recognised (Idempotency-Key, else the content); jobs are tenant-scoped."""

from __future__ import annotations

import json

import pytest

from api.views.imports import CSVParser, ImportJSONParser
from outreach.import_jobs import run_import
from outreach.models import ImportJob, Lead
from outreach.tasks import run_import_job
from tests.factories import make_tenant

IMPORTS = "/api/v1/imports/"
ROWS = [
    {"name": "Agro Unu SRL", "cui": "RO18547290", "phone": "0722 123 456", "crm_id": 7},
    {"name": "Agro Doi SRL", "phone": "12"},
    {"name": "Agro Trei SRL", "email": "office@trei.ro", "phone_reachable": True},
]


@pytest.fixture
def sent(monkeypatch):
    calls: list[int] = []
    monkeypatch.setattr(run_import_job, "send", calls.append)
    return calls


def post_rows(api, rows, captured, **extra):
    with captured(execute=True):
        return api.post(IMPORTS, json.dumps(rows), content_type="application/json", **extra)


def test_json_rows_become_a_job_the_csv_import_runs(
    api, tenant, sent, django_capture_on_commit_callbacks
):
    response = post_rows(api, ROWS, django_capture_on_commit_callbacks)
    assert response.status_code == 202
    job = ImportJob.objects.get(pk=response.json()["id"])
    assert sent == [job.pk] and job.tenant == tenant
    assert response["Location"] == f"{IMPORTS}{job.pk}/"
    run_import(job.pk)
    status = api.get(f"{IMPORTS}{job.pk}/").json()
    assert (status["status"], status["created"], status["processed_rows"]) == ("done", 2, 3)
    assert status["rejected"][0]["line"] == 3 and "invalid phone" in status["rejected"][0]["reason"]
    lead = Lead.objects.get(cui="18547290")
    assert lead.custom_fields == {"crm_id": "7"} and lead.phone == "+40722123456"
    assert Lead.objects.get(email="office@trei.ro").phone_reachable is True


def test_a_csv_body_is_imported_as_is(api, tenant, sent, django_capture_on_commit_callbacks):
    body = "name;phone\nAgro CSV SRL;0722 000 111\n"
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(IMPORTS, body, content_type="text/csv")
    assert response.status_code == 202
    run_import(response.json()["id"])
    assert Lead.objects.filter(tenant=tenant, phone="+40722000111").exists()


def test_the_same_content_twice_is_one_job(api, sent, django_capture_on_commit_callbacks):
    first = post_rows(api, ROWS, django_capture_on_commit_callbacks)
    again = post_rows(api, ROWS, django_capture_on_commit_callbacks)
    assert (first.status_code, again.status_code) == (202, 200)
    assert first.json()["id"] == again.json()["id"]
    assert ImportJob.objects.count() == 1 and len(sent) == 1
    dry = post_rows(api, ROWS, django_capture_on_commit_callbacks, QUERY_STRING="dry_run=true")
    assert dry.status_code == 202 and dry.json()["dry_run"] is True  # another request


def test_idempotency_key_recognises_a_repeat_and_refuses_other_content(
    api, sent, django_capture_on_commit_callbacks
):
    key = {"HTTP_IDEMPOTENCY_KEY": "crm-batch-42"}
    first = post_rows(api, ROWS, django_capture_on_commit_callbacks, **key)
    again = post_rows(api, ROWS, django_capture_on_commit_callbacks, **key)
    assert again.status_code == 200 and again.json()["id"] == first.json()["id"]
    other = post_rows(api, ROWS[:1], django_capture_on_commit_callbacks, **key)
    assert other.status_code == 409
    assert other.json()["error"]["code"] == "idempotency_conflict"
    assert ImportJob.objects.count() == 1 and len(sent) == 1


@pytest.mark.parametrize(
    ("body", "field"),
    [([], "body"), ({"name": "x"}, "body"), ([1], "0"), ([{"name": {"a": 1}}], "0.name")],
)
def test_bad_bodies_are_400_naming_the_problem(api, sent, body, field):
    response = api.post(IMPORTS, json.dumps(body), content_type="application/json")
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == [field]
    assert not ImportJob.objects.exists()


def test_an_empty_csv_is_400(api, sent):
    response = api.post(IMPORTS, "  \n", content_type="text/csv")
    assert response.status_code == 400
    assert response.json()["error"]["fields"] == {"body": ["The file is empty."]}


def test_read_key_403_no_key_401_other_tenant_404(read_api, anonymous, api, sent):
    assert (
        read_api.post(IMPORTS, json.dumps(ROWS), content_type="application/json").status_code == 403
    )
    assert anonymous.get(IMPORTS).status_code == 401
    theirs = ImportJob.objects.create(tenant=make_tenant(), file_name="x.csv", content=b"name\n")
    assert api.get(f"{IMPORTS}{theirs.pk}/").status_code == 404
    assert api.get(IMPORTS).json()["results"] == []


@pytest.mark.parametrize("content_type", ["text/csv", "application/json"])
def test_a_body_over_the_ceiling_is_413_and_nothing_is_read_past_it(
    api, sent, monkeypatch, content_type
):
    monkeypatch.setattr(CSVParser, "limit", 1024)
    monkeypatch.setattr(ImportJSONParser, "limit", 2048)
    row = {"name": "Agro SRL", "phone": "0722123456"}
    small = json.dumps([row] * 10) if content_type == "application/json" else "name\n" + "A\n" * 10
    big = json.dumps([row] * 100) if content_type == "application/json" else "name\n" + "A\n" * 2000
    refused = api.post(IMPORTS, big, content_type=content_type)
    assert refused.status_code == 413
    assert refused.json()["error"]["code"] == "too_large"
    assert not ImportJob.objects.exists() and sent == []
    assert api.post(IMPORTS, small, content_type=content_type).status_code == 202


def test_every_json_body_has_a_ceiling(api, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 4096
    huge = {"name": "Agro SRL", "custom_fields": {"notes": "x" * 10_000}}
    response = api.post("/api/v1/leads/", huge, format="json")
    assert response.status_code == 413
    assert response.json()["error"] == {
        "code": "too_large",
        "message": "The request is larger than 4.0 KB, the most this address takes.",
        "fields": {},
    }
    assert not Lead.objects.exists()
