"""Build (or bring up to date) the demo workspace. Idempotent: keyed by names and numbers."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db import transaction

from cerniq import integrations
from cerniq.models import Membership, Tenant
from outreach.demo import DEMO_SEQUENCES, DEMO_TEMPLATES, company_rows
from outreach.importing import ImportReport, import_rows
from outreach.models import Lead, Sequence, SequenceStep, Template, TemplateVersion
from outreach.sequences import enroll_many
from whatsapp.models import Phone

DEMO_SLUG = "demo"
DEMO_PHONES = 20
DEMO_USERS = (
    # username, password, role, is_superuser
    ("operator", "cerniq-operator", Membership.Role.OPERATOR, False),
    ("admin", "cerniq-admin", Membership.Role.ADMIN, True),
)


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
    if created or not user.check_password(password):
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
        slug=DEMO_SLUG, defaults={"name": "Cerniq Demo Agro"}
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
        TemplateVersion.objects.get_or_create(
            template=template,
            version=1,
            defaults={"tenant": tenant, "subject": spec.get("subject", ""), "body": spec["body"]},
        )
        templates[spec["name"]] = template

    for spec in DEMO_SEQUENCES:
        sequence, was_created = Sequence.objects.get_or_create(
            tenant=tenant, name=spec["name"], defaults={"description": spec["description"]}
        )
        created["sequences"] += was_created
        for position, (channel, delay, unit, template_name) in enumerate(spec["steps"], 1):
            SequenceStep.objects.get_or_create(
                sequence=sequence,
                sequence_version=sequence.version,
                position=position,
                defaults={
                    "tenant": tenant,
                    "channel": channel,
                    "delay_value": delay,
                    "delay_unit": unit,
                    "template": templates[template_name],
                },
            )

    report = import_rows(tenant, company_rows(companies), source="demo")
    whatsapp = Sequence.objects.get(tenant=tenant, name=DEMO_SEQUENCES[0]["name"])
    fallback = Sequence.objects.get(tenant=tenant, name=DEMO_SEQUENCES[1]["name"])
    if whatsapp.fallback_sequence_id != fallback.pk:
        Sequence.objects.filter(pk=whatsapp.pk).update(fallback_sequence=fallback)
    created["enrollments"] = enroll_many(Lead.objects.filter(tenant=tenant), whatsapp).enrolled
    return SeedResult(tenant=tenant, created=created, leads=report, credentials=credentials)
