"""A message's attachment, downloaded from the inbox thread or the lead page."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import FileResponse, Http404
from django.shortcuts import get_object_or_404
from django.views.decorators.http import require_GET

from cerniq.tenancy import AuthenticatedHttpRequest, scope_for
from outreach.models import MessageAttachment


@login_required
@require_GET
def download(request: AuthenticatedHttpRequest, pk: int) -> FileResponse:
    """The file as it was sent, under its own name, always as a download (never shown in
    the page: a stored HTML or SVG file must not run as ours). Another workspace's file,
    or one missing from storage, is a 404."""
    scope = scope_for(request)
    attachment = get_object_or_404(MessageAttachment, pk=pk, message__tenant=scope.tenant)
    try:
        handle = attachment.file.open("rb")
    except (FileNotFoundError, OSError) as missing:
        raise Http404("The file is no longer in storage.") from missing
    return FileResponse(
        handle,
        as_attachment=True,
        filename=attachment.filename,
        content_type=attachment.content_type or "application/octet-stream",
    )
