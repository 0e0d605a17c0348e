"""Builders for test data: plain functions with sensible defaults, overridable by keyword."""

from __future__ import annotations

import itertools
from datetime import timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractUser
from django.utils import timezone

from cerniq.models import (
    Alert,
    AlertChannel,
    Membership,
    Tenant,
    TenantAPIKey,
    WebhookDelivery,
    WebhookEndpoint,
    WebhookEvent,
)
from email_channels.models import (
    CampaignDailyStats,
    EmailCampaign,
    SenderAccount,
    SenderCheck,
    SenderDay,
    SenderPause,
)
from hitl.models import (
    ChatBackfill,
    ConversationState,
    Note,
    ReplyResponse,
    ReplyTriage,
    ReviewItem,
    ReviewSLA,
)
from outreach import companies
from outreach.company_models import Company
from outreach.models import (
    ABDecision,
    Brochure,
    Channel,
    ContactBasis,
    DailyStats,
    Enrollment,
    Erasure,
    ImportJob,
    Journey,
    Lead,
    LeadRule,
    MediaUpload,
    Message,
    MessageAttachment,
    OptOutLift,
    OptOutRecord,
    Propagation,
    QuickReply,
    RuleFiring,
    Sequence,
    SequenceEvent,
    SequenceStep,
    StageTransition,
    Suppression,
    SuppressionRemoval,
    Template,
    TemplateDailyStats,
    TemplateVersion,
)
from whatsapp.models import Phone, PhoneStatusChange, QuotaUsage, WarmupPlan

_seq = itertools.count(1)


def make_tenant(**kw: Any) -> Tenant:
    n = next(_seq)
    return Tenant.objects.create(**{"name": f"Tenant {n}", "slug": f"tenant-{n}", **kw})


def make_user(tenant: Tenant | None = None, *, role: str = "OPERATOR", **kw: Any) -> AbstractUser:
    n = next(_seq)
    user = get_user_model().objects.create_user(
        **{"username": f"user{n}", "password": "pw-for-tests-1", **kw}
    )
    if tenant is not None:
        Membership.objects.create(tenant=tenant, user=user, role=role)
    return user


def make_company(tenant: Tenant, **kw: Any) -> Company:
    """A company of `tenant`; with a CUI, the company that has it if there is one."""
    n = next(_seq)
    company, _ = companies.find_or_create(
        tenant, {"name": f"Agro Test {n} SRL", "county": "Iași", "locality": "Iași", **kw}
    )
    return company


def make_lead(
    tenant: Tenant, *, with_journey: bool = True, company: Company | None = None, **kw: Any
) -> Lead:
    """A contact of `company`, else of a company made from the firm's fields in `kw`
    (name, cui, county, locality: with a CUI already a company's, a contact of that one)."""
    n = next(_seq)
    if company is None:
        company = make_company(tenant, **companies.firm_values(kw))
    elif companies.firm_values(kw):
        raise ValueError("give the company, or its fields, not both")
    person = {"phone": f"+4072{n:07d}", "phone_reachable": True, **companies.person_values(kw)}
    lead = companies.contact(company, **person)
    lead.save()
    if with_journey:
        Journey.objects.create(tenant=tenant, lead=lead)
    return lead


def make_phone(tenant: Tenant, **kw: Any) -> Phone:
    """An established number (no warm-up ramp) unless `warmup_started_at` is given."""
    n = next(_seq)
    return Phone.objects.create(
        **{"tenant": tenant, "number": f"+4074{n:07d}", "warmup_started_at": None, **kw}
    )


def make_template(tenant: Tenant, **kw: Any) -> Template:
    n = next(_seq)
    template = Template.objects.create(
        **{"tenant": tenant, "name": f"Template {n}", "channel": Channel.WHATSAPP, **kw}
    )
    TemplateVersion.objects.create(
        tenant=tenant, template=template, version=1, body="{Bună ziua|Salut} {{company_name}}!"
    )
    return template


def make_sequence(tenant: Tenant, **kw: Any) -> Sequence:
    n = next(_seq)
    sequence = Sequence.objects.create(**{"tenant": tenant, "name": f"Sequence {n}", **kw})
    SequenceStep.objects.create(
        tenant=tenant,
        sequence=sequence,
        position=1,
        channel=Channel.WHATSAPP,
        template=make_template(tenant),
    )
    return sequence


def make_message(lead: Lead, **kw: Any) -> Message:
    n = next(_seq)
    return Message.objects.create(
        **{
            "tenant": lead.tenant,
            "lead": lead,
            "channel": Channel.WHATSAPP,
            "direction": Message.Direction.OUTBOUND,
            "status": Message.Status.QUEUED,
            "body": "Bună ziua!",
            "counterpart": lead.phone,
            "idempotency_key": f"test-{n}",
            **kw,
        }
    )


def make_one_of_everything(tenant: Tenant) -> dict[str, Any]:
    """One row of every model, for admin and isolation tests."""
    user = make_user(tenant)
    lead = make_lead(tenant)
    phone = make_phone(tenant)
    sequence = make_sequence(tenant)
    step = sequence.steps.get()
    template = step.template
    version = template.versions.get()
    message = make_message(
        lead, phone=phone, sequence=sequence, step=step, template_version=version
    )
    inbound = make_message(
        lead,
        direction=Message.Direction.INBOUND,
        status=Message.Status.RECEIVED,
        idempotency_key=None,
        body="Da, sunt interesat. <script>alert(1)</script>",
        raw_response={"text": "<script>alert(1)</script>"},
    )
    return {
        "tenant": tenant,
        "user": user,
        "company": lead.company,
        "lead": lead,
        "journey": lead.journey,
        "phone": phone,
        "sequence": sequence,
        "step": step,
        "template": template,
        "version": version,
        "message": message,
        "inbound": inbound,
        "transition": StageTransition.objects.create(
            tenant=tenant,
            journey=lead.journey,
            from_stage="COLD",
            to_stage="CONTACTED_WA",
            reason="test",
            by_system="tests",
        ),
        "enrollment": Enrollment.objects.create(tenant=tenant, lead=lead, sequence=sequence),
        "quota": QuotaUsage.objects.create(
            tenant=tenant, phone=phone, day=timezone.localdate(), used=3
        ),
        "stats": DailyStats.objects.create(
            tenant=tenant, day=timezone.localdate(), channel=Channel.WHATSAPP, sent=5, replies=1
        ),
        "review": ReviewItem.objects.create(
            tenant=tenant,
            lead=lead,
            message=inbound,
            reason="sentiment 30",
            sla_due_at=timezone.now() + timedelta(hours=24),
        ),
        "review_sla": ReviewSLA.objects.create(tenant=tenant, urgent_minutes=30),
        "reply_triage": ReplyTriage.objects.create(
            message=inbound, tenant=tenant, lead=lead, queued_at=timezone.now()
        ),
        "reply_response": ReplyResponse.objects.create(
            tenant=tenant,
            lead=lead,
            reply=inbound,
            channel=Channel.WHATSAPP,
            received_at=timezone.now(),
            local_day=timezone.localdate(),
        ),
        "note": Note.objects.create(
            tenant=tenant, lead=lead, author=user, body="Sună-l după 14:00 <b>urgent</b>"
        ),
        "conversation_state": ConversationState.objects.create(
            tenant=tenant, user=user, lead=lead, last_read_at=timezone.now()
        ),
        "chat_backfill": ChatBackfill.objects.create(
            tenant=tenant,
            lead=lead,
            phone=phone,
            provider="timelinesai",
            chat_id="27616435",
            trigger=ChatBackfill.Trigger.PERSON,
            requested_by=user,
            requested_at=timezone.now(),
            error="<b>Rate limited</b>",
        ),
        "quick_reply": QuickReply.objects.create(
            tenant=tenant, name="pret", body="Bună ziua, {{contact_name}}! <i>Lista de prețuri</i>"
        ),
        "lead_rule": (
            rule := LeadRule.objects.create(
                tenant=tenant, name="Formular <b>Iași</b>", county="Iași", sequence=sequence
            )
        ),
        "sequence_event": SequenceEvent.objects.create(
            tenant=tenant,
            lead=lead,
            kind=SequenceEvent.Kind.STEP_SKIPPED,
            reason='dispatch.step_skipped {"position":1,"condition":"replied"}',
            created_at=timezone.now(),
        ),
        "rule_firing": RuleFiring.objects.create(
            tenant=tenant, lead=lead, rule=rule, rule_name=rule.name, source="lead_ads"
        ),
        "suppression": Suppression.objects.create(
            tenant=tenant, phone=f"+4079{next(_seq):07d}", reason="stop from an unknown sender"
        ),
        "campaign": EmailCampaign.objects.create(
            tenant=tenant, name="Cold Q1", external_id=f"camp-{next(_seq)}"
        ),
        "webhook": WebhookEvent.objects.create(
            tenant=tenant,
            provider="timelinesai",
            event_type="message:received:new",
            provider_event_id=f"message:received:new:{next(_seq)}",
            raw_body=b'{"event_type": "message:received:new", "text": "<b>hi</b>"}',
            headers={"Content-Type": "application/json"},
            verified=True,
        ),
        "alert": Alert.objects.create(
            tenant=tenant,
            kind=Alert.Kind.PHONE_OFFLINE,
            subject=f"phone:{phone.pk}",
            message="Phone went offline",
        ),
        "alert_channel": AlertChannel.objects.create(
            tenant=tenant, name="Ops Slack", url="json://127.0.0.1:9/hooks/secret-path-token"
        ),
        "webhook_endpoint": (
            endpoint := WebhookEndpoint.objects.create(
                tenant=tenant,
                url="https://hooks.example.com/<b>cerniq</b>",
                events=["lead.replied"],
                secret="whsec_dGVzdC1zZWNyZXQtZm9yLWFkbWluLXRlc3Rz",
            )
        ),
        "webhook_delivery": WebhookDelivery.objects.create(
            tenant=tenant,
            endpoint=endpoint,
            event_id=f"msg_{next(_seq):032d}",
            event_type="lead.replied",
            payload={"data": {"text": "<script>alert(1)</script>"}},
            last_response_excerpt="<script>alert(2)</script>",
        ),
        "membership": Membership.objects.get(user=user),
        "template_stats": TemplateDailyStats.objects.create(
            tenant=tenant,
            day=timezone.localdate(),
            template_version=version,
            channel=Channel.WHATSAPP,
            sent=4,
            replies=1,
        ),
        "import_job": ImportJob.objects.create(
            tenant=tenant, created_by=user, file_name="leads.csv", content=b"name\nAgro SRL\n"
        ),
        "ab_decision": ABDecision.objects.create(
            tenant=tenant,
            template=template,
            winner=version,
            status=ABDecision.Status.DISMISSED,
            rule={
                "test": "two_proportion_z_one_sided",
                "alpha": 0.01,
                "comparisons": 1,
                "level": 0.01,
                "min_sends": 200,
                "min_positive": 10,
                "maturity_hours": 72,
            },
            decided_by=user,
            decided_at=timezone.now(),
            created_at=timezone.now(),
            updated_at=timezone.now(),
        ),
        "brochure": Brochure.objects.create(
            tenant=tenant,
            created_by=user,
            file=f"brochures/{tenant.pk}/test/oferta <b>2026</b>.pdf",
            file_name="oferta <b>2026</b>.pdf",
            size=1024,
            status=Brochure.Status.DONE,
            backend="offline",
        ),
        "sender_account": SenderAccount.objects.create(
            tenant=tenant, provider="instantly", address="vanzari@cerniq-mail.ro", sent=3
        ),
        "campaign_day": CampaignDailyStats.objects.create(
            tenant=tenant,
            campaign=EmailCampaign.objects.create(
                tenant=tenant, name="Cold Q2", external_id=f"camp-{next(_seq)}"
            ),
            day=timezone.localdate(),
            sent=4,
        ),
        "attachment": _attachment(message),
        **_media(tenant),
        "opt_out_lift": OptOutLift.objects.create(
            tenant=tenant, lead=lead, by_user=user, reason="Called and asked for the offer"
        ),
        "suppression_removal": SuppressionRemoval.objects.create(
            tenant=tenant,
            kind="domain",
            value="fost-client.ro",
            entry_reason="a competitor",
            entry_source="manual",
            entry_created_at=timezone.now(),
            reason="They became a customer; the list entry is no longer wanted.",
            by_user=user,
        ),
        "erasure": (
            erasure := Erasure.objects.create(
                tenant=tenant,
                lead=lead,
                lead_ref=lead.pk,
                requested_by=user,
                via=Erasure.Via.PAGE,
                reason="<script>alert(3)</script> asked by email",
            )
        ),
        "propagation": Propagation.objects.create(
            tenant=tenant,
            lead=lead,
            erasure=erasure,
            cause=Propagation.Cause.ERASURE,
            provider="instantly",
            action="delete_lead",
            requested_at=timezone.now(),
            next_attempt_at=timezone.now(),
        ),
        "sender_day": SenderDay.objects.create(
            tenant=tenant,
            provider="resend",
            address="oferte@agrofirma.ro",
            domain="agrofirma.ro",
            day=timezone.localdate(),
            sent=12,
        ),
        "sender_check": SenderCheck.objects.create(
            provider="instantly",
            sender=f"vanzari{next(_seq)}@agrofirma-mail.ro",  # one per provider and sender
            ready=False,
            reason="<script>alert(6)</script>",
            checked_at=timezone.now(),
            changed_at=timezone.now(),
        ),
        "sender_pause": SenderPause.objects.create(
            tenant=tenant,
            provider="resend",
            scope="domain",
            value="agrofirma.ro",
            reason="<script>alert(5)</script>",
        ),
        "contact_basis": ContactBasis.objects.create(
            tenant=tenant,
            lead=lead,
            channel="email",
            basis="consent",
            source="page",
            evidence="<script>alert(4)</script> ticked the box on the fair's form",
            recorded_by=user,
        ),
        "opt_out_record": OptOutRecord.objects.create(
            tenant=tenant,
            lead=lead,
            by_user=user,
            asked_on=OptOutRecord.AskedOn.ALL,
            reason="Called and asked not to be contacted",
        ),
        "phone_status_change": PhoneStatusChange.objects.create(
            tenant=tenant, phone=phone, status=Phone.Status.OFFLINE, reason="disconnected"
        ),
        "warmup_plan": WarmupPlan.objects.create(tenant=tenant, steps=[[1, 50], [7, 200]]),
        "api_key": TenantAPIKey.objects.create_key(tenant=tenant, name="crm", created_by=user)[0],
    }


def _media(tenant: Tenant) -> dict[str, Any]:
    """A WhatsApp image of the tenant and its id at a provider (outreach.media)."""
    from django.core.files.base import ContentFile

    from outreach import media

    png = b"\x89PNG\r\n\x1a\n<script>alert(7)</script>"
    stored = media.store(tenant.pk, ContentFile(png, name="harta <b>.png"))
    upload, _ = MediaUpload.objects.get_or_create(
        media=stored, provider="meta", account="106540352242922", defaults={"remote_id": "1479"}
    )
    return {"media_file": stored, "media_upload": upload}


def _attachment(message: Message) -> MessageAttachment:
    from django.core.files.base import ContentFile

    row = MessageAttachment(
        message=message, filename="proforma.pdf", content_type="application/pdf", size=4
    )
    row.file.save("proforma.pdf", ContentFile(b"%PDF"), save=True)
    return row


def make_outreach_world(
    tenant: Tenant,
    *,
    phones: int = 3,
    leads: int = 20,
    steps: int = 3,
    enroll: bool = True,
    channel: str = Channel.WHATSAPP,
) -> dict[str, Any]:
    """Phones, a sequence of `steps` steps on `channel` (1 working day apart) and enrolled
    leads (reachable on both channels)."""
    from outreach.sequences import enroll_many

    Tenant.objects.filter(pk=tenant.pk).update(pacing_min_seconds=0, pacing_jitter_seconds=0)
    tenant.refresh_from_db()
    phone_rows = [make_phone(tenant, label=f"Telefon {i + 1:02d}") for i in range(phones)]
    sequence = Sequence.objects.create(tenant=tenant, name=f"WA {next(_seq)}")
    for position in range(1, steps + 1):
        template = Template.objects.create(
            tenant=tenant, name=f"Pas {position} {next(_seq)}", channel=channel
        )
        TemplateVersion.objects.create(
            tenant=tenant,
            template=template,
            version=1,
            subject=""
            if channel == Channel.WHATSAPP
            else f"Pasul {position}: {{{{company_name}}}}",
            body=f"{{Bună ziua|Salut}}, {{{{contact_name|stimate client}}}}! Pasul {position} "
            "pentru {{company_name}} din {{county}}.",
        )
        SequenceStep.objects.create(
            tenant=tenant,
            sequence=sequence,
            position=position,
            channel=channel,
            delay_value=0 if position == 1 else 1,
            delay_unit=SequenceStep.DelayUnit.WORKING_DAYS,
            template=template,
        )
    lead_rows = [
        make_lead(tenant, contact_name=f"Ion {i}", email=f"office{i}@ferma{i}.ro")
        for i in range(leads)
    ]
    if enroll:
        enroll_many(lead_rows, sequence)
    return {"phones": phone_rows, "sequence": sequence, "leads": lead_rows}


def make_webhook_endpoint(
    tenant: Tenant, url: str = "https://hooks.example.com/in", **kw: Any
) -> WebhookEndpoint:
    """An outgoing webhook endpoint with a fresh secret (taking lead.replied unless told)."""
    from cerniq.outbound.endpoints import new_secret

    return WebhookEndpoint.objects.create(
        tenant=tenant,
        url=url,
        events=list(kw.pop("events", ["lead.replied"])),
        secret=new_secret(),
        **kw,
    )
