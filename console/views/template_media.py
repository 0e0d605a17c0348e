"""The template editor's files: one image or PDF per WhatsApp version (outreach.media),
posted beside each version's fields as `<prefix>-media` (a file) and `<prefix>-media_remove`.

A version messages already carry keeps its file: changing or removing it saves a new
version (outreach.template_versions), as a change of its text does."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.core.files import File
from django.forms import BaseFormSet
from django.http import HttpRequest
from django.utils.translation import gettext as _

from outreach import media
from outreach.models import Channel
from outreach.template_versions import KEEP_MEDIA

FILE = "media"
REMOVE = "media_remove"

# Per filled version: a file to store, None (remove the version's file) or KEEP_MEDIA.
Choice = File | str | None


def posted(request: HttpRequest, versions: BaseFormSet, channel: str) -> list[Choice] | None:
    """What each filled version (the forms `filled()` returns, in order) does with its
    file; None when a file was refused, the reason on its version's form."""
    choices: list[Choice] = []
    refused = False
    for form in versions.forms:
        if not form.has_changed():
            continue
        upload = request.FILES.get(form.add_prefix(FILE))
        if upload is None:
            choices.append(None if request.POST.get(form.add_prefix(REMOVE)) else KEEP_MEDIA)
            continue
        if channel != Channel.WHATSAPP:
            form.add_error(None, _("An image or PDF goes with a WhatsApp template only."))
            refused = True
            continue
        try:
            media.check(upload)
        except media.MediaRefused as why:
            form.add_error(None, str(why))
            refused = True
            continue
        choices.append(upload)
    return None if refused else choices


def media_id(choice: Choice, tenant_id: int, user: object) -> int | None | str:
    """The version's `VersionSpec.media_id`: a posted file stored (once per tenant)."""
    if isinstance(choice, File):
        by = user if isinstance(user, User) else None
        return media.store(tenant_id, choice, user=by).pk
    return choice
