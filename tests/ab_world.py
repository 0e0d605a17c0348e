"""Templates whose versions have known A/B figures, for the A/B winner tests
(tests/outreach/test_ab_*.py, tests/api/test_template_ab.py).

`sends(version, n, positive)` makes n leads, each sent one message of the version (SENT at
SENT_AT, ten days before MOMENT, so old enough to count), the first `positive` of them
answering with a reply the triage read as interested an hour later. Rows are bulk-created:
a version needs 200 sends before the rule compares it.
"""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

from cerniq.models import Tenant
from outreach import companies
from outreach.models import Channel, Lead, Message, Template, TemplateVersion
from tests.factories import make_template

MOMENT = datetime(2026, 11, 24, 10, 0, tzinfo=UTC)  # a Tuesday, noon in Bucharest
SENT_AT = MOMENT - timedelta(days=10)
POSITIVE = {"triage": {"sentiment": 80, "intent": "interested"}, "decision": "review"}
NEGATIVE = {"triage": {"sentiment": -40, "intent": "not_interested"}, "decision": "review"}

_keys = itertools.count(1)


def ab_template(tenant: Tenant, count: int = 2, **kw: object) -> list[TemplateVersion]:
    """A WhatsApp template with `count` active versions of weight 100, oldest first."""
    template = make_template(tenant, **kw)
    versions = [template.versions.get()]
    for number in range(2, count + 1):
        versions.append(
            TemplateVersion.objects.create(
                tenant=tenant, template=template, version=number, body=f"Varianta {number}"
            )
        )
    return versions


def sends(
    version: TemplateVersion,
    n: int,
    positive: int,
    *,
    negative: int = 0,
    at: datetime = SENT_AT,
    twice: bool = False,
) -> list[Lead]:
    """n sends of the version; `positive` of them drew an interested reply, the next
    `negative` a refusal; `twice`: each positive lead answered positively twice."""
    tenant_id = version.tenant_id
    firms = companies.new_companies(
        version.tenant, [{"name": f"Ferma {next(_keys)} SRL"} for _ in range(n)]
    )
    leads = Lead.objects.bulk_create(companies.contact(firm) for firm in firms)
    Message.objects.bulk_create(
        Message(
            tenant_id=tenant_id,
            lead=lead,
            channel=Channel.WHATSAPP,
            direction=Message.Direction.OUTBOUND,
            status=Message.Status.DELIVERED,
            template_version=version,
            body="Bună ziua",
            idempotency_key=f"ab-{next(_keys)}",
            sent_at=at,
        )
        for lead in leads
    )
    answers = [(lead, POSITIVE) for lead in leads[:positive]]
    answers += [(lead, NEGATIVE) for lead in leads[positive : positive + negative]]
    if twice:
        answers += [(lead, POSITIVE) for lead in leads[:positive]]
    replies = Message.objects.bulk_create(
        Message(
            tenant_id=tenant_id,
            lead=lead,
            channel=Channel.WHATSAPP,
            direction=Message.Direction.INBOUND,
            status=Message.Status.RECEIVED,
            body="Da, trimiteți oferta",
            analysis=analysis,
        )
        for lead, analysis in answers
    )
    Message.objects.filter(pk__in=[m.pk for m in replies]).update(
        created_at=at + timedelta(hours=1)
    )
    return leads


def clear_winner(tenant: Tenant, **kw: object) -> tuple[Template, TemplateVersion, TemplateVersion]:
    """Two versions, 300 sends each: v1 drew 45 positive replies (15%), v2 6 (2%)."""
    v1, v2 = ab_template(tenant, **kw)
    sends(v1, 300, 45)
    sends(v2, 300, 6)
    return v1.template, v1, v2
