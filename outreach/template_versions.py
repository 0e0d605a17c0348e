"""A template's A/B versions as the editor saves them (pages and API)."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from outreach import stalls
from outreach.models import Enrollment, MediaFile, Message, Template, TemplateVersion

# Versions of one template, retired ones included (the editor shows them all, and the
# page's formset and the API's list take no more).
MAX_VERSIONS = 50


class TooManyVersions(ValueError):
    """Saving would give the template more than MAX_VERSIONS versions."""

    def __init__(self) -> None:
        super().__init__(
            _(
                "A template keeps at most %(limit)d versions (retired ones included); "
                "copy its text into a new template."
            )
            % {"limit": MAX_VERSIONS}
        )


# VersionSpec.media_id: the version keeps the file it has (a new version: the one of the
# version it replaces, or none).
KEEP_MEDIA = "keep"


@dataclass(frozen=True)
class VersionSpec:
    """A template version as the editor submits it; `id` None for a new version.
    `media_id`: the image or PDF a WhatsApp message of it carries (outreach.media), None
    for none, KEEP_MEDIA for unchanged."""

    body: str
    subject: str = ""
    weight: int = 100
    is_active: bool = True
    id: int | None = None
    media_id: int | None | str = KEEP_MEDIA


@transaction.atomic
def save_versions(template: Template, specs: list[VersionSpec]) -> list[TemplateVersion]:
    """Apply the editor's versions: new ones get the next numbers; a version whose text
    or file changed after it was used (messages carry it) is retired and its new text
    becomes a new version, so each version's results stay those of one message; weight and
    on/off are changed in place (a draft's text too, but it stays off: `approve` turns it
    on).
    Returns the versions as saved, in the order of `specs`; refuses (TooManyVersions) to
    pass MAX_VERSIONS."""
    Template.objects.select_for_update().filter(pk=template.pk).first()
    files = {spec.media_id for spec in specs if isinstance(spec.media_id, int)}
    others = MediaFile.objects.filter(pk__in=files).exclude(tenant=template.tenant_id)
    if files and others.exists():
        raise ValueError("a template version's file must be its own workspace's")
    existing = {v.pk: v for v in template.versions.all()}
    used = set(
        Message.objects.filter(template_version_id__in=list(existing))
        .values_list("template_version_id", flat=True)
        .distinct()
    )
    new = sum(1 for spec in specs if _makes_a_version(spec, existing, used))
    if new and len(existing) + new > MAX_VERSIONS:
        raise TooManyVersions()
    last = max((v.version for v in existing.values()), default=0)
    saved = []
    for spec in specs:
        current = existing.get(spec.id) if spec.id is not None else None
        fields = {
            "subject": spec.subject,
            "body": spec.body,
            "weight": spec.weight,
            "media_id": _media_of(spec, current),
        }
        if current is not None:
            if not _makes_a_version(spec, existing, used):
                # A draft stays off until a person approves it (`approve`).
                active = spec.is_active and not current.draft
                TemplateVersion.objects.filter(pk=current.pk).update(**fields, is_active=active)
                saved.append(TemplateVersion.objects.get(pk=current.pk))
                continue
            TemplateVersion.objects.filter(pk=current.pk).update(is_active=False)
        last += 1
        saved.append(
            TemplateVersion.objects.create(
                tenant_id=template.tenant_id,
                template=template,
                version=last,
                is_active=spec.is_active,
                **fields,
            )
        )
    return saved


def _makes_a_version(
    spec: VersionSpec, existing: dict[int, TemplateVersion], used: set[int]
) -> bool:
    """A new version, or new text for a version messages already carry (which retires it)."""
    current = existing.get(spec.id) if spec.id is not None else None
    if current is None:
        return True
    was = (current.body, current.subject, current.media_id)
    return current.pk in used and was != (spec.body, spec.subject, _media_of(spec, current))


def _media_of(spec: VersionSpec, current: TemplateVersion | None) -> int | None:
    if spec.media_id == KEEP_MEDIA:
        return current.media_id if current is not None else None
    assert not isinstance(spec.media_id, str), "VersionSpec.media_id: an id, None or KEEP_MEDIA"
    return spec.media_id


@transaction.atomic
def approve(version: TemplateVersion) -> TemplateVersion:
    """A person approves a draft (outreach.brochures): it is checked as any version the
    editor saves (TemplateVersion.clean raises ValidationError), turned on, and is an
    ordinary version from then on, in the template's A/B split by its weight. Enrollments
    stalled on a template with no active version wake up (outreach.stalls). A version
    that is no draft is returned as it is."""
    Template.objects.select_for_update().filter(pk=version.template_id).first()
    version = TemplateVersion.objects.select_related("template").get(pk=version.pk)
    if not version.draft:
        return version
    version.clean()
    TemplateVersion.objects.filter(pk=version.pk).update(draft=False, is_active=True)
    waiting = Enrollment.objects.filter(
        status=Enrollment.Status.ACTIVE,
        stalled_since__isnull=False,
        sequence__steps__template_id=version.template_id,
    ).values_list("lead_id", flat=True)
    stalls.wake(set(waiting), timezone.now())
    return TemplateVersion.objects.get(pk=version.pk)
