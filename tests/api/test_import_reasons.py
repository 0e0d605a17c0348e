"""The API answers import reasons (stored as codes) and one-lead field problems in the
request's language (Accept-Language)."""

from __future__ import annotations

import pytest

from outreach import reasons as codes
from outreach.import_jobs import run_import, start_import
from tests.factories import make_lead
from tests.outreach.test_import_reasons import FILE

pytestmark = pytest.mark.django_db


@pytest.fixture
def finished(tenant):
    job = start_import(tenant, file_name="leads.csv", content=FILE.encode())
    return run_import(job.pk)


def test_the_api_answers_in_the_requests_language(api, finished):
    body = api.get(f"/api/v1/imports/{finished.pk}/", HTTP_ACCEPT_LANGUAGE="ro").json()
    row = next(r for r in body["rejected"] if r["line"] == 5)
    assert row == {
        "line": 5,
        "reason": "duplicat al liniei 2 (același telefon)",
        "reason_code": codes.IMPORT_DUPLICATE,
    }


def test_a_failed_files_error_is_rendered_by_the_api(api, tenant):
    job = start_import(tenant, file_name="x.csv", content=b"foo,bar\n1,2\n")
    run_import(job.pk)
    body = api.get(f"/api/v1/imports/{job.pk}/", HTTP_ACCEPT_LANGUAGE="en").json()
    assert body["status"] == "failed"
    assert body["error"].startswith("missing the company name column")


def test_the_one_lead_api_says_field_problems_and_duplicates_in_romanian(api, tenant):
    lead = make_lead(tenant, phone="+40722123456")
    ro = {"format": "json", "HTTP_ACCEPT_LANGUAGE": "ro"}
    bad = api.post("/api/v1/leads/", {"name": "B SRL", "phone": "call me"}, **ro)
    assert bad.json()["error"]["fields"]["phone"] == [
        "telefon invalid „call me”: nu este un număr de telefon"
    ]
    cleared = api.patch(f"/api/v1/leads/{lead.pk}/", {"name": ""}, **ro)
    assert cleared.json()["error"]["fields"] == {"name": ["numele companiei este gol"]}
    taken = api.post("/api/v1/leads/", {"name": "B SRL", "phone": "0722123456"}, **ro)
    assert "aceeași valoare pentru telefon" in taken.json()["error"]["message"]
