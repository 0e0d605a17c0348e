"""Stage moves made in bulk (a push of cold email moving its leads to Contacted by email)
reach the Mailchimp sync through its bulk hook: one call for the batch, three queries
however many leads, a sync queued for each lead that belongs in the audience."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from integrations.mailchimp import tasks
from integrations.mailchimp.models import MailchimpMember
from outreach import stages
from outreach.models import Journey, Stage
from tests.integrations.mailchimp.conftest import LIST_ID, warm_lead

pytestmark = pytest.mark.django_db


@pytest.fixture
def queued(monkeypatch):
    found: list[int] = []
    monkeypatch.setattr(tasks.sync_lead, "send", lambda lead_id: found.append(lead_id))
    return found


def members(tenant, n: int, start: int) -> list:
    """`n` cold leads already in the audience (their stage tag follows their stage)."""
    leads = [
        warm_lead(tenant, stage=Stage.COLD, email=f"ferma{i}@agro.ro", phone="")
        for i in range(start, start + n)
    ]
    MailchimpMember.objects.bulk_create(
        MailchimpMember(
            tenant=tenant, lead=lead, list_id=LIST_ID, state=MailchimpMember.State.SYNCED
        )
        for lead in leads
    )
    return leads


def hook_queries(leads, django_capture_on_commit_callbacks) -> int:
    journeys = list(Journey.objects.filter(lead__in=leads))
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        stages.transition_many(journeys, Stage.CONTACTED_EMAIL, reason="sent", by_system="send")
    with CaptureQueriesContext(connection) as captured:
        for callback in callbacks:
            callback()
    return len(captured.captured_queries)


def test_a_batch_of_moves_queues_each_member_with_the_queries_of_one(
    tenant, audience, queued, django_capture_on_commit_callbacks
):
    few, many = members(tenant, 3, 0), members(tenant, 30, 3)
    assert hook_queries(few, django_capture_on_commit_callbacks) == 3
    assert hook_queries(many, django_capture_on_commit_callbacks) == 3
    assert sorted(queued) == sorted(lead.pk for lead in few + many)
