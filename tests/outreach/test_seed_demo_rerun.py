"""A second `seed_demo` (every `make run`) after operators worked in the demo (issue 19 §5):
it creates only missing demo objects and never enrolls, messages, restages or edits
anything that exists."""

from __future__ import annotations

from io import StringIO

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.core.management import call_command

from cerniq.models import Membership, Tenant
from outreach import optout_manual, sequences, stages
from outreach.dispatch import dispatch_due
from outreach.lead_entry import update_lead
from outreach.manual import send_manual
from outreach.models import (
    Enrollment,
    Journey,
    Lead,
    Message,
    OptOutRecord,
    Sequence,
    SequenceStep,
    Stage,
    StageTransition,
    Suppression,
    Template,
    TemplateVersion,
)
from outreach.seeding import COLLEAGUES
from tests.whatsapp.conftest import MONDAY_10
from whatsapp.models import Phone

pytestmark = pytest.mark.django_db

# Everything a rerun must leave exactly as it is, row by row.
WATCHED = (
    Enrollment,
    Message,
    Lead,
    Journey,
    StageTransition,
    Suppression,
    OptOutRecord,
    Tenant,
    Membership,
    Phone,
    Template,
    TemplateVersion,
    Sequence,
    SequenceStep,
)


def seed(companies: int = 60) -> str:
    out = StringIO()
    call_command(
        "seed_demo",
        "--companies",
        str(companies),
        "--history-days",  # the history's rerun: tests/test_demo_living.py
        "0",
        "--allow-production",
        stdout=out,
        stderr=StringIO(),
    )
    return out.getvalue()


def snapshot() -> dict[str, list[dict]]:
    rows = {model.__name__: list(model.objects.order_by("pk").values()) for model in WATCHED}
    rows["users"] = list(get_user_model().objects.order_by("pk").values())
    return rows


@pytest.fixture
def sandbox_email(settings):
    """The demo's cold email goes to the sandbox, as `make run` sets INSTANTLY_BACKEND."""
    settings.PROVIDERS = {
        **settings.PROVIDERS,
        "email.instantly": {"BACKEND": "integrations.sandbox.email.SandboxEmail"},
    }


def _operators_work_in_the_demo(tenant: Tenant) -> Lead:
    """What people do between two `make run`s; returns the lead that opted out."""
    operator = get_user_model().objects.get(username="operator")
    assert dispatch_due(tenant).dispatched  # the first messages are queued
    leads = list(Lead.objects.filter(tenant=tenant).order_by("pk").select_related("journey"))
    opted_out, paused, dead, renamed, written, completed, stopped = leads[:7]
    optout_manual.record_opt_out(
        opted_out, user=operator, channel="all", reason="Called and asked us to stop, 23.11"
    )
    stages.pause(paused.journey, reason="paused by an operator", by_user=operator)
    stages.transition(dead.journey, Stage.DEAD, reason="not a farm", by_user=operator)
    update_lead(renamed, {"name": "Ferma Redenumită SRL"})
    sequences.stop(written.pk, "taken over")
    send_manual(written, "Bună ziua, vă sun mâine.", user=operator, channel="WHATSAPP")
    # Two finished enrollments: a first run's sequence that ran to its end, one stopped.
    Enrollment.objects.filter(lead=completed).update(
        status=Enrollment.Status.COMPLETED, next_run_at=None
    )
    sequences.stop(stopped.pk, "operator")
    Message.objects.filter(tenant=tenant, status=Message.Status.QUEUED).exclude(
        is_manual=True
    ).update(status=Message.Status.SENT)
    # The demo's templates and sequences are theirs to change too.
    version = TemplateVersion.objects.filter(template__tenant=tenant).first()
    TemplateVersion.objects.filter(pk=version.pk).update(body="Bună ziua, {{company_name}}!")
    whatsapp = Sequence.objects.get(tenant=tenant, name="WhatsApp — două atingeri")
    Sequence.objects.filter(pk=whatsapp.pk).update(fallback_sequence=None)
    first = whatsapp.steps.order_by("position").first()
    sequences.save_steps(
        whatsapp, [sequences.StepSpec(first.channel, first.template_id)]
    )  # one step only: a new version, as leads run on the old one
    operator.set_password("a-new-password-1")
    operator.save()
    return opted_out


def test_a_rerun_after_operators_worked_changes_nothing(sandbox_email):
    with time_machine.travel(MONDAY_10, tick=False):
        seed()
        tenant = Tenant.objects.get(slug="demo")
        opted_out = _operators_work_in_the_demo(tenant)
        before = snapshot()
        output = seed()
        after = snapshot()
    for name in before:
        assert after[name] == before[name], name
    assert "created tenant 0, users 0, phones 0, templates 0, sequences 0, enrollments 0" in output
    assert "created 0, updated 0, unchanged 60" in output
    journey = Journey.objects.get(lead=opted_out)
    assert journey.whatsapp_opted_out and journey.email_opted_out
    assert get_user_model().objects.get(username="operator").check_password("a-new-password-1")


def test_more_companies_are_added_and_only_they_are_enrolled(sandbox_email):
    with time_machine.travel(MONDAY_10, tick=False):
        seed(companies=30)
        tenant = Tenant.objects.get(slug="demo")
        _operators_work_in_the_demo(tenant)
        before = snapshot()
        output = seed(companies=40)
    first = {row["id"] for row in before["Lead"]}
    new = set(Lead.objects.filter(tenant=tenant).values_list("pk", flat=True)) - first
    assert len(new) == 10
    assert "created 10, updated 0, unchanged 30" in output
    # The ten new companies start the demo sequence; nothing of the thirty moved.
    fresh = Enrollment.objects.exclude(pk__in=[row["id"] for row in before["Enrollment"]])
    assert set(fresh.values_list("lead_id", flat=True)) == new
    assert list(Lead.objects.filter(pk__in=first).order_by("pk").values()) == before["Lead"]
    kept = Journey.objects.filter(lead_id__in=first).order_by("pk").values()
    assert list(kept) == before["Journey"]
    assert Message.objects.count() == len(before["Message"])


def test_a_switched_off_demo_sequence_is_left_off(sandbox_email):
    with time_machine.travel(MONDAY_10, tick=False):
        seed(companies=10)
        Sequence.objects.filter(name="WhatsApp — două atingeri").update(is_active=False)
        output = seed(companies=12)
    assert "enrollments 0" in output
    # Three companies have a second contact (outreach.seeding.COLLEAGUES).
    assert Lead.objects.count() == 12 + COLLEAGUES
    assert Enrollment.objects.count() == 10 + COLLEAGUES
    assert not Sequence.objects.get(name="WhatsApp — două atingeri").is_active
