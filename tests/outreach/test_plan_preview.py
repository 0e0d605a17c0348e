"""The plan preview agrees with what dispatch then does on that day, and writes nothing."""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext

from cerniq import reasons
from outreach import reasons as codes
from outreach.dispatch import dispatch_due
from outreach.models import (
    Channel,
    Enrollment,
    Journey,
    Message,
    Sequence,
    SequenceStep,
    Template,
    TemplateVersion,
)
from outreach.plan_preview import preview
from outreach.plan_simulation import dispatch_trigger, next_run
from outreach.sequences import enroll_many
from tests.factories import make_lead, make_outreach_world, make_phone, make_user
from whatsapp.models import Phone, QuotaUsage, WarmupPlan

BUCHAREST = ZoneInfo("Europe/Bucharest")
FRIDAY_EVENING = datetime(2026, 11, 27, 18, 0, tzinfo=BUCHAREST)
# 30 November (Saint Andrew) and 1 December (National Day) are public holidays in Romania.
WEDNESDAY_OPENING = datetime(2026, 12, 2, 9, 0, tzinfo=BUCHAREST)
WEDNESDAY_EVENING = datetime(2026, 11, 25, 20, 0, tzinfo=BUCHAREST)
THURSDAY_OPENING = datetime(2026, 11, 26, 9, 0, tzinfo=BUCHAREST)


def _sequence(tenant, name, channel, *, steps=2, active=True):
    sequence = Sequence.objects.create(tenant=tenant, name=name)
    for position in range(1, steps + 1):
        template = Template.objects.create(
            tenant=tenant, name=f"{name} {position}", channel=channel
        )
        TemplateVersion.objects.create(
            tenant=tenant,
            template=template,
            version=1,
            is_active=active,
            subject="" if channel == Channel.WHATSAPP else "Oferta pentru {{company_name}}",
            body=f"Bună ziua, {{{{company_name}}}}! Pasul {position}.",
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
    return sequence


def _leads(tenant, sequence, count, *, due, email=True, **journey):
    leads = [
        make_lead(tenant, email=f"office{n}@ferma-{sequence.pk}-{n}.ro" if email else "")
        for n in range(count)
    ]
    assert enroll_many(leads, sequence).enrolled == count
    Journey.objects.filter(lead__in=leads).update(next_action_at=due, **journey)
    return leads


def build_world(tenant, opening):
    """Phones at different warm-up stages and quota, and leads of every kind."""
    tenant.pacing_min_seconds, tenant.pacing_jitter_seconds = 60, 60
    tenant.save()
    WarmupPlan.objects.create(tenant=tenant, steps=[[1, 2], [5, 10], [9, 200]])
    established = make_phone(tenant, label="Established", daily_limit=5)
    make_phone(tenant, label="Warming", warmup_started_at=opening - timedelta(days=2))
    make_phone(tenant, label="Paused", status=Phone.Status.PAUSED)
    QuotaUsage.objects.create(  # a new contact already counted on that day
        tenant=tenant, phone=established, day=opening.date(), used=1, limit=5
    )
    wa = _sequence(tenant, "WhatsApp", Channel.WHATSAPP)
    mail = _sequence(tenant, "Email", Channel.EMAIL_COLD)
    dead = _sequence(tenant, "No template", Channel.WHATSAPP, active=False)
    earlier = opening - timedelta(days=4)
    day = {
        "new": _leads(tenant, wa, 5, due=earlier),
        "later": _leads(tenant, wa, 1, due=opening.replace(hour=14, minute=32)),
        "too_late": _leads(tenant, wa, 1, due=opening.replace(hour=15)),
        "follow": _leads(tenant, wa, 2, due=opening.replace(hour=11, minute=3)),
        "mail": _leads(tenant, mail, 2, due=earlier),
        "dead": _leads(tenant, dead, 1, due=earlier),
        "opted_out": _leads(tenant, wa, 1, due=earlier, email=False),
        "no_fallback": _leads(tenant, wa, 1, due=earlier),
        "taken": _leads(tenant, wa, 1, due=earlier, taken_over_by=make_user(tenant)),
        "review": _leads(
            tenant, wa, 1, due=earlier, requires_human_review=True, review_priority="MEDIUM"
        ),
        "tomorrow": _leads(tenant, wa, 1, due=opening + timedelta(days=1)),
        "at_closing": _leads(tenant, wa, 1, due=opening.replace(hour=17, minute=58)),
    }
    Journey.objects.filter(lead__in=day["opted_out"] + day["no_fallback"]).update(
        whatsapp_opted_out=True
    )
    first = wa.steps.get(position=1)
    for lead in day["follow"]:  # step 1 went out from the established phone
        Enrollment.objects.filter(lead=lead).update(current_step=1)
        Message.objects.create(
            tenant=tenant,
            lead=lead,
            channel=Channel.WHATSAPP,
            direction=Message.Direction.OUTBOUND,
            status=Message.Status.DELIVERED,
            phone=established,
            counterpart=lead.phone,
            provider_thread_id=f"chat-{lead.pk}",
            idempotency_key=f"old-{lead.pk}",
            sequence=wa,
            step=first,
        )
    return day


def dispatched_on_the_day(tenant, now, opening):
    """Run dispatch as the scheduler would: now, then every run while the window is open."""
    before = set(Message.objects.values_list("pk", flat=True))
    skipped: Counter[str] = Counter()
    with time_machine.travel(now, tick=False):
        dispatch_due(tenant, now=now)
    trigger, closing = dispatch_trigger(), opening.replace(hour=18)
    run = next_run(trigger, opening)
    while run < closing:
        with time_machine.travel(run, tick=False):
            skipped += dispatch_due(tenant, now=run).skipped
        run = next_run(trigger, run + timedelta(seconds=1))
    sent = {
        (m.lead_id, m.channel, m.phone_id, m.step.position == 1)
        for m in Message.objects.exclude(pk__in=before).select_related("step")
    }
    return sent, skipped


@pytest.mark.parametrize(
    ("now", "opening"),
    [(FRIDAY_EVENING, WEDNESDAY_OPENING), (WEDNESDAY_EVENING, THURSDAY_OPENING)],
    ids=["friday-evening-over-the-holidays", "a-plain-evening"],
)
def test_the_preview_is_what_dispatch_then_does(tenant, now, opening):
    day = build_world(tenant, opening)
    with time_machine.travel(now, tick=False), CaptureQueriesContext(connection) as queries:
        plan = preview(tenant)
    writes = [
        q["sql"]
        for q in queries.captured_queries
        if q["sql"].lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE"))
    ]
    assert writes == []
    assert plan.opening == opening
    predicted = {(s.lead.id, s.channel, s.phone_id, s.first) for s in plan.sends}

    sent, skipped = dispatched_on_the_day(tenant, now, opening)

    assert predicted == sent
    assert plan.skipped == skipped
    # What the world was built for: 4 + 2 new contacts (the established phone has one
    # counted already; the warming phone is on day 3 of a 2-a-day ramp), two follow-ups
    # on their chat's phone, two cold emails; the 15:00 lead finds the quota used up.
    assert plan.first == 8 and plan.follow_ups == 2
    assert {c.channel: c.total for c in plan.channels} == {
        Channel.WHATSAPP: 8,
        Channel.EMAIL_COLD: 2,
    }
    phones = {p.label: p for p in plan.phones}
    assert (phones["Established"].first, phones["Established"].follow_ups) == (4, 2)
    assert (phones["Warming"].first, phones["Warming"].limit) == (2, 2)
    assert phones["Warming"].warmup_day == 3 and not phones["Paused"].usable
    assert phones["Established"].left == phones["Warming"].left == 0
    waiting = {g.code: {r.id for r in g.examples} for g in plan.waiting}
    assert waiting[codes.QUOTA_EXHAUSTED] == {day["too_late"][0].pk}
    assert waiting[codes.STOP_TAKEOVER] == {day["taken"][0].pk}
    assert waiting[codes.STOP_REVIEW] == {day["review"][0].pk}
    assert waiting[codes.TEMPLATE_INACTIVE] == {day["dead"][0].pk}
    assert waiting[codes.NO_FALLBACK] == {day["no_fallback"][0].pk}
    assert waiting[codes.NO_CHANNEL] == {day["opted_out"][0].pk}
    # Due two minutes before closing: the next dispatch run finds the window closed.
    assert waiting[codes.PLAN_DUE_LATER] == {day["tomorrow"][0].pk, day["at_closing"][0].pk}
    no_channel = next(g for g in plan.waiting if g.code == codes.NO_CHANNEL)
    assert "WhatsApp: opted out" in no_channel.text


def test_send_times_follow_the_pacing_and_the_hours(tenant):
    build_world(tenant, WEDNESDAY_OPENING)
    with time_machine.travel(FRIDAY_EVENING, tick=False):
        plan = preview(tenant)
    established = [s for s in plan.sends if s.phone_label == "Established"]
    times = [s.send_at for s in established]
    assert all(times)
    # Follow-ups go before new contacts queued with them; a 90 s mean gap between sends.
    assert times == sorted(times)
    assert times[0] == WEDNESDAY_OPENING
    assert times[1] - times[0] == timedelta(seconds=90)
    late = next(s for s in plan.sends if s.queued_at.hour == 14)
    assert late.queued_at == WEDNESDAY_OPENING.replace(hour=14, minute=35)
    by_hour = {h.start.hour: h.total for h in plan.hours}
    assert sorted(by_hour) == list(range(9, 18))
    assert by_hour[9] == 7 and by_hour[11] == 2 and by_hour[14] == 1
    assert sum(by_hour.values()) == plan.total


def test_a_sequence_or_a_phone_filters_what_is_shown_not_the_quota(tenant):
    build_world(tenant, WEDNESDAY_OPENING)
    with time_machine.travel(FRIDAY_EVENING, tick=False):
        whole = preview(tenant)
        mail = preview(tenant, sequence=Sequence.objects.get(name="Email"))
        warming = preview(tenant, phone=Phone.objects.get(label="Warming"))
    assert {s.channel for s in mail.sends} == {Channel.EMAIL_COLD} and mail.total == 2
    assert mail.waiting == ()
    assert warming.total == 2 and {p.label for p in warming.phones} == {"Warming"}
    assert whole.total == 10


def test_nothing_due_is_an_empty_plan_that_says_why(tenant):
    world = make_outreach_world(tenant, leads=2)
    Journey.objects.filter(lead__in=world["leads"]).update(
        requires_human_review=True, review_priority="MEDIUM"
    )
    with time_machine.travel(FRIDAY_EVENING, tick=False):
        plan = preview(tenant)
    assert plan.total == 0
    assert [(g.code, g.count) for g in plan.waiting] == [(codes.STOP_REVIEW, 2)]
    assert reasons.render(plan.waiting[0].reason) == "the lead is held for human review"


def test_every_due_lead_is_planned_in_batches_with_the_quota_carried(tenant):
    world = make_outreach_world(tenant, leads=30, phones=2)
    Phone.objects.filter(tenant=tenant).update(daily_limit=10)
    with time_machine.travel(FRIDAY_EVENING, tick=False):
        plan = preview(tenant, batch_size=7)
    assert plan.total == 20  # 2 phones x 10, over batches of 7 at 09:00, 09:05, ...
    assert {s.queued_at.minute for s in plan.sends} == {0, 5, 10}
    assert plan.skipped == {codes.QUOTA_EXHAUSTED: 10}
    assert len(world["leads"]) == 30


def test_queries_do_not_grow_with_the_leads(tenant, other_tenant):
    make_outreach_world(tenant, leads=10)
    make_outreach_world(other_tenant, leads=200)
    with time_machine.travel(FRIDAY_EVENING, tick=False):
        with CaptureQueriesContext(connection) as small:
            assert preview(tenant).total == 10
        with CaptureQueriesContext(connection) as big:
            assert preview(other_tenant).total == 200
    assert len(big.captured_queries) == len(small.captured_queries)
