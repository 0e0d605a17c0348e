"""Build the demo workspace: only what is missing is created (keyed by names and numbers).

A second run (every `make run`) never changes, enrolls or messages anything that exists:
operators may have opted leads out, paused them, moved their stages, edited them, changed
a sequence or a password since; only the leads this run creates are enrolled."""

from __future__ import annotations

from contextlib import suppress
from dataclasses import dataclass
from datetime import time

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Max

from cerniq import integrations
from cerniq.models import Membership, Tenant
from outreach.demo import DEMO_SEQUENCES, DEMO_TEMPLATES, colleague_rows, company_rows
from outreach.importing import ImportReport, import_rows
from outreach.models import Lead, Sequence, SequenceStep, Template, TemplateVersion
from outreach.sequences import EnrollmentError, enroll_many
from whatsapp.models import Phone

DEMO_SLUG = "demo"
DEMO_PHONES = 20
COLLEAGUES = 3  # demo companies with a second contact (outreach.demo.colleague_rows)
DEMO_USERS = (
    # username, password, role, is_superuser
    ("operator", "cerniq-operator", Membership.Role.OPERATOR, False),
    ("admin", "cerniq-admin", Membership.Role.ADMIN, True),
)


def demo_window() -> dict[str, object]:
    """The demo tenant's sending window, written once when the tenant is created (an
    operator's later change stays): open every hour of every day, holidays included, so
    the demo sends whenever it is started; the business window with DEMO_REAL_WINDOW."""
    if settings.DEMO_REAL_WINDOW:
        return {
            "window_start": time(9, 0),
            "window_end": time(18, 0),
            "working_days": [0, 1, 2, 3, 4],
            "holiday_country": "RO",
        }
    return {
        "window_start": time.min,
        "window_end": time.max,
        "working_days": list(range(7)),
        "holiday_country": "",
    }


@dataclass
class SeedResult:
    tenant: Tenant
    created: dict[str, int]
    leads: ImportReport
    credentials: list[tuple[str, str, str]]


def _user(username: str, password: str, superuser: bool) -> tuple[object, bool]:
    User = get_user_model()
    user, created = User.objects.get_or_create(
        username=username,
        defaults={
            "email": f"{username}@demo.cerniq.local",
            "is_staff": superuser,
            "is_superuser": superuser,
        },
    )
    if created:  # an existing user keeps the password someone may have changed
        user.set_password(password)
        user.save(update_fields=["password"])
    return user, created


@transaction.atomic
def seed_demo(companies: int = 300) -> SeedResult:
    created = {
        "tenant": 0,
        "users": 0,
        "phones": 0,
        "templates": 0,
        "sequences": 0,
        "enrollments": 0,
    }
    tenant, was_created = Tenant.objects.get_or_create(
        slug=DEMO_SLUG, defaults={"name": "Cerniq Demo Agro", **demo_window()}
    )
    created["tenant"] += was_created

    credentials = []
    for username, password, role, superuser in DEMO_USERS:
        user, was_created = _user(username, password, superuser)
        created["users"] += was_created
        Membership.objects.get_or_create(tenant=tenant, user=user, defaults={"role": role})
        credentials.append(
            (
                username,
                password,
                "Django admin at /admin/" if superuser else "operator pages under /outreach/",
            )
        )

    for n in range(1, DEMO_PHONES + 1):
        _, was_created = Phone.objects.get_or_create(
            tenant=tenant,
            number=f"+407400001{n:02d}",
            defaults={
                "label": f"Telefon {n:02d}",
                "provider": integrations.SANDBOX,
                "account_id": f"407400001{n:02d}@s.whatsapp.net",
                "warmup_started_at": None,  # established numbers: no warm-up ramp
            },
        )
        created["phones"] += was_created

    templates = {}
    for spec in DEMO_TEMPLATES:
        template, was_created = Template.objects.get_or_create(
            tenant=tenant, name=spec["name"], defaults={"channel": spec["channel"]}
        )
        created["templates"] += was_created
        if was_created:
            TemplateVersion.objects.create(
                tenant=tenant,
                template=template,
                version=1,
                subject=spec.get("subject", ""),
                body=spec["body"],
            )
        templates[spec["name"]] = template

    sequences: dict[str, tuple[Sequence, bool]] = {}
    for plan in DEMO_SEQUENCES:
        sequence, was_created = Sequence.objects.get_or_create(
            tenant=tenant, name=plan["name"], defaults={"description": plan["description"]}
        )
        created["sequences"] += was_created
        sequences[plan["name"]] = (sequence, was_created)
        if not was_created:
            continue  # its steps are the operator's now
        for position, (channel, delay, unit, template_name) in enumerate(plan["steps"], 1):
            SequenceStep.objects.create(
                tenant=tenant,
                sequence=sequence,
                sequence_version=sequence.version,
                position=position,
                channel=channel,
                delay_value=delay,
                delay_unit=unit,
                template=templates[template_name],
            )

    whatsapp, whatsapp_created = sequences[DEMO_SEQUENCES[0]["name"]]
    if whatsapp_created:
        fallback, _created = sequences[DEMO_SEQUENCES[1]["name"]]
        Sequence.objects.filter(pk=whatsapp.pk).update(fallback_sequence=fallback)

    # Leads: only missing companies are created (a company that exists is not edited), and
    # only those are enrolled: the others are wherever operators and replies left them.
    # The import holds the tenant's lock, so the new leads are those above the last id.
    last = Lead.objects.filter(tenant=tenant).aggregate(last=Max("pk"))["last"] or 0
    rows = list(company_rows(companies))
    report = import_rows(tenant, rows, source="demo", create_only=True)
    # A few companies get a second contact (the import's rule: a new person of a known CUI).
    import_rows(tenant, list(colleague_rows(rows, COLLEAGUES)), source="demo", create_only=True)
    new_leads = Lead.objects.filter(tenant=tenant, pk__gt=last).order_by("pk")
    # Unless an operator switched the demo sequence off or emptied it (then none is).
    with suppress(EnrollmentError):
        if new_leads.exists():
            created["enrollments"] = enroll_many(new_leads, whatsapp).enrolled
    return SeedResult(tenant=tenant, created=created, leads=report, credentials=credentials)
