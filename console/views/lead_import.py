"""CSV import from the leads page: upload, then a page whose progress bar follows the job."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from cerniq.tenancy import AuthenticatedHttpRequest, scope_for
from outreach.import_jobs import MAX_UPLOAD_BYTES, UploadRefused, start_import
from outreach.models import ImportJob

RECENT_JOBS = 10


@login_required
@require_POST
def lead_import(request: AuthenticatedHttpRequest) -> HttpResponse:
    scope = scope_for(request)
    upload = request.FILES.get("file")
    if upload is None:
        messages.error(request, _("Choose a CSV file to import."))
        return redirect("outreach:leads")
    if upload.size and upload.size > MAX_UPLOAD_BYTES:
        messages.error(
            request,
            _("%(name)s is larger than %(mb)d MB; split it and import the parts.")
            % {"name": upload.name, "mb": MAX_UPLOAD_BYTES // (1024 * 1024)},
        )
        return redirect("outreach:leads")
    try:
        job = start_import(
            scope.tenant,
            file_name=upload.name or "",
            content=upload.read(),
            dry_run=bool(request.POST.get("dry_run")),
            user=request.user,
        )
    except UploadRefused as refused:
        messages.error(request, f"{upload.name}: {refused}")
        return redirect("outreach:leads")
    return redirect("outreach:lead_import_job", pk=job.pk)


def _job(request: AuthenticatedHttpRequest, pk: int) -> ImportJob:
    return scope_for(request).get_or_404(ImportJob.objects.defer("content"), pk=pk)


@login_required
@require_GET
def import_job(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    job = _job(request, pk)
    recent = (
        scope_for(request)
        .queryset(ImportJob)
        .defer("content", "rejected", "flagged")
        .exclude(pk=job.pk)
        .order_by("-created_at")[:RECENT_JOBS]
    )
    return render(request, "outreach/import_job.html", {"job": job, "recent": recent})


@login_required
@require_GET
def import_job_status(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """The progress block alone, polled by htmx until the job has finished."""
    return render(request, "outreach/_import_job_status.html", {"job": _job(request, pk)})
