"""A WhatsApp message's image or PDF (outreach.media), from the lead page, the inbox and the
template editor: the workspace's own files only."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import FileResponse, Http404
from django.template.defaultfilters import filesizeformat
from django.views.decorators.http import require_GET

from cerniq.tenancy import AuthenticatedHttpRequest, scope_for
from outreach.media import kind_of
from outreach.models import MediaFile


@login_required
@require_GET
def media_file(request: AuthenticatedHttpRequest, pk: int) -> FileResponse:
    """An image shown in the page (a thumbnail links here), a PDF as a download under its
    name. Only JPEG, PNG and PDF bytes are ever stored (outreach.media.check), so an image
    shown inline cannot be a page that runs. Another workspace's file, or one missing from
    storage, is a 404."""
    media = scope_for(request).get_or_404(MediaFile, pk=pk)
    try:
        handle = media.file.open("rb")
    except (FileNotFoundError, OSError) as missing:
        raise Http404("The file is no longer in storage.") from missing
    response = FileResponse(
        handle,
        as_attachment=kind_of(media.content_type) != "image",
        filename=media.filename,
        content_type=media.content_type,
    )
    response["X-Content-Type-Options"] = "nosniff"
    response["Cache-Control"] = "private, max-age=3600"
    return response


def media_item(
    url_of: Callable[[int], str], pk: int | None, filename: str, size: int, content_type: str
) -> dict[str, Any] | None:
    """What a conversation row shows of a message's file (None for none): an image as a
    thumbnail linking to it, a PDF as a link with its name and size."""
    if pk is None:
        return None
    return {
        "url": url_of(pk),
        "filename": filename,
        "size": filesizeformat(size),
        "kind": kind_of(content_type),
    }
