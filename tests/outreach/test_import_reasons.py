"""Import reasons are stored as codes with parameters and shown in the reader's language:
the import report page, the admin and the API (Accept-Language); old English rows as they are."""

from __future__ import annotations

import io

import pytest
from django.urls import reverse
from django.utils import translation

from cerniq import reasons
from outreach import reasons as codes
from outreach.import_jobs import run_import, start_import
from outreach.importing import ImportFileError, import_csv
from outreach.importing.report import several
from outreach.models import ImportJob

pytestmark = pytest.mark.django_db

FILE = (
    "name,cui,phone,email\n"
    "Alfa SRL,,0722000001,\n"
    "Beta SRL,,call me,\n"  # line 3: phone
    ",12AB,,office@@x\n"  # line 4: no name, CUI, email
    "Gama SRL,,0722000001,\n"  # line 5: duplicate of line 2
)


def test_rejected_rows_are_codes_with_their_parameters(tenant):
    report = import_csv(tenant, io.StringIO(FILE))

    by_line = {error.line: reasons.parse(error.reason) for error in report.rejected}
    assert by_line[3] == (codes.IMPORT_PHONE_INVALID, {"value": "call me", "why": "not_a_number"})
    assert by_line[5] == (codes.IMPORT_DUPLICATE, {"line": 2, "key": "phone"})
    code, params = by_line[4]
    assert code == codes.IMPORT_SEVERAL
    assert [reasons.parse(p)[0] for p in params["problems"]] == [
        codes.IMPORT_NO_NAME,
        codes.IMPORT_CUI_INVALID,
        codes.IMPORT_EMAIL_INVALID,
    ]


def test_rejected_rows_read_in_romanian(tenant):
    report = import_csv(tenant, io.StringIO(FILE))
    with translation.override("ro"):
        shown = {error.line: error.text for error in report.rejected}
    assert shown[3] == "telefon invalid „call me”: nu este un număr de telefon"
    assert shown[5] == "duplicat al liniei 2 (același telefon)"
    assert shown[4].startswith("numele companiei este gol; CUI invalid „12AB”: ")


def test_a_file_error_is_a_code_shown_in_the_readers_language(tenant):
    with pytest.raises(ImportFileError) as refused:
        import_csv(tenant, io.BytesIO(b"foo,bar\n1,2\n"))
    assert reasons.is_code(refused.value.reason, codes.IMPORT_NO_NAME_COLUMN)
    with translation.override("ro"):
        assert "coloana cu numele firmei" in str(refused.value)


def test_many_problems_keep_what_fits_and_count_the_rest():
    problems = [
        reasons.code(codes.IMPORT_PHONE_INVALID, value="x" * 60, why="too_long") for _ in range(9)
    ]
    stored = several(problems)
    assert len(stored) <= reasons.MAX_STORED
    code, params = reasons.parse(stored)
    assert code == codes.IMPORT_SEVERAL_MORE
    assert len(params["problems"]) + params["more"] == 9
    assert reasons.render(stored).endswith(f"and {params['more']} more problems")


@pytest.fixture
def finished(tenant):
    job = start_import(tenant, file_name="leads.csv", content=FILE.encode())
    return run_import(job.pk)


def test_the_report_page_shows_the_reasons_in_romanian(client, operator, finished):
    client.force_login(operator)
    url = reverse("outreach:lead_import_job_status", args=[finished.pk])
    html = client.get(url, HTTP_ACCEPT_LANGUAGE="ro").content.decode()
    assert "duplicat al liniei 2 (același telefon)" in html
    assert "import." not in html  # no code leaks
    english = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "duplicate of line 2 (same phone)" in english


def test_an_old_english_row_shows_as_it_is(client, operator, tenant):
    job = ImportJob.objects.create(
        tenant=tenant,
        file_name="old.csv",
        status=ImportJob.Status.DONE,
        rejected=[{"line": 3, "reason": "invalid phone 'x': not a valid number"}],
    )
    client.force_login(operator)
    url = reverse("outreach:lead_import_job_status", args=[job.pk])
    html = client.get(url, HTTP_ACCEPT_LANGUAGE="ro").content.decode()
    assert "invalid phone &#x27;x&#x27;: not a valid number" in html


def test_the_admin_shows_rejected_lines_in_the_admins_language(superuser, finished):
    from django.test import Client

    client = Client(HTTP_ACCEPT_LANGUAGE="ro")
    client.force_login(superuser)
    url = reverse("admin:outreach_importjob_change", args=[finished.pk])
    html = client.get(url).content.decode()
    assert "linia 5: duplicat al liniei 2 (același telefon)" in html
    assert "import.duplicate" not in html
