"""CSV imports from the leads page, run on a worker so the page can show progress.

The upload is stored on an `ImportJob` row (nothing is lost if the worker restarts before
it starts), the same `import_csv` the command uses does the work, and its progress callback
moves the job's counter. The bytes are dropped once the import has finished.
"""

from __future__ import annotations

import hashlib
import io
import logging
from datetime import timedelta

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import F
from django.db.models.functions import Least
from django.utils import timezone
from django.utils.formats import number_format
from django.utils.translation import gettext as _

from cerniq import reasons
from cerniq.models import Tenant
from outreach import reasons as codes
from outreach.importing import ImportFileError, import_csv
from outreach.models import ImportJob
from outreach.readiness import tally_ids

log = logging.getLogger(__name__)

MAX_UPLOAD_BYTES = 20 * 1024 * 1024
MAX_ROWS = 100_000  # rows of one import (a file that size is about 15 MB of CSV)
# A repeated request (same Idempotency-Key, or the same content without one) within this
# window answers the job already made instead of importing again.
IDEMPOTENCY_WINDOW = timedelta(hours=24)


class UploadRefused(ValueError):
    """The upload cannot become an import job (empty, too big); the message says why."""


def too_many_rows(rows: int) -> str:
    """Why an import of this many rows is refused (the pages and the API say the same)."""
    return _(
        "The file has %(rows)s rows; at most %(max)s are imported at once: split it and "
        "import the parts."
    ) % {
        "rows": number_format(rows, force_grouping=True),
        "max": number_format(MAX_ROWS, force_grouping=True),
    }


class IdempotencyConflict(ValueError):
    """The Idempotency-Key was used for different content within the window."""


def count_data_lines(content: bytes) -> int:
    """Rows after the header, for the progress bar (quoted line breaks make it an estimate)."""
    lines = [line for line in content.splitlines() if line.strip()]
    return max(len(lines) - 1, 0)


def start_import(
    tenant: Tenant,
    *,
    file_name: str,
    content: bytes,
    dry_run: bool = False,
    user: User | None = None,
    idempotency_key: str = "",
) -> ImportJob:
    """Store the upload as a job and queue it for a worker once the row is committed."""
    if not content.strip():
        raise UploadRefused(_("The file is empty."))
    if len(content) > MAX_UPLOAD_BYTES:
        raise UploadRefused(
            _("The file is larger than %(mb)d MB; split it and import the parts.")
            % {"mb": MAX_UPLOAD_BYTES // (1024 * 1024)}
        )
    total_rows = count_data_lines(content)
    if total_rows > MAX_ROWS:
        raise UploadRefused(too_many_rows(total_rows))
    from outreach.tasks import run_import_job

    job = ImportJob.objects.create(
        tenant=tenant,
        created_by=user if user is not None and user.is_authenticated else None,
        file_name=file_name[:255],
        content=content,
        dry_run=dry_run,
        total_rows=total_rows,
        idempotency_key=idempotency_key[:255],
        content_hash=content_hash(content, dry_run=dry_run) if idempotency_key else "",
    )
    transaction.on_commit(lambda: run_import_job.send(job.pk))
    return job


def content_hash(content: bytes, *, dry_run: bool) -> str:
    return hashlib.sha256(b"dry-run\n" + content if dry_run else content).hexdigest()


@transaction.atomic
def start_or_reuse_import(
    tenant: Tenant,
    *,
    file_name: str,
    content: bytes,
    dry_run: bool = False,
    user: User | None = None,
    idempotency_key: str = "",
) -> tuple[ImportJob, bool]:
    """A new job (True), or the one a repeat of this request made within the window (False).

    The repeat is recognised by the client's Idempotency-Key, else by the content itself;
    a key reused for other content raises IdempotencyConflict."""
    digest = content_hash(content, dry_run=dry_run)
    key = idempotency_key.strip()[:255] or f"sha256:{digest}"
    # One request of a tenant at a time gets here: two repeats cannot both create a job.
    list(Tenant.objects.select_for_update(no_key=True).filter(pk=tenant.pk).values("pk"))
    earlier = (
        ImportJob.objects.defer("content")
        .filter(
            tenant=tenant,
            idempotency_key=key,
            created_at__gte=timezone.now() - IDEMPOTENCY_WINDOW,
        )
        .order_by("-created_at")
        .first()
    )
    if earlier is not None:
        if earlier.content_hash != digest:
            raise IdempotencyConflict(
                _("This Idempotency-Key was already used for different content.")
            )
        return earlier, False
    job = start_import(
        tenant,
        file_name=file_name,
        content=content,
        dry_run=dry_run,
        user=user,
        idempotency_key=key,
    )
    return job, True


def run_import(job_id: int) -> ImportJob | None:
    """Import a queued job's file; a job already started or finished is left alone."""
    claimed = ImportJob.objects.filter(pk=job_id, status=ImportJob.Status.QUEUED).update(
        status=ImportJob.Status.RUNNING, started_at=timezone.now()
    )
    if not claimed:
        log.info("import job %s is not queued; skipped", job_id)
        return None
    job = ImportJob.objects.select_related("tenant").get(pk=job_id)

    def progress(processed: int) -> None:
        ImportJob.objects.filter(pk=job_id).update(processed_rows=Least(processed, F("total_rows")))

    try:
        report = import_csv(
            job.tenant,
            io.BytesIO(bytes(job.content)),
            dry_run=job.dry_run,
            source=f"csv upload: {job.file_name}",
            progress=progress,
        )
    except ImportFileError as problem:
        _finish(job_id, status=ImportJob.Status.FAILED, error=problem.reason)
    except Exception:
        log.exception("import job %s failed", job_id)
        _finish(
            job_id,
            status=ImportJob.Status.FAILED,
            error=reasons.code(codes.IMPORT_CRASHED),
        )
    else:
        _finish(
            job_id,
            status=ImportJob.Status.DONE,
            created=report.created,
            updated=report.updated,
            unchanged=report.unchanged,
            rejected=[{"line": e.line, "reason": e.reason} for e in report.rejected],
            flagged=[{"line": e.line, "reason": e.reason} for e in report.flagged],
            contact_readiness=tally_ids(job.tenant, report.created_ids).as_json()
            if report.created_ids
            else {},
            processed_rows=F("total_rows"),
        )
    return ImportJob.objects.get(pk=job_id)


def _finish(job_id: int, **fields: object) -> None:
    ImportJob.objects.filter(pk=job_id).update(content=b"", finished_at=timezone.now(), **fields)
