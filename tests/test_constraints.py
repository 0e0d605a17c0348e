"""Every unique and check constraint of the data model rejects a violation in the database."""

from __future__ import annotations

from collections.abc import Callable
from datetime import time, timedelta

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from cerniq.models import Alert, Membership, Tenant, WebhookEvent
from email_channels.models import EmailCampaign
from hitl.models import ReviewItem
from outreach.company_models import Company
from outreach.models import (
    Channel,
    DailyStats,
    Enrollment,
    Journey,
    Lead,
    Message,
    OptOutRecord,
    Sequence,
    SequenceStep,
    StageTransition,
    Template,
    TemplateVersion,
)
from tests.factories import make_one_of_everything, make_tenant
from whatsapp.models import Phone, QuotaUsage

Violation = Callable[[dict], object]


def _update(model, pk, **fields):
    """Bypass model validation: write straight through an UPDATE."""
    return model.objects.filter(pk=pk).update(**fields)


VIOLATIONS: dict[str, Violation] = {
    # --- unique constraints the reliability contract needs ---
    "message idempotency key": lambda o: Message.objects.create(
        tenant=o["tenant"],
        lead=o["lead"],
        channel=Channel.WHATSAPP,
        direction="OUT",
        status="QUEUED",
        idempotency_key=o["message"].idempotency_key,
    ),
    "message provider id per channel": lambda o: (
        _update(Message, o["message"].pk, provider_message_id="uid-1"),
        _update(Message, o["inbound"].pk, provider_message_id="uid-1"),
    ),
    # A CUI is one company's; its contacts (leads) share it (outreach.companies).
    "company CUI per tenant": lambda o: (
        _update(Company, o["lead"].company_id, cui="18547290"),
        Company.objects.create(tenant=o["tenant"], name="Copy SRL", cui="18547290"),
    ),
    "a lead has a company": lambda o: Lead.objects.create(tenant=o["tenant"], name="Lone SRL"),
    "quota per phone and day": lambda o: QuotaUsage.objects.create(
        tenant=o["tenant"], phone=o["phone"], day=o["quota"].day
    ),
    "webhook provider event id": lambda o: WebhookEvent.objects.create(
        provider=o["webhook"].provider,
        provider_event_id=o["webhook"].provider_event_id,
        raw_body=b"{}",
    ),
    "one active enrollment per lead": lambda o: Enrollment.objects.create(
        tenant=o["tenant"], lead=o["lead"], sequence=o["sequence"]
    ),
    "one journey per lead": lambda o: Journey.objects.create(tenant=o["tenant"], lead=o["lead"]),
    "membership per user and tenant": lambda o: Membership.objects.create(
        tenant=o["tenant"], user=o["user"]
    ),
    "tenant slug": lambda o: Tenant.objects.create(name="Dup", slug=o["tenant"].slug),
    "phone number per tenant": lambda o: Phone.objects.create(
        tenant=o["tenant"], number=o["phone"].number
    ),
    "template version number": lambda o: TemplateVersion.objects.create(
        tenant=o["tenant"], template=o["template"], version=1, body="x"
    ),
    "template name per tenant": lambda o: Template.objects.create(
        tenant=o["tenant"], name=o["template"].name, channel=Channel.WHATSAPP
    ),
    "sequence name per tenant": lambda o: Sequence.objects.create(
        tenant=o["tenant"], name=o["sequence"].name
    ),
    "sequence step position": lambda o: SequenceStep.objects.create(
        tenant=o["tenant"],
        sequence=o["sequence"],
        position=1,
        channel=Channel.WHATSAPP,
        template=o["template"],
    ),
    "daily stats per channel": lambda o: DailyStats.objects.create(
        tenant=o["tenant"], day=o["stats"].day, channel=o["stats"].channel
    ),
    "daily stats per phone": lambda o: [
        DailyStats.objects.create(
            tenant=o["tenant"], day=o["stats"].day, channel=Channel.WHATSAPP, phone=o["phone"]
        )
        for _ in range(2)
    ],
    "one open alert per subject": lambda o: Alert.objects.create(
        tenant=o["tenant"], kind=o["alert"].kind, subject=o["alert"].subject, message="again"
    ),
    "one open review per message": lambda o: ReviewItem.objects.create(
        tenant=o["tenant"],
        lead=o["lead"],
        message=o["inbound"],
        reason="again",
        sla_due_at=timezone.now(),
    ),
    "campaign external id": lambda o: EmailCampaign.objects.create(
        tenant=o["tenant"], name="Dup", external_id=o["campaign"].external_id
    ),
    # --- check constraints on bounded values ---
    "quota used within limit": lambda o: _update(QuotaUsage, o["quota"].pk, used=201, limit=200),
    "quota used not negative": lambda o: _update(QuotaUsage, o["quota"].pk, used=-1),
    "phone daily limit bounded": lambda o: _update(Phone, o["phone"].pk, daily_limit=5000),
    "phone stored as E.164": lambda o: _update(Phone, o["phone"].pk, number="0712345678"),
    "lead phone stored as E.164": lambda o: _update(Lead, o["lead"].pk, phone="0712 345 678"),
    "lead CUI digits only": lambda o: _update(Lead, o["lead"].pk, cui="RO18547290"),
    "journey stage valid": lambda o: _update(Journey, o["journey"].pk, stage="LOST"),
    "journey reply count not negative": lambda o: _update(Journey, o["journey"].pk, reply_count=-1),
    "journey review needs priority": lambda o: _update(
        Journey, o["journey"].pk, requires_human_review=True, review_priority=""
    ),
    "message quota cost 0 or 1": lambda o: _update(Message, o["message"].pk, quota_cost=2),
    "message status matches direction": lambda o: _update(
        Message, o["inbound"].pk, status="QUEUED"
    ),
    "automated outbound message has a key": lambda o: _update(
        Message, o["message"].pk, idempotency_key=None
    ),
    "transition changes stage": lambda o: StageTransition.objects.create(
        tenant=o["tenant"], journey=o["journey"], from_stage="COLD", to_stage="COLD", reason="x"
    ),
    "template weight bounded": lambda o: _update(TemplateVersion, o["version"].pk, weight=5000),
    "template replies within sent": lambda o: _update(
        TemplateVersion, o["version"].pk, sent_count=1, reply_count=2
    ),
    "sequence step position from 1": lambda o: _update(SequenceStep, o["step"].pk, position=0),
    "enrollment stopped has reason": lambda o: _update(
        Enrollment, o["enrollment"].pk, status="STOPPED", stop_reason=""
    ),
    "review sentiment within -100..100": lambda o: _update(
        ReviewItem, o["review"].pk, sentiment_score=150
    ),
    "review closed has resolution time": lambda o: _update(
        ReviewItem, o["review"].pk, status="RESOLVED"
    ),
    "review assigned has assignee": lambda o: _update(
        ReviewItem, o["review"].pk, status="ASSIGNED"
    ),
    "daily stats positive within replies": lambda o: _update(
        DailyStats, o["stats"].pk, positive_replies=5, replies=1
    ),
    "daily stats not negative": lambda o: _update(DailyStats, o["stats"].pk, sent=-3),
    "campaign bounces within sent": lambda o: _update(
        EmailCampaign, o["campaign"].pk, sent=10, bounced=11
    ),
    "campaign bounce threshold percent": lambda o: _update(
        EmailCampaign, o["campaign"].pk, bounce_threshold_percent=120
    ),
    "tenant window start before end": lambda o: _update(
        Tenant, o["tenant"].pk, window_start=time(18), window_end=time(9)
    ),
    "tenant pacing bounded": lambda o: _update(Tenant, o["tenant"].pk, pacing_min_seconds=99999),
    "opt-out record has a reason": lambda o: _update(
        OptOutRecord, o["opt_out_record"].pk, reason=""
    ),
    "opt-out record asked on a known place": lambda o: _update(
        OptOutRecord, o["opt_out_record"].pk, asked_on="fax"
    ),
    "alert occurrences positive": lambda o: _update(Alert, o["alert"].pk, occurrences=0),
    "webhook processed only if verified": lambda o: _update(
        WebhookEvent, o["webhook"].pk, status="PROCESSED", verified=False
    ),
}


@pytest.fixture
def rows(tenant):
    return make_one_of_everything(tenant)


@pytest.mark.parametrize("violation", list(VIOLATIONS), ids=list(VIOLATIONS))
def test_database_rejects(violation, rows):
    with pytest.raises(IntegrityError), transaction.atomic():
        VIOLATIONS[violation](rows)


def test_the_same_values_are_fine_in_another_tenant(rows):
    """Uniqueness is per tenant where the spec says so: a second tenant may reuse them."""
    other = make_tenant()
    Company.objects.filter(pk=rows["lead"].company_id).update(cui="18547290")
    Company.objects.create(tenant=other, name="Same CUI SRL", cui="18547290")
    Phone.objects.create(tenant=other, number=rows["phone"].number)
    Template.objects.create(tenant=other, name=rows["template"].name, channel=Channel.WHATSAPP)


def test_closed_rows_free_their_unique_slot(rows):
    """Partial constraints: a finished enrollment, a resolved alert or review frees the slot."""
    now = timezone.now()
    Enrollment.objects.filter(pk=rows["enrollment"].pk).update(
        status="STOPPED", stop_reason="reply", stopped_at=now
    )
    Enrollment.objects.create(tenant=rows["tenant"], lead=rows["lead"], sequence=rows["sequence"])
    Alert.objects.filter(pk=rows["alert"].pk).update(resolved_at=now)
    Alert.objects.create(
        tenant=rows["tenant"], kind=rows["alert"].kind, subject=rows["alert"].subject, message="x"
    )
    ReviewItem.objects.filter(pk=rows["review"].pk).update(status="RESOLVED", resolved_at=now)
    ReviewItem.objects.create(
        tenant=rows["tenant"],
        lead=rows["lead"],
        message=rows["inbound"],
        reason="new",
        sla_due_at=now + timedelta(hours=1),
    )
    # Inbound messages have no idempotency key; many NULLs are allowed.
    for _ in range(2):
        Message.objects.create(
            tenant=rows["tenant"],
            lead=rows["lead"],
            channel=Channel.WHATSAPP,
            direction="IN",
            status="RECEIVED",
        )
