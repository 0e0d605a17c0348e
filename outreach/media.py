"""WhatsApp media (docs/whatsapp-media.md): the images and PDFs a template version or a
person sends with a WhatsApp message.

A file is checked once, by its bytes: its first bytes must be a JPEG's, a PNG's or a PDF's
(a name or a browser's content type proves nothing), and it must be within the size both
providers take. It is stored once per tenant (the same bytes again are the same row, by
their sha256) in Django's default storage, and uploaded once per provider account
(`provider_id`: TimelinesAI's file uid, the Cloud API's media id, kept in MediaUpload).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import PurePath

from django.contrib.auth.models import User
from django.core.files import File
from django.db import IntegrityError, transaction
from django.template.defaultfilters import filesizeformat
from django.utils import timezone
from django.utils.translation import gettext as _

from cerniq.provider_errors import ProviderError
from outreach.models import MediaFile, MediaUpload
from whatsapp.backends import OutgoingMedia, WhatsAppBackend

MB = 1024 * 1024
# Neither TimelinesAI's documentation nor the part of Meta's we keep states a limit, so
# the Cloud API's published ones apply to both: images 5 MB, documents 100 MB.
MAX_BYTES = {"image": 5 * MB, "document": 100 * MB}
FILENAME_LENGTH = 200  # MediaFile.filename


@dataclass(frozen=True)
class Kind:
    """A type we send: its first bytes, content type, WhatsApp kind and name."""

    magic: bytes
    content_type: str
    kind: str  # "image" | "document": how WhatsApp sends it
    label: str
    suffixes: tuple[str, ...]


KINDS = (
    Kind(b"\xff\xd8\xff", "image/jpeg", "image", "JPEG", (".jpg", ".jpeg")),
    Kind(b"\x89PNG\r\n\x1a\n", "image/png", "image", "PNG", (".png",)),
    Kind(b"%PDF-", "application/pdf", "document", "PDF", (".pdf",)),
)
BY_CONTENT_TYPE = {kind.content_type: kind for kind in KINDS}
ACCEPT = ",".join(suffix for kind in KINDS for suffix in kind.suffixes)
# A provider's id is used only while it has this long left (a send may be retried later).
EXPIRY_MARGIN = timedelta(days=1)


class MediaRefused(ValueError):
    """The file cannot be sent on WhatsApp; the text says why, for the operator."""


@dataclass(frozen=True)
class Checked:
    kind: Kind
    size: int
    sha256: str
    filename: str


def _size(size: int) -> str:
    return filesizeformat(size).replace("\xa0", " ")


def kind_of(content_type: str) -> str:
    """ "image" or "document" for a stored file's content type."""
    found = BY_CONTENT_TYPE.get(content_type)
    return found.kind if found else "document"


def check(upload: File) -> Checked:
    """The file's type (by its first bytes), size, hash and a clean name; MediaRefused
    naming the problem otherwise."""
    name = PurePath(str(upload.name or "")).name.strip()
    size = upload.size or 0
    if size == 0:
        raise MediaRefused(_("%(file)s is empty.") % {"file": name or _("The file")})
    upload.seek(0)
    head = upload.read(16)
    upload.seek(0)
    kind = next((k for k in KINDS if head.startswith(k.magic)), None)
    if kind is None:
        raise MediaRefused(
            _("%(file)s is not a JPEG, PNG or PDF file (judged by its content, not its name).")
            % {"file": name or _("The file")}
        )
    limit = MAX_BYTES[kind.kind]
    if size > limit:
        raise MediaRefused(
            _("%(type)s larger than %(max)s (%(file)s is %(size)s).")
            % {"type": kind.label, "max": f"{limit // MB} MB", "file": name, "size": _size(size)}
        )
    digest = hashlib.sha256()
    for chunk in upload.chunks():
        digest.update(chunk)
    upload.seek(0)
    return Checked(kind, size, digest.hexdigest(), _clean_name(name, kind))


def _clean_name(name: str, kind: Kind) -> str:
    """The name the person sees: the uploaded one, ending as its type does."""
    path = PurePath(name or f"{kind.kind}{kind.suffixes[0]}")
    stem = path.stem if path.suffix.lower() in kind.suffixes else path.name
    suffix = path.suffix if path.suffix.lower() in kind.suffixes else kind.suffixes[0]
    stem = "".join(ch for ch in stem if ch.isprintable() and ch not in '/\\:*?"<>|').strip()
    return f"{stem[: FILENAME_LENGTH - len(suffix)] or kind.kind}{suffix}"


def store(tenant_id: int, upload: File, *, user: User | None = None) -> MediaFile:
    """The tenant's MediaFile for these bytes: the existing row when they were stored
    before (under whichever name came first), else a new one, its file in the default
    storage. Two stores of the same bytes at once make one row."""
    checked = check(upload)
    found = MediaFile.objects.filter(tenant_id=tenant_id, sha256=checked.sha256).first()
    if found is not None:
        return found
    row = MediaFile(
        tenant_id=tenant_id,
        filename=checked.filename,
        content_type=checked.kind.content_type,
        size=checked.size,
        sha256=checked.sha256,
        uploaded_by=user,
    )
    try:
        with transaction.atomic():
            row.file.save(checked.filename, upload, save=True)
    except IntegrityError:
        first = MediaFile.objects.get(tenant_id=tenant_id, sha256=checked.sha256)
        if row.file.name and row.file.name != first.file.name:
            row.file.storage.delete(row.file.name)  # our copy; never the row's own
        return first
    return row


def of_tenant(tenant_id: int, pk: int | None) -> MediaFile | None:
    """The tenant's media file `pk` (None for another tenant's, or none)."""
    if not pk:
        return None
    return MediaFile.objects.filter(tenant_id=tenant_id, pk=pk).first()


def outgoing(media: MediaFile) -> OutgoingMedia:
    """What a WhatsApp backend is told of a message's file."""
    return OutgoingMedia(
        id=media.pk,
        filename=media.filename,
        content_type=media.content_type,
        kind=kind_of(media.content_type),
        size=media.size,
    )


def read(media: MediaFile) -> bytes:
    with media.file.open("rb") as handle:
        return handle.read()


# --- upload once per provider account -------------------------------------------------


def provider_id(
    media: MediaFile,
    backend: WhatsAppBackend,
    *,
    provider: str,
    account: str,
    now: datetime | None = None,
) -> str:
    """The provider's id of `media` on one of its accounts: the stored one while it has a
    day left, else uploaded now and stored. An upload that fails raises its ProviderError
    (the send path's retry table applies), never marked uncertain: nothing reached the
    person, so the message is simply tried again. Two sends uploading at once both
    succeed; the second keeps the first's id (the duplicate file is harmless)."""
    now = now or timezone.now()
    found = MediaUpload.objects.filter(media=media, provider=provider, account=account).first()
    if found is not None and (found.expires_at is None or found.expires_at > now + EXPIRY_MARGIN):
        return found.remote_id
    try:
        remote = backend.upload_media(
            account_id=account,
            content=read(media),
            filename=media.filename,
            content_type=media.content_type,
        )
    except ProviderError as error:
        error.uncertain = False
        raise
    lifetime = backend.media_lifetime
    expires = now + lifetime if lifetime is not None else None
    if found is not None:
        MediaUpload.objects.filter(pk=found.pk).update(remote_id=remote, expires_at=expires)
        return remote
    try:
        with transaction.atomic():
            MediaUpload.objects.create(
                media=media,
                provider=provider,
                account=account,
                remote_id=remote,
                expires_at=expires,
            )
    except IntegrityError:
        stored = MediaUpload.objects.get(media=media, provider=provider, account=account)
        return stored.remote_id
    return remote
