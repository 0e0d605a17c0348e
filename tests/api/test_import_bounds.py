"""An import has at most MAX_ROWS rows: more is refused when it is sent (a 400 naming the
limit from the API, a message on the leads page), before a job is stored or a row read."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from outreach import import_jobs
from outreach.models import ImportJob
from outreach.tasks import run_import_job

pytestmark = pytest.mark.django_db

IMPORTS = "/api/v1/imports/"
REFUSED = "The file has 4 rows; at most 3 are imported at once: split it and import the parts."


@pytest.fixture(autouse=True)
def three_rows_at_most(monkeypatch):
    monkeypatch.setattr(import_jobs, "MAX_ROWS", 3)
    monkeypatch.setattr("api.views.imports.MAX_ROWS", 3)
    monkeypatch.setattr(run_import_job, "send", lambda *args: None)


def rows(n: int) -> list[dict]:
    return [{"name": f"Agro {i} SRL", "phone": f"07221234{i:02d}"} for i in range(n)]


@pytest.mark.parametrize("as_json", [True, False])
def test_the_api_refuses_more_rows_than_an_import_takes(api, as_json):
    if as_json:
        response = api.post(IMPORTS, json.dumps(rows(4)), content_type="application/json")
    else:
        csv = "name,phone\n" + "".join(f"{r['name']},{r['phone']}\n" for r in rows(4))
        response = api.post(IMPORTS, csv, content_type="text/csv")
    assert response.status_code == 400
    assert response.json()["error"]["fields"] == {"body": [REFUSED]}
    assert not ImportJob.objects.exists()
    ok = api.post(IMPORTS, json.dumps(rows(3)), content_type="application/json")
    assert ok.status_code == 202


def test_the_page_says_so_too(client, operator):
    client.force_login(operator)
    csv = "name,phone\n" + "".join(f"{r['name']},{r['phone']}\n" for r in rows(4))
    upload = SimpleUploadedFile("leads.csv", csv.encode())
    response = client.post("/outreach/leads/import/", {"file": upload}, follow=True)
    assert REFUSED in response.content.decode()
    assert not ImportJob.objects.exists()
