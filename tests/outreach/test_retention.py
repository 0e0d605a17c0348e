"""Retention (outreach.retention): a workspace's old message texts are blanked, counts kept;
nothing of a workspace without a retention age, nothing still waiting to go, nothing twice."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage

from outreach import retention
from outreach.models import Message, MessageAttachment
from tests.factories import make_lead, make_message, make_tenant

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 12, 10, 3, 40, tzinfo=UTC)


def _aged(lead, days: int, **kw) -> Message:
    message = make_message(
        lead,
        status=kw.pop("status", Message.Status.DELIVERED),
        body="Bună ziua, vă sun mâine la 0722 111 222.",
        subject="Ofertă",
        raw_request={"body": "Bună ziua"},
        raw_response={"id": "x"},
        **kw,
    )
    Message.objects.filter(pk=message.pk).update(created_at=NOW - timedelta(days=days))
    return message


def test_texts_past_the_age_are_blanked_and_the_rest_kept(tenant):
    tenant.message_retention_days = 90
    tenant.save()
    lead = make_lead(tenant)
    old, recent = _aged(lead, 120), _aged(lead, 60)
    waiting = _aged(lead, 120, status=Message.Status.QUEUED)
    attachment = MessageAttachment(message=old, filename="oferta.pdf", size=4)
    attachment.file.save("oferta.pdf", ContentFile(b"%PDF"), save=True)
    stored = attachment.file.name
    other = make_tenant()  # no retention age: keeps everything
    theirs = _aged(make_lead(other), 400)

    done = retention.anonymise_old_messages(NOW)

    assert done.messages == {tenant.slug: 1} and done.attachments == 1
    old.refresh_from_db()
    assert (old.body, old.subject, old.raw_request, old.raw_response) == ("", "", None, None)
    assert old.anonymised_at == NOW
    # Who, when, how it went: kept for the figures.
    assert (old.status, old.counterpart, old.channel) == ("DELIVERED", lead.phone, "WHATSAPP")
    assert not MessageAttachment.objects.exists() and not default_storage.exists(stored)
    for kept in (recent, waiting, theirs):
        kept.refresh_from_db()
        assert kept.body.startswith("Bună ziua") and kept.anonymised_at is None
    assert retention.anonymise_old_messages(NOW).total == 0  # nothing twice


def test_the_job_works_in_batches(tenant):
    tenant.message_retention_days = 30
    tenant.save()
    lead = make_lead(tenant)
    for _ in range(5):
        _aged(lead, 31)
    assert retention.anonymise_tenant(tenant, NOW, batch=2) == (5, 0)
    assert not Message.objects.exclude(body="").exists()


def test_a_retention_under_30_days_is_refused(tenant):
    tenant.message_retention_days = 7
    with pytest.raises(ValidationError) as refused:
        tenant.full_clean()
    assert "message_retention_days" in refused.value.message_dict
