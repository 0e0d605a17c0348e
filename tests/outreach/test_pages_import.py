"""CSV import from the leads page: a background job, its progress page and its report."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from cerniq import reasons
from outreach import import_jobs
from outreach.import_jobs import UploadRefused, count_data_lines, run_import, start_import
from outreach.models import ImportJob, Lead
from outreach.tasks import run_import_job
from tests.drain import running_workers, wait_until
from tests.factories import make_lead, make_tenant, make_user

pytestmark = pytest.mark.django_db

IMPORT = "/outreach/leads/import/"
GOOD_AND_BAD = "name,cui,phone\nAlfa Agro SRL,,0722000001\nBeta Agro SRL,,not-a-phone\n"


@pytest.fixture
def logged_in(client, operator):
    client.force_login(operator)
    return client


@pytest.fixture
def sent(monkeypatch):
    """Job ids handed to the import actor (on commit)."""
    calls: list[int] = []
    monkeypatch.setattr(run_import_job, "send", calls.append)
    return calls


def upload(text: str, name: str = "leads.csv") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, text.encode(), content_type="text/csv")


def post_file(client, text: str, *, django_capture_on_commit_callbacks, **extra):
    with django_capture_on_commit_callbacks(execute=True):
        return client.post(IMPORT, {"file": upload(text), **extra}, HTTP_ACCEPT_LANGUAGE="en")


def test_upload_stores_a_job_queues_it_and_shows_its_page(
    logged_in, tenant, operator, sent, django_capture_on_commit_callbacks
):
    response = post_file(
        logged_in,
        GOOD_AND_BAD,
        django_capture_on_commit_callbacks=django_capture_on_commit_callbacks,
    )
    job = ImportJob.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/outreach/leads/import/{job.pk}/"
    assert sent == [job.pk]
    assert (job.tenant, job.created_by, job.file_name) == (tenant, operator, "leads.csv")
    assert (job.status, job.total_rows, bytes(job.content)) == (
        ImportJob.Status.QUEUED,
        2,
        GOOD_AND_BAD.encode(),
    )
    assert not Lead.objects.exists()  # nothing is imported inside the request

    page = logged_in.get(response["Location"], HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'data-import-status="queued"' in page
    assert "Waiting for a worker" in page
    assert f'hx-get="/outreach/leads/import/{job.pk}/status/"' in page  # keeps polling


def test_finished_job_shows_the_counts_and_every_rejected_line(logged_in, tenant, sent):
    job = start_import(tenant, file_name="leads.csv", content=GOOD_AND_BAD.encode())
    finished = run_import(job.pk)

    assert finished.status == ImportJob.Status.DONE
    assert (finished.created, finished.updated, finished.unchanged) == (1, 0, 0)
    assert finished.rejected == [{"line": 3, "reason": finished.rejected[0]["reason"]}]
    assert "phone" in finished.rejected[0]["reason"].lower()
    assert bytes(finished.content) == b""  # the upload is not kept once imported
    assert finished.processed_rows == finished.total_rows == 2
    assert list(Lead.objects.filter(tenant=tenant).values_list("name", flat=True)) == [
        "Alfa Agro SRL"
    ]

    status = logged_in.get(f"{IMPORT}{job.pk}/status/", HTTP_ACCEPT_LANGUAGE="en")
    html = status.content.decode()
    assert status.status_code == 200
    assert 'data-import-status="done"' in html
    assert "created 1, updated 0, unchanged 0, rejected 1" in html
    assert 'data-rejected-line="3"' in html
    assert "hx-trigger" not in html  # polling stops once the job has finished


def test_dry_run_saves_nothing_but_reports(logged_in, tenant, sent):
    job = start_import(tenant, file_name="x.csv", content=GOOD_AND_BAD.encode(), dry_run=True)
    run_import(job.pk)
    html = logged_in.get(f"{IMPORT}{job.pk}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "dry run, nothing saved" in html and "created 1" in html
    assert not Lead.objects.exists()


def test_progress_is_recorded_while_rows_are_checked(tenant, sent, monkeypatch):
    monkeypatch.setattr("outreach.importing.cleaning.PROGRESS_EVERY", 10)
    seen: list[tuple[str, int, int]] = []
    real_import_csv = import_jobs.import_csv

    def spying_import_csv(*args, progress, **kwargs):
        def spy(processed: int) -> None:
            progress(processed)
            job = ImportJob.objects.get()
            seen.append((job.status, job.processed_rows, job.percent))

        return real_import_csv(*args, progress=spy, **kwargs)

    monkeypatch.setattr(import_jobs, "import_csv", spying_import_csv)
    rows = "".join(f"Ferma {n} SRL,,07220{n:05d}\n" for n in range(35))
    job = start_import(tenant, file_name="big.csv", content=("name,cui,phone\n" + rows).encode())
    assert job.total_rows == 35
    run_import(job.pk)
    running = ImportJob.Status.RUNNING
    # Every 10 rows while checking, then once more when saved (capped below 100 % until done).
    assert seen == [(running, 10, 28), (running, 20, 57), (running, 30, 85), (running, 35, 99)]
    job.refresh_from_db()
    assert (job.status, job.processed_rows, job.percent) == (ImportJob.Status.DONE, 35, 100)


def test_bad_header_fails_the_job_with_the_reason_and_keeps_existing_leads(logged_in, tenant, sent):
    kept = make_lead(tenant, name="Deja Importat SRL")
    job = start_import(tenant, file_name="x.csv", content=b"foo,bar\n1,2\n")
    run_import(job.pk)
    job.refresh_from_db()
    assert job.status == ImportJob.Status.FAILED and "name" in job.error.lower()
    html = logged_in.get(f"{IMPORT}{job.pk}/status/").content.decode()
    assert "data-import-error" in html
    assert list(Lead.objects.values_list("pk", flat=True)) == [kept.pk]


def test_unexpected_error_fails_the_job_and_saves_nothing(tenant, sent, monkeypatch):
    def explode(*args, **kwargs):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(import_jobs, "import_csv", explode)
    job = start_import(tenant, file_name="x.csv", content=GOOD_AND_BAD.encode())
    run_import(job.pk)
    job.refresh_from_db()
    assert job.status == ImportJob.Status.FAILED
    shown = reasons.render(job.error)
    assert "unexpected error" in shown and "disk on fire" not in job.error


def test_a_job_runs_once_even_if_delivered_twice(tenant, sent):
    job = start_import(tenant, file_name="x.csv", content=GOOD_AND_BAD.encode())
    assert run_import(job.pk) is not None
    assert run_import(job.pk) is None
    assert Lead.objects.count() == 1


@pytest.mark.parametrize(
    ("content", "reason"),
    [(b"", "empty"), (b"  \n\n", "empty"), (b"x" * (import_jobs.MAX_UPLOAD_BYTES + 1), "larger")],
)
def test_empty_or_huge_uploads_are_refused(tenant, content, reason):
    with pytest.raises(UploadRefused, match=reason):
        start_import(tenant, file_name="x.csv", content=content)
    assert not ImportJob.objects.exists()


def test_refused_upload_goes_back_with_the_reason(
    logged_in, sent, django_capture_on_commit_callbacks
):
    response = post_file(
        logged_in, "", django_capture_on_commit_callbacks=django_capture_on_commit_callbacks
    )
    assert response.status_code == 302 and response["Location"] == "/outreach/leads/"
    page = logged_in.get("/outreach/leads/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "leads.csv: The file is empty." in page
    assert sent == [] and not ImportJob.objects.exists()


def test_post_without_a_file_is_refused(logged_in):
    response = logged_in.post(IMPORT, {}, HTTP_ACCEPT_LANGUAGE="en", follow=True)
    assert "Choose a CSV file to import." in response.content.decode()
    assert not ImportJob.objects.exists()


def test_data_lines_are_counted_without_the_header_or_blank_lines():
    assert count_data_lines(b"name\n\nA\r\nB\n   \n") == 2
    assert count_data_lines(b"name\n") == 0


# --- access ---------------------------------------------------------------------------


def test_another_tenants_job_is_404(logged_in, sent):
    theirs = start_import(make_tenant(), file_name="x.csv", content=GOOD_AND_BAD.encode())
    assert logged_in.get(f"{IMPORT}{theirs.pk}/").status_code == 404
    assert logged_in.get(f"{IMPORT}{theirs.pk}/status/").status_code == 404


def test_earlier_imports_list_only_this_tenant(logged_in, tenant, sent):
    mine = start_import(tenant, file_name="mine-before.csv", content=GOOD_AND_BAD.encode())
    start_import(make_tenant(), file_name="theirs.csv", content=GOOD_AND_BAD.encode())
    current = start_import(tenant, file_name="mine-now.csv", content=GOOD_AND_BAD.encode())
    html = logged_in.get(f"{IMPORT}{current.pk}/").content.decode()
    assert f"/outreach/leads/import/{mine.pk}/" in html
    assert "theirs.csv" not in html


def test_anonymous_is_sent_to_login(client, tenant, sent):
    job = start_import(tenant, file_name="x.csv", content=GOOD_AND_BAD.encode())
    for url in (IMPORT, f"{IMPORT}{job.pk}/", f"{IMPORT}{job.pk}/status/"):
        response = client.post(url) if url == IMPORT else client.get(url)
        assert response.status_code == 302 and response["Location"].startswith("/login/")


def test_upload_without_csrf_token_is_refused(tenant, sent):
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(make_user(tenant))
    response = strict.post(IMPORT, {"file": upload(GOOD_AND_BAD)})
    assert response.status_code == 403
    assert not ImportJob.objects.exists()


# --- through a real worker ------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_worker_imports_the_upload(client):
    tenant = make_tenant()
    client.force_login(make_user(tenant))
    with running_workers():
        response = client.post(IMPORT, {"file": upload(GOOD_AND_BAD)})
        job_id = int(response["Location"].rstrip("/").rsplit("/", 1)[1])
        wait_until(
            lambda: ImportJob.objects.get(pk=job_id).status == ImportJob.Status.DONE,
            timeout=30,
            what=lambda: ImportJob.objects.values("status", "error").get(pk=job_id),
        )
    assert Lead.objects.filter(tenant=tenant).count() == 1


def test_the_report_says_how_many_new_leads_can_be_contacted_and_why_not(logged_in, tenant):
    """A CSV without any check column: the numbers are unchecked (tried by default), a
    number on the do-not-contact list is counted as not contactable with its reason, in
    the reader's language."""
    from outreach.suppression import suppress

    suppress(tenant, phone="+40722000003", reason="stop")
    csv = (
        "company_name,phone,email\n"
        "Ferma Unu SRL,0722000001,unu@ferma.ro\n"
        "Ferma Doi SRL,0722000002,\n"
        "Ferma Trei SRL,0722000003,\n"
    )
    job = run_import(start_import(tenant, file_name="leads.csv", content=csv.encode()).pk)
    assert job.created == 3, job.rejected
    tally = job.readiness
    assert tally.ready == 0
    assert tally.unchecked == {"readiness.phone_unchecked": 2}
    assert tally.blocked == {"readiness.opted_out": 1}  # the listed number: opted out on import
    english = logged_in.get(f"{IMPORT}{job.pk}/status/", HTTP_ACCEPT_LANGUAGE="en").content
    assert "1 cannot be contacted: opted out" in english.decode()
    assert (
        "2 can be contacted, number not checked yet — the first message checks it"
        in english.decode()
    )
    assert "?contactable=false" in english.decode()
    romanian = logged_in.get(f"{IMPORT}{job.pk}/status/", HTTP_ACCEPT_LANGUAGE="ro").content
    assert "data-import-readiness" in romanian.decode()
    assert "opted out" not in romanian.decode() and "not checked" not in romanian.decode()


def test_a_dry_run_counts_no_readiness(tenant):
    job = start_import(tenant, file_name="x.csv", content=GOOD_AND_BAD.encode(), dry_run=True)
    assert run_import(job.pk).readiness is None
