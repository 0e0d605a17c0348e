from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db.models import Count

from cerniq.models import Membership, Tenant
from outreach.models import (
    Company,
    Enrollment,
    Journey,
    Lead,
    Sequence,
    SequenceStep,
    Stage,
    Template,
)
from outreach.seeding import COLLEAGUES
from whatsapp.models import Phone


def seed(*args: str) -> str:
    # The test runner turns DEBUG off, so the demo is seeded the way production would be.
    out = StringIO()
    # The history is tests/test_demo_living.py's: here the workspace alone.
    call_command(
        "seed_demo",
        "--companies",
        "120",
        "--history-days",
        "0",
        *args,
        stdout=out,
        stderr=StringIO(),
    )
    return out.getvalue()


def counts() -> dict[str, int]:
    return {
        model.__name__: model.objects.count()
        for model in (
            Tenant,
            Membership,
            Phone,
            Template,
            Sequence,
            SequenceStep,
            Lead,
            Journey,
            Enrollment,
        )
    }


@pytest.mark.django_db
def test_seed_demo_builds_the_demo_workspace_and_prints_logins():
    output = seed("--allow-production")
    tenant = Tenant.objects.get(slug="demo")
    assert tenant.phones.filter(status=Phone.Status.ACTIVE, provider="sandbox").count() == 20
    # 120 companies, three of them with a second contact.
    assert Lead.objects.filter(tenant=tenant).count() == 120 + COLLEAGUES
    assert Company.objects.filter(tenant=tenant).count() == 120
    assert Journey.objects.filter(tenant=tenant, stage=Stage.COLD).count() == 120 + COLLEAGUES
    shared = Company.objects.filter(tenant=tenant, contacts__isnull=False).annotate(
        n=Count("contacts")
    )
    assert shared.filter(n=2).count() == COLLEAGUES
    assert Lead.objects.filter(tenant=tenant).values("county").distinct().count() >= 10
    wa = Sequence.objects.get(tenant=tenant, name="WhatsApp — două atingeri")
    assert list(wa.steps.values_list("channel", flat=True)) == ["WHATSAPP", "WHATSAPP"]
    assert Sequence.objects.filter(tenant=tenant, steps__channel="EMAIL_COLD").exists()
    assert "săptămâna" in Template.objects.get(name="WhatsApp — revenire").versions.get().body
    roles = dict(Membership.objects.filter(tenant=tenant).values_list("user__username", "role"))
    assert roles == {"operator": "OPERATOR", "admin": "ADMIN"}
    assert "admin" in output and "cerniq-admin" in output and "cerniq-operator" in output
    # Every company some channel can reach is in the WhatsApp sequence, which falls back to
    # cold email; the few with neither a WhatsApp number nor an email are refused.
    from outreach.readiness import contactable

    reachable = contactable(Lead.objects.filter(tenant=tenant)).count()
    assert 100 < reachable < 120 + COLLEAGUES
    assert Enrollment.objects.filter(lead__tenant=tenant, sequence=wa).count() == reachable
    assert wa.fallback_sequence.steps.get().channel == "EMAIL_COLD"
    assert Journey.objects.filter(tenant=tenant, next_action_at__isnull=False).count() == reachable


@pytest.mark.django_db
def test_seed_demo_is_idempotent():
    seed("--allow-production")
    before = counts()
    output = seed("--allow-production")
    assert counts() == before
    assert "created 0, updated 0, unchanged 120, rejected 0" in output


@pytest.mark.django_db
def test_seed_demo_refuses_production_without_flag(settings):
    settings.DEBUG = False
    with pytest.raises(CommandError, match="DEBUG is off"):
        seed()


def test_company_rows_end_for_any_count_with_distinct_companies():
    """Once the name patterns run out (about 680 companies used to hang) names are
    numbered, so `seed_demo --companies N` finishes for any N."""
    from outreach.demo import company_rows

    rows = list(company_rows(3000))
    assert len(rows) == 3000
    for key in ("company_name", "cui"):
        assert len({row[key] for row in rows}) == 3000, key
    emails = [row["email"] for row in rows if row["email"]]
    assert len(set(emails)) == len(emails)
    assert any(" 2 SRL" in row["company_name"] for row in rows)
