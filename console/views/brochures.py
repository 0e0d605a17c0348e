"""Templates drafted from a brochure: the upload, the job's page (its progress polled by
htmx, then the drafts), the stored PDF, a retry. The work is outreach.brochures'."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Prefetch, QuerySet
from django.http import FileResponse, Http404, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from cerniq.tenancy import AuthenticatedHttpRequest, scope_for
from console.forms_brochures import BrochureUploadForm
from outreach.brochures import jobs
from outreach.brochures.reading import MAX_UPLOAD_BYTES, BrochureRefused, too_large
from outreach.models import Brochure, TemplateVersion
from outreach.template_preview import preview_template

RECENT = 20


def _brochures(request: AuthenticatedHttpRequest) -> QuerySet[Brochure]:
    """The workspace's brochures (never another's), their drafted versions at hand."""
    versions = TemplateVersion.objects.select_related("template").order_by("pk")
    return (
        scope_for(request)
        .queryset(Brochure)
        .defer("text", "prompt")
        .prefetch_related(Prefetch("versions", queryset=versions))
    )


@login_required
@require_http_methods(["GET", "POST"])
def brochure_list(request: AuthenticatedHttpRequest) -> HttpResponse:
    """Upload a PDF (checked at once, read and drafted on a worker); the recent ones."""
    scope = scope_for(request)
    form = BrochureUploadForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["file"]
        try:
            if upload.size > MAX_UPLOAD_BYTES:  # refused before it is read into memory
                raise too_large()
            brochure = jobs.start(
                scope.tenant, file_name=upload.name or "", content=upload.read(), user=request.user
            )
        except BrochureRefused as refused:
            form.add_error("file", f"{upload.name}: {refused}")
        else:
            return redirect("outreach:brochure", pk=brochure.pk)
    recent = _brochures(request).order_by("-created_at", "-pk")[:RECENT]
    return render(request, "outreach/brochures.html", {"form": form, "recent": recent})


def _shown(request: AuthenticatedHttpRequest, pk: int) -> Brochure:
    """The brochure of the workspace, each drafted version with one example rendering."""
    brochure = scope_for(request).get_or_404(
        Brochure.objects.prefetch_related(
            Prefetch(
                "versions",
                queryset=TemplateVersion.objects.select_related("template").order_by("pk"),
            )
        ),
        pk=pk,
    )
    for version in brochure.versions.all():
        shown = preview_template(version.body, version.template.channel, n=1).variants
        version.example = shown[0] if shown else ""  # type: ignore[attr-defined]
    return brochure


@login_required
@require_GET
def brochure_detail(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    return render(request, "outreach/brochure.html", {"brochure": _shown(request, pk)})


@login_required
@require_GET
def brochure_status(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """The job's block alone, polled by htmx until it has finished."""
    return render(request, "outreach/_brochure_status.html", {"brochure": _shown(request, pk)})


@login_required
@require_POST
def brochure_retry(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    brochure = scope_for(request).get_or_404(Brochure.objects.only("pk"), pk=pk)
    if jobs.retry(brochure):
        messages.success(request, _("The brochure is read again."))
    else:
        messages.info(request, _("The brochure is being read; wait for it to finish."))
    return redirect("outreach:brochure", pk=pk)


@login_required
@require_GET
def brochure_file(request: AuthenticatedHttpRequest, pk: int) -> FileResponse:
    """The uploaded PDF, always as a download; another workspace's is a 404."""
    brochure = scope_for(request).get_or_404(Brochure.objects.only("file", "file_name"), pk=pk)
    try:
        handle = brochure.file.open("rb")
    except (FileNotFoundError, OSError) as missing:
        raise Http404("The file is no longer in storage.") from missing
    return FileResponse(
        handle, as_attachment=True, filename=brochure.file_name, content_type="application/pdf"
    )
