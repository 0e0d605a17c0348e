"""The hostile runs' own instrument: `run_case` must see a write however small, on
SQLite and on PostgreSQL alike (CI), or a refused request that still changed a row
would pass unnoticed."""

from __future__ import annotations

import pytest

from cerniq.models import Tenant
from tests.factories import make_lead
from tests.hostile import run_case, snapshot, writes


@pytest.mark.django_db
def test_a_case_that_writes_is_seen_and_its_table_named(tenant):
    lead = make_lead(tenant, name="Agro Vest SRL")
    before = snapshot()

    def rename():
        type(lead).objects.filter(pk=lead.pk).update(name="Agro Est SRL")
        return "renamed"

    response, outcome = run_case(before, rename)
    assert response == "renamed"
    assert outcome.written
    assert outcome.changed() == ["outreach.Lead"]
    assert outcome.stored("Agro Est") == ["outreach.Lead"]
    # Rolled back: the next case starts from the same rows.
    assert type(lead).objects.get(pk=lead.pk).name == "Agro Vest SRL"


@pytest.mark.django_db
def test_a_case_that_only_reads_takes_no_snapshot(tenant):
    before = snapshot()
    response, outcome = run_case(before, lambda: Tenant.objects.count())
    assert response == 1
    assert not outcome.written and outcome.after is None
    assert outcome.changed() == []


@pytest.mark.django_db
def test_the_count_of_writes_only_grows_and_counts_a_rolled_back_savepoint(tenant):
    from django.db import transaction

    start = writes()
    assert start is not None  # both databases the suite runs on can tell
    with transaction.atomic():
        make_lead(tenant)
        transaction.set_rollback(True)
    assert writes() > start
