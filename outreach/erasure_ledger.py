"""The erasure ledger: every erasure written, as hashes only, beside the backups
(STORAGES["dbbackup"], under ERASURE_LEDGER_PREFIX), one small file each.

A backup taken before an erasure still holds the person. After a restore (`manage.py
restore`, and every `migrate`: a restored older database is migrated before use),
outreach.erasure.reapply reads the ledger and erases again whoever the restored database
still holds, and lists their hashes. A file names nobody: the workspace, the lead's id,
when, and the HMAC hashes of the phone and address.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import Storage, storages

from outreach.models import Erasure

log = logging.getLogger(__name__)

FORMAT = "cerniq.erasure/1"


def _storage() -> Storage:
    """The backup storage, made from the settings each time: asking Django's storages
    handler would freeze every storage's settings at the first `migrate` (its
    post_migrate reads the ledger), before a test or a bench changes STORAGES."""
    return storages.create_storage(settings.STORAGES["dbbackup"])


def write(erasure: Erasure, hashes: dict[str, str]) -> str:
    """One file for the erasure; its name in the backup storage."""
    document = {
        "format": FORMAT,
        "tenant": erasure.tenant.slug,
        "lead_id": erasure.lead_ref,
        "erasure_id": erasure.pk,
        "erased_at": erasure.created_at.isoformat(),
        "requested_by": erasure.requested_by.get_username() if erasure.requested_by else "",
        "hashes": hashes,
    }
    stamp = erasure.created_at.strftime("%Y%m%d-%H%M%S")
    name = f"{settings.ERASURE_LEDGER_PREFIX}{stamp}-{erasure.tenant.slug}-{erasure.pk}.json"
    return _storage().save(name, ContentFile(json.dumps(document, indent=1).encode()))


def entries() -> Iterator[dict[str, Any]]:
    """Every erasure in the ledger, oldest first (a file that cannot be read is logged and
    skipped: the others are still applied)."""
    storage = _storage()
    folder = settings.ERASURE_LEDGER_PREFIX.rstrip("/")
    try:
        _, files = storage.listdir(folder)
    except FileNotFoundError:
        return
    for name in sorted(files):
        path = f"{folder}/{name}"
        try:
            with storage.open(path) as handle:
                document = json.loads(handle.read())
        except (OSError, ValueError) as error:
            log.error("erasure ledger file %s unreadable: %s", path, error)
            continue
        if isinstance(document, dict) and document.get("format") == FORMAT:
            yield document
