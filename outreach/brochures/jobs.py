"""A brochure from upload to drafted templates, on a worker so the page never waits.

`start` checks the upload (outreach.brochures.reading), keeps the file in the default
storage under the tenant's folder and queues the job once its row is committed. `run`
(actor outreach.tasks.run_brochure) claims the queued row, reads the PDF (status
"extracting"), drafts (status "drafting": the model or the offline rules,
outreach.brochures.ai) and saves one template per draft, its only version a draft
(TemplateVersion.draft: no dispatch or send uses it before a person approves it,
outreach.template_versions.approve). A failure is kept on the row as a reason; the file
stays, so `retry` can run the job again.
"""

from __future__ import annotations

import logging
from pathlib import PurePath

from django.contrib.auth.models import User
from django.core.files.base import ContentFile
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from cerniq import reasons
from cerniq.models import Tenant
from outreach.brochures import ai
from outreach.brochures import reasons as why
from outreach.brochures.drafts import KINDS, Drafts
from outreach.brochures.offline import TITLE_CHARS, plain
from outreach.brochures.reading import BrochureRefused, NoText, check_upload, read
from outreach.models import Brochure, Template, TemplateVersion

log = logging.getLogger(__name__)


def start(
    tenant: Tenant,
    *,
    file_name: str,
    content: bytes,
    user: User | None = None,
) -> Brochure:
    """Check the upload (BrochureRefused says why not), keep it and queue its job."""
    name = PurePath(file_name.replace("\\", "/")).name or "brochure.pdf"
    pages = check_upload(name, content)
    brochure = Brochure(
        tenant=tenant,
        created_by=user if user is not None and user.is_authenticated else None,
        file_name=name[:200],
        size=len(content),
        pages=pages,
    )
    brochure.file.save(name[-100:], ContentFile(content), save=False)
    brochure.save()
    _queue(brochure.pk)
    return brochure


def _queue(brochure_id: int) -> None:
    from outreach.tasks import run_brochure

    transaction.on_commit(lambda: run_brochure.send(brochure_id))


def retry(brochure: Brochure) -> bool:
    """Queue a failed job again, or a stale one (its worker or its broker message was
    lost, Brochure.STALE_AFTER); False when the job is done or still running."""
    long_ago = timezone.now() - Brochure.STALE_AFTER
    again = Brochure.objects.filter(pk=brochure.pk).filter(
        Q(status=Brochure.Status.FAILED)
        | Q(status=Brochure.Status.QUEUED, created_at__lt=long_ago)
        | Q(
            status__in=[Brochure.Status.EXTRACTING, Brochure.Status.DRAFTING],
            started_at__lt=long_ago,
        )
    )
    if not again.update(status=Brochure.Status.QUEUED, error="", started_at=None):
        return False
    _queue(brochure.pk)
    return True


def run(brochure_id: int) -> Brochure | None:
    """Read a queued brochure and draft its templates; a job not queued is left alone."""
    claimed = Brochure.objects.filter(pk=brochure_id, status=Brochure.Status.QUEUED).update(
        status=Brochure.Status.EXTRACTING, started_at=timezone.now(), finished_at=None
    )
    if not claimed:
        log.info("brochure %s is not queued; skipped", brochure_id)
        return None
    brochure = Brochure.objects.select_related("tenant").get(pk=brochure_id)
    try:
        _draft(brochure)
    except FileNotFoundError:
        _fail(brochure_id, reasons.code(why.MISSING_FILE))
    except NoText:
        _fail(brochure_id, reasons.code(why.NO_TEXT))
    except BrochureRefused as refused:
        _fail(brochure_id, reasons.code(why.UNREADABLE, detail=str(refused)))
    except Exception:
        log.exception("brochure %s: drafting failed", brochure_id)
        _fail(brochure_id, reasons.code(why.CRASHED))
    return Brochure.objects.get(pk=brochure_id)


def _draft(brochure: Brochure) -> None:
    with brochure.file.open("rb") as handle:
        content = handle.read()
    reading = read(content)
    Brochure.objects.filter(pk=brochure.pk).update(
        status=Brochure.Status.DRAFTING,
        pages=reading.pages,
        text=reading.text,
        headings=reading.headings,
        products=[product.as_json() for product in reading.products],
    )
    outcome = ai.draft(brochure.tenant_id, brochure.tenant.name, reading, brochure.file_name)
    title = plain(reading.title, TITLE_CHARS) or plain(PurePath(brochure.file_name).stem, 60)
    with transaction.atomic():
        save_drafts(brochure, outcome.drafts, title=title or brochure.file_name[:60])
        Brochure.objects.filter(pk=brochure.pk).update(
            status=Brochure.Status.DONE,
            backend=outcome.backend,
            prompt=outcome.prompt,
            fallback_reason=outcome.fallback_reason,
            finished_at=timezone.now(),
        )


def save_drafts(brochure: Brochure, drafts: Drafts, *, title: str) -> list[Template]:
    """One new template per draft (named after the brochure), its version 1 a draft."""
    saved = []
    for kind in KINDS:
        template = Template.objects.create(
            tenant_id=brochure.tenant_id,
            name=_free_name(brochure.tenant_id, f"{title} — {kind.label}"),
            channel=kind.channel,
            language=Template.Language.RO,
        )
        TemplateVersion.objects.create(
            tenant_id=brochure.tenant_id,
            template=template,
            version=1,
            subject=drafts.subject(kind),
            body=drafts.body(kind),
            is_active=False,
            draft=True,
            brochure=brochure,
        )
        saved.append(template)
    return saved


def _free_name(tenant_id: int, wanted: str) -> str:
    """`wanted`, or with " (2)", " (3)"… when the workspace has a template of that name."""
    wanted = wanted[:190]
    taken = set(
        Template.objects.filter(tenant_id=tenant_id, name__startswith=wanted).values_list(
            "name", flat=True
        )
    )
    name, n = wanted, 1
    while name in taken:
        n += 1
        name = f"{wanted} ({n})"
    return name


def _fail(brochure_id: int, error: str) -> None:
    Brochure.objects.filter(pk=brochure_id).update(
        status=Brochure.Status.FAILED, error=error, finished_at=timezone.now()
    )
