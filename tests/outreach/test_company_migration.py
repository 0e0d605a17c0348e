"""Migrations 0037 and 0038 (outreach.companies): every lead gets a company, nothing else
moves. A realistic set (two workspaces, leads with and without a CUI, demo companies from
the import, messages, journeys, enrollments, suppressions, stats) is taken back to 0036 as
a database of before the companies, then migrated forward again."""

from __future__ import annotations

import importlib
from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test.utils import CaptureQueriesContext

from outreach.demo import company_rows
from outreach.importing import import_rows
from outreach.suppression import suppress
from tests.factories import make_lead, make_message, make_one_of_everything, make_tenant

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("outreach", "0036_companies_events_media")]
AFTER = [("outreach", "0038_lead_company_required")]
FIRM = ("name", "cui", "county", "locality")
data_migration = importlib.import_module("outreach.migrations.0037_every_lead_has_a_company")


def migrate(targets: list[tuple[str, str]]) -> Any:
    """The database migrated to `targets`; the models as they were there."""
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return MigrationExecutor(connection).loader.project_state(targets).apps


@pytest.fixture
def back_to_the_latest():
    """Whatever the test leaves, the next one finds the schema of today."""
    yield
    executor = MigrationExecutor(connection)
    migrate(executor.loader.graph.leaf_nodes())


def world() -> None:
    """Two workspaces' leads as a database before the companies would hold them."""
    for tenant in (make_tenant(), make_tenant()):
        everything = make_one_of_everything(tenant)
        make_message(everything["lead"], body="Revin mâine")
        make_lead(tenant, cui="18547290", contact_name="Ana Pop", email="ana@agro.ro")
        make_lead(tenant, name="Fără CUI SRL", county="Vaslui", locality="Bârlad")
        make_lead(tenant, name="Fără CUI SRL", county="Vaslui", locality="Bârlad")  # another
        make_lead(tenant, name="Alta SRL", cui="", phone="+40733000111", email="")
        suppress(tenant, phone="+40799000111", reason="stop")
        import_rows(tenant, list(company_rows(12, seed=7)), source="demo")


def snapshot(apps: Any) -> dict[str, list[Any]]:
    """Everything the migration must leave as it was, read through the models of `apps`."""

    def rows(model: str, *exclude: str) -> list[dict[str, Any]]:
        found = apps.get_model("outreach", model).objects.order_by("pk").values()
        return [{k: v for k, v in row.items() if k not in exclude} for row in found]

    return {
        "leads": rows("Lead", "company_id"),
        "journeys": rows("Journey"),
        "messages": rows("Message"),
        "enrollments": rows("Enrollment"),
        "suppressions": rows("Suppression"),
        "stats": rows("DailyStats"),
        "transitions": rows("StageTransition"),
    }


def as_before_companies(apps: Any) -> None:
    """At 0036 no company existed: drop those the factories made (0037's reverse left the
    leads without one)."""
    assert not apps.get_model("outreach", "Lead").objects.filter(company__isnull=False).exists()
    apps.get_model("outreach", "Company").objects.all().delete()


def test_every_lead_gets_its_company_and_nothing_else_moves(back_to_the_latest):
    world()
    old = migrate(BEFORE)
    as_before_companies(old)
    before = snapshot(old)

    new = migrate(AFTER)

    assert snapshot(new) == before
    Lead, Company = new.get_model("outreach", "Lead"), new.get_model("outreach", "Company")
    firm_of = {c["pk"]: c for c in Company.objects.values("pk", "tenant_id", *FIRM)}
    for lead in Lead.objects.values("pk", "tenant_id", "company_id", *FIRM):
        company = firm_of[lead["company_id"]]
        assert {k: company[k] for k in ("tenant_id", *FIRM)} == {
            k: lead[k] for k in ("tenant_id", *FIRM)
        }
    # One company per lead here (a CUI was one lead's until now; the two "Fără CUI SRL"
    # are two firms); the same CUI in two workspaces is two companies.
    assert Company.objects.count() == Lead.objects.count() == len(before["leads"])
    assert Company.objects.filter(cui="18547290").count() == 2
    assert Company.objects.filter(name="Fără CUI SRL").count() == 4
    assert not Lead.objects.filter(company__isnull=True).exists()


def test_leads_of_one_cui_share_its_company(back_to_the_latest):
    """Until 0038 a CUI was one lead's; were it two leads' (the rule, not the data so far),
    they are two contacts of one company."""
    tenant = make_tenant()
    make_lead(tenant, cui="18547290")
    old = migrate(BEFORE)
    as_before_companies(old)
    Lead = old.get_model("outreach", "Lead")
    unique = next(c for c in Lead._meta.constraints if c.name == "lead_unique_cui_per_tenant")
    with connection.schema_editor() as editor:
        editor.remove_constraint(Lead, unique)
    twin = Lead.objects.create(tenant_id=tenant.pk, name="Geamăn SRL", cui="18547290")

    with connection.schema_editor() as editor:
        data_migration.companies_for_leads(old, editor)

    assert len({company for (company,) in Lead.objects.values_list("company_id")}) == 1
    Lead.objects.filter(pk=twin.pk).delete()
    with connection.schema_editor() as editor:
        editor.add_constraint(Lead, unique)


def test_a_rerun_after_the_reverse_finds_the_companies_by_cui(back_to_the_latest):
    tenant = make_tenant()
    with_cui = [make_lead(tenant, cui=cui) for cui in ("18547290", "22732040")]
    make_lead(tenant, cui="")
    old = migrate(BEFORE)  # the reverse clears `company`; the companies stay

    new = migrate(AFTER)

    Lead, Company = new.get_model("outreach", "Lead"), new.get_model("outreach", "Company")
    assert [Lead.objects.get(pk=lead.pk).company_id for lead in with_cui] == [
        lead.company_id for lead in with_cui
    ]
    assert Company.objects.count() == 4  # the lead without a CUI got a company of its own
    assert old is not None


def leads_without_companies(count: int) -> Any:
    tenant = make_tenant()
    for n in range(count):
        make_lead(tenant, cui=f"{18547290 + n}" if n % 2 else "")
    old = migrate(BEFORE)
    as_before_companies(old)
    return old


@pytest.mark.parametrize("count", [6, 14])
def test_the_data_migration_runs_in_batches_not_per_lead(back_to_the_latest, count):
    """The same queries for 6 leads as for 14: no query per lead (one batch each)."""
    old = leads_without_companies(count)

    with connection.schema_editor() as editor, CaptureQueriesContext(connection) as queries:
        data_migration.companies_for_leads(old, editor)

    assert not old.get_model("outreach", "Lead").objects.filter(company__isnull=True).exists()
    assert old.get_model("outreach", "Company").objects.count() == count
    writes = [q["sql"].split()[0].upper() for q in queries]
    assert writes.count("INSERT") == 1 and writes.count("UPDATE") == 1
    assert len(queries) <= 8
