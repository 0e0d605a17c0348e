"""A sequence of 3 steps x 2 template versions with known messages, for the sequence
results tests (tests/outreach/test_sequence_stats.py, tests/api/test_sequence_stats.py,
the page tests). Each step goes out on its own day; the expected figures are spelled out
below and in the tests.

Step 1, WhatsApp, DAY (receipts known):
  v1: L1 delivered+read, positive reply; L2 delivered; L5 -> sent 3, delivered 2, read 1,
      replied 1, positive 1
  v2: L3 read only (counts delivered), a person's message, then an opt-out reply
      (attributed to step 1: a person's message is not automated); L4; L6
      -> sent 3, delivered 1, read 1, replied 1, opt-outs 1
  not counted: L7's failed message, L8's queued one.
Step 2, cold email, DAY+2 (one email reported delivered, none opened: read unknown):
  v1: L2; L5 bounced -> sent 2, delivered 0, bounces 1
  v2: L4, a negative then a positive reply (one replied message, positive); L6 delivered,
      then another sequence's message, then a reply (that sequence's) -> sent 2,
      delivered 1, replied 1, positive 1
Step 3, WhatsApp, DAY+4:
  v1: L5 delivered, negative reply -> sent 1, delivered 1, replied 1
  v2: L2, a question, an AI answer, then a positive reply (the AI answer's) -> sent 1,
      replied 1, positive 0
Totals: sent 12, delivered 5 of 12, read 2 of 8, replied 5, positive 2, opt-outs 1,
bounces 1.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from cerniq.models import Tenant
from outreach.models import Channel, Lead, Message, Sequence, SequenceStep, TemplateVersion
from tests.factories import make_lead, make_message, make_template

DAY = date(2026, 11, 18)  # a Wednesday; Bucharest is UTC+2 then


def at(day: int, hour: int, minute: int = 0) -> datetime:
    """`day` days after DAY, at hour:minute UTC."""
    moment = DAY + timedelta(days=day)
    return datetime(moment.year, moment.month, moment.day, hour, minute, tzinfo=UTC)


def positive() -> dict:
    return {"triage": {"sentiment": 80, "intent": "interested"}, "decision": "review"}


def negative() -> dict:
    return {"triage": {"sentiment": -20, "intent": "not_interested"}, "decision": "review"}


def question() -> dict:
    return {"triage": {"sentiment": 10, "intent": "question"}, "decision": "ai-answer"}


def opt_out() -> dict:
    return {"decision": "opt-out (confirmation queued)"}


def step_message(
    lead: Lead, step: SequenceStep, version: TemplateVersion, when: datetime | None, **kw
) -> Message:
    return make_message(
        lead,
        sequence_id=step.sequence_id,
        step=step,
        template_version=version,
        channel=step.channel,
        status=kw.pop("status", Message.Status.SENT),
        sent_at=when,
        **kw,
    )


def reply(lead: Lead, when: datetime, analysis: dict | None, **kw) -> Message:
    message = make_message(
        lead,
        direction=Message.Direction.INBOUND,
        status=Message.Status.RECEIVED,
        idempotency_key=None,
        analysis=analysis,
        **kw,
    )
    Message.objects.filter(pk=message.pk).update(created_at=when)
    return message


def versioned_template(tenant: Tenant, name: str, channel: str, count: int = 2) -> list:
    template = make_template(tenant, name=name, channel=channel)
    versions = [template.versions.get()]
    for number in range(2, count + 1):
        versions.append(
            TemplateVersion.objects.create(
                tenant=tenant, template=template, version=number, body=f"Varianta {number}"
            )
        )
    return versions


@dataclass
class World:
    sequence: Sequence
    steps: list[SequenceStep]
    versions: list[list[TemplateVersion]]  # per step: [v1, v2]
    leads: list[Lead]  # L1..L8 at 0..7


def build(tenant: Tenant, name: str = "Fermieri Iași") -> World:
    sequence = Sequence.objects.create(tenant=tenant, name=name)
    channels = (Channel.WHATSAPP, Channel.EMAIL_COLD, Channel.WHATSAPP)
    versions, steps = [], []
    for position, channel in enumerate(channels, 1):
        found = versioned_template(tenant, f"{name} pasul {position}", channel)
        versions.append(found)
        steps.append(
            SequenceStep.objects.create(
                tenant=tenant,
                sequence=sequence,
                position=position,
                channel=channel,
                template=found[0].template,
            )
        )
    leads = [make_lead(tenant, email=f"l{n}@ferma.ro") for n in range(1, 9)]
    l1, l2, l3, l4, l5, l6, l7, l8 = leads
    (s1v1, s1v2), (s2v1, s2v2), (s3v1, s3v2) = versions
    s1, s2, s3 = steps

    # Step 1, WhatsApp, DAY.
    step_message(l1, s1, s1v1, at(0, 8), delivered_at=at(0, 8, 1), read_at=at(0, 8, 5))
    reply(l1, at(0, 9), positive())
    step_message(l2, s1, s1v1, at(0, 8), delivered_at=at(0, 8, 1))
    step_message(l5, s1, s1v1, at(0, 8))
    step_message(l3, s1, s1v2, at(0, 8), read_at=at(0, 9))
    make_message(l3, status=Message.Status.SENT, sent_at=at(0, 10), is_manual=True)
    reply(l3, at(0, 11), opt_out())
    step_message(l4, s1, s1v2, at(0, 8))
    step_message(l6, s1, s1v2, at(0, 8))
    step_message(l7, s1, s1v1, None, status=Message.Status.FAILED, failed_at=at(0, 8))
    step_message(l8, s1, s1v2, None, status=Message.Status.QUEUED)

    # Step 2, cold email, DAY+2.
    email = {"counterpart": "x@ferma.ro"}
    step_message(l2, s2, s2v1, at(2, 8), **email)
    step_message(l5, s2, s2v1, at(2, 8), status=Message.Status.BOUNCED, **email)
    step_message(l4, s2, s2v2, at(2, 8), **email)
    reply(l4, at(2, 9), negative(), channel=Channel.EMAIL_COLD)
    reply(l4, at(2, 10), positive(), channel=Channel.EMAIL_COLD)
    step_message(l6, s2, s2v2, at(2, 8), delivered_at=at(2, 8, 2), **email)
    other = Sequence.objects.create(tenant=tenant, name=f"{name} (alta)")
    other_template = make_template(tenant, name=f"{name} alt mesaj")
    other_step = SequenceStep.objects.create(
        tenant=tenant, sequence=other, position=1, channel=Channel.WHATSAPP, template=other_template
    )
    step_message(l6, other_step, other_template.versions.get(), at(2, 12))
    reply(l6, at(2, 13), positive())

    # Step 3, WhatsApp, DAY+4.
    step_message(l5, s3, s3v1, at(4, 8), delivered_at=at(4, 8, 1))
    reply(l5, at(4, 9), negative())
    step_message(l2, s3, s3v2, at(4, 8))
    reply(l2, at(4, 9), question())
    make_message(l2, status=Message.Status.SENT, sent_at=at(4, 9, 1))  # the AI answer
    reply(l2, at(4, 10), positive())
    return World(sequence, steps, versions, leads)
