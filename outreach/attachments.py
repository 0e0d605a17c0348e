"""Files sent with an email: checked before they are stored, stored with the message.

An operator attaches a proforma or a datasheet to an email from the lead page. What a farm's
inbox will open is checked here, once, before anything is stored: a size per file and per
email (Resend takes 40 MB after base64, docs/providers.md §3.2; we keep well under), a type from a
short list of office documents and images, and a PDF must really be a PDF (pypdf opens it),
so a renamed or broken file is refused with a clear reason instead of reaching the lead.
"""

from __future__ import annotations

import io
import mimetypes
from pathlib import PurePath

from django.core.files.uploadedfile import UploadedFile
from django.utils.translation import gettext as _

from email_channels.backends import MAX_ATTACHMENT_BYTES, EmailAttachment
from outreach.models import Message, MessageAttachment

MAX_FILE_BYTES = 10 * 1024 * 1024
MAX_FILES = 5
ALLOWED = {
    ".pdf": "application/pdf",
    ".doc": "application/msword",
    ".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    ".xls": "application/vnd.ms-excel",
    ".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".png": "image/png",
}


class AttachmentRefused(ValueError):
    """The file cannot be sent; the text says why, for the operator."""


def _megabytes(size: int) -> str:
    return f"{size / 1024 / 1024:.0f} MB"


def check(files: list[UploadedFile]) -> list[tuple[UploadedFile, str]]:
    """The files with their content type, or AttachmentRefused naming the file at fault."""
    if len(files) > MAX_FILES:
        raise AttachmentRefused(_("Attach at most %(n)d files.") % {"n": MAX_FILES})
    checked, total = [], 0
    for upload in files:
        name = PurePath(upload.name or "").name
        kind = ALLOWED.get(PurePath(name).suffix.lower())
        if not name or kind is None:
            raise AttachmentRefused(
                _("%(file)s: send a PDF, a Word or Excel document or a picture.")
                % {"file": name or "?"}
            )
        size = _size(upload)
        if size > MAX_FILE_BYTES:
            raise AttachmentRefused(
                _("%(file)s is larger than %(max)s.")
                % {"file": name, "max": _megabytes(MAX_FILE_BYTES)}
            )
        if size == 0:
            raise AttachmentRefused(_("%(file)s is empty.") % {"file": name})
        if kind == "application/pdf":
            _check_pdf(upload, name)
        total += size
        checked.append((upload, kind))
    if total > MAX_ATTACHMENT_BYTES:
        raise AttachmentRefused(
            _("The attachments together are larger than %(max)s.")
            % {"max": _megabytes(MAX_ATTACHMENT_BYTES)}
        )
    return checked


def _size(upload: UploadedFile) -> int:
    assert upload.size is not None, "Django's upload handlers measure every file they take"
    return upload.size


def _check_pdf(upload: UploadedFile, name: str) -> None:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    upload.seek(0)
    data = upload.read()
    upload.seek(0)
    try:
        pages = len(PdfReader(io.BytesIO(data)).pages)
    except (PdfReadError, ValueError, OSError, KeyError, TypeError):
        pages = 0
    if not pages:
        raise AttachmentRefused(_("%(file)s is not a PDF that opens.") % {"file": name})


def store(message: Message, files: list[tuple[UploadedFile, str]]) -> list[MessageAttachment]:
    """Keep the checked files with `message` (in the default storage)."""
    stored = []
    for upload, kind in files:
        name = PurePath(upload.name or "").name  # check() refused a file without a name
        row = MessageAttachment(
            message=message, filename=name, content_type=kind, size=_size(upload)
        )
        row.file.save(name, upload, save=True)
        stored.append(row)
    return stored


def for_sending(message: Message) -> tuple[EmailAttachment, ...]:
    """The message's files as the email backend takes them."""
    found = []
    for row in message.attachments.all():
        with row.file.open("rb") as handle:
            content = handle.read()
        kind = row.content_type or mimetypes.guess_type(row.filename)[0] or ""
        found.append(EmailAttachment(row.filename, content, kind or "application/octet-stream"))
    return tuple(found)
