"""Numbers that agree (docs/figures.md): one known history, every figure of the dashboard,
the analytics page, the campaigns page and the API's analytics, against hand-counted
numbers. The history has each kind of message (new contacts, follow-ups, a person's
message, an AI answer, an opt-out confirmation, queued, failed, bounced), replies (a
positive one, an opt-out that sounds keen), three channels, and messages on both sides of
a local midnight that UTC puts on the other day."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
import time_machine

from cerniq import api_keys
from cerniq.models import TenantAPIKey
from email_channels.models import EmailCampaign
from outreach.analytics import rollup_range
from outreach.models import Channel, Message, SequenceStep
from outreach.sequences import OPT_OUT_CONFIRMATION_PREFIX
from tests.api.conftest import key_client
from tests.factories import (
    make_lead,
    make_message,
    make_phone,
    make_sequence,
    make_template,
    make_user,
)

pytestmark = [pytest.mark.django_db, pytest.mark.clock]

BUCHAREST = ZoneInfo("Europe/Bucharest")
NOW = datetime(2026, 11, 26, 15, 0, tzinfo=BUCHAREST)  # a Thursday afternoon
TODAY_EARLY = datetime(2026, 11, 26, 0, 30, tzinfo=BUCHAREST)  # 25 Nov 22:30 in UTC
YESTERDAY_LATE = datetime(2026, 11, 25, 23, 30, tzinfo=BUCHAREST)
TODAY = NOW - timedelta(hours=2)
LAST_WEEK = NOW - timedelta(days=8)  # outside the dashboard's 7 days, inside 30
OUT, IN = Message.Direction.OUTBOUND, Message.Direction.INBOUND
S = Message.Status


@pytest.fixture
def history(tenant):
    """The known history; the numbers each test expects are counted by hand from it."""
    phone = make_phone(tenant, number="+40740000001")
    wa = make_sequence(tenant, name="Fermieri WhatsApp")
    wa_first = wa.steps.get()
    wa_second = SequenceStep.objects.create(
        tenant=tenant, sequence=wa, position=2, channel=Channel.WHATSAPP, template=wa_first.template
    )
    cold = make_sequence(tenant, name="Fermieri email")
    cold_first = cold.steps.get()
    cold_first.channel = Channel.EMAIL_COLD
    cold_first.template = make_template(tenant, channel=Channel.EMAIL_COLD)
    cold_first.save()
    lead = make_lead(tenant, name="Ferma Verde SRL")

    def out(channel=Channel.WHATSAPP, *, at, status=S.SENT, **kw) -> Message:
        on_phone = {"phone": phone} if channel == Channel.WHATSAPP else {}
        return make_message(
            lead, channel=channel, direction=OUT, status=status, sent_at=at, **on_phone, **kw
        )

    def received(channel=Channel.WHATSAPP, *, at, analysis=None) -> Message:
        on_phone = {"phone": phone} if channel == Channel.WHATSAPP else {}
        message = make_message(
            lead, channel=channel, direction=IN, status=S.RECEIVED, idempotency_key=None,
            analysis=analysis, **on_phone,
        )  # fmt: skip
        Message.objects.filter(pk=message.pk).update(created_at=at)
        return message

    wa_new = {"sequence": wa, "step": wa_first, "quota_cost": 1}
    wa_next = {"sequence": wa, "step": wa_second}
    # WhatsApp today: 3 new contacts (one just after local midnight), 2 follow-ups.
    out(at=TODAY_EARLY, **wa_new)
    out(at=TODAY, status=S.DELIVERED, **wa_new)
    out(at=TODAY, status=S.READ, **wa_new)
    out(at=TODAY, **wa_next)
    out(at=TODAY, status=S.DELIVERED, **wa_next)
    # Sent, but neither a new contact nor a follow-up: an AI answer, a person's message.
    out(at=TODAY, idempotency_key=f"ai-reply:{lead.pk}")
    out(at=TODAY, is_manual=True)
    # Not counted as sent at all: the opt-out confirmation, a queued and a failed message.
    out(
        at=TODAY,
        status=S.READ,
        delivered_at=TODAY,
        read_at=TODAY,
        idempotency_key=f"{OPT_OUT_CONFIRMATION_PREFIX}{lead.pk}:WHATSAPP",
    )
    out(at=None, status=S.QUEUED, **wa_next)
    out(at=None, status=S.FAILED, failed_at=TODAY, **wa_next)
    # WhatsApp earlier: yesterday just before midnight, and eight days ago.
    out(at=YESTERDAY_LATE, **wa_new)
    out(at=LAST_WEEK, **wa_new)
    # Cold email (no provider campaign: the demo's sandbox): 4 today (one bounced), 2
    # yesterday; a second sequence has an Instantly campaign with the provider's counters.
    cold_new = {"sequence": cold, "step": cold_first, "counterpart": "office@fermaverde.ro"}
    for _ in range(3):
        out(Channel.EMAIL_COLD, at=TODAY, **cold_new)
    out(Channel.EMAIL_COLD, at=TODAY, status=S.BOUNCED, failed_at=TODAY, **cold_new)
    out(Channel.EMAIL_COLD, at=YESTERDAY_LATE, **cold_new)
    out(Channel.EMAIL_COLD, at=YESTERDAY_LATE - timedelta(hours=3), **cold_new)
    other = make_sequence(tenant, name="Livezi email")
    EmailCampaign.objects.create(
        tenant=tenant, name="Livezi (Instantly)", sequence=other, external_id="c-9",
        sent=40, bounced=2,
    )  # fmt: skip
    # Warm email: a person's answer today.
    out(Channel.EMAIL_WARM, at=TODAY, is_manual=True, counterpart="office@fermaverde.ro")
    # Replies: today a positive one, an opt-out that sounds keen (never positive), a cold
    # email reply; yesterday one more.
    received(at=TODAY, analysis={"triage": {"sentiment": 80, "intent": "interested"}})
    received(
        at=TODAY,
        analysis={
            "triage": {"sentiment": 70, "intent": "interested"},
            "decision": "hitl.decision.opt_out",  # as the reply path stores it
        },
    )
    received(Channel.EMAIL_COLD, at=TODAY_EARLY, analysis={"triage": {"sentiment": 10}})
    received(at=YESTERDAY_LATE)
    rollup_range(tenant, LAST_WEEK.date() - timedelta(days=1), NOW.date())  # as the cron does
    return {"cold": cold, "other": other}


def cell(html: str, marker: str) -> str:
    found = re.search(rf"{re.escape(marker)}[^>]*>([^<]*)<", html)
    assert found, marker
    return found.group(1).strip()


def row_of(html: str, marker: str) -> str:
    start = html.index(marker)
    return html[start : html.index("</tr>", start)]


@time_machine.travel(NOW, tick=False)
def test_the_dashboard_counts_each_figure_once(client, operator, history):
    client.force_login(operator)
    html = client.get("/outreach/dashboard/").content.decode()
    expected = {
        # 3 WhatsApp (one at 00:30 local, 22:30 UTC the day before) + 4 cold emails.
        'data-kpi="new-today"': "7",
        'data-kpi="new-week"': "10",  # + yesterday's 1 WhatsApp and 2 cold emails
        'data-kpi="followups-today"': "2",  # not the AI answer, nor the opt-out confirmation
        'data-kpi="followups-week"': "2",
        'data-kpi="replies-today"': "3",
        'data-kpi="replies-week"': "4",
        # WhatsApp: 3 new, 2 follow-ups, an AI answer, a person's message, yesterday's 1.
        'data-kpi="sent-WHATSAPP"': "8",
        'data-kpi="replies-WHATSAPP"': "3",
        'data-kpi="rate-WHATSAPP"': "37.5%",
        'data-kpi="sent-EMAIL_COLD"': "6",  # the bounced one went out too
        'data-kpi="rate-EMAIL_COLD"': "16.7%",
        'data-kpi="sent-EMAIL_WARM"': "1",
        'data-kpi="rate-EMAIL_WARM"': "0.0%",
    }
    assert {marker: cell(html, marker) for marker in expected} == expected


@time_machine.travel(NOW, tick=False)
def test_the_analytics_page_agrees(client, operator, history):
    client.force_login(operator)
    html = client.get("/outreach/analytics/").content.decode()
    channels = {
        channel: tuple(
            cell(row_of(html, f'data-channel="{channel}"'), f"data-{name}")
            for name in ("sent", "replies", "positive")
        )
        for channel in ("WHATSAPP", "EMAIL_COLD", "EMAIL_WARM")
    }
    # 30 days: the dashboard's week plus the message of eight days ago; one positive reply
    # (the keen opt-out is not).
    assert channels == {
        "WHATSAPP": ("9", "3", "1"),
        "EMAIL_COLD": ("6", "1", "0"),
        "EMAIL_WARM": ("1", "0", "0"),
    }
    phone = row_of(html, 'data-phone="+40740000001"')
    # sent, new contacts (today 3, yesterday 1, last week 1), follow-ups, replies, positive
    assert re.findall(r"<td[^>]*>(\d+)</td>", phone)[:5] == ["9", "5", "2", "3", "1"]
    today = row_of(html, 'data-day="2026-11-26"')
    assert re.findall(r"<td>(\d+)</td>", today) == ["7", "2", "1", "4", "1", "0", "1", "0", "0"]
    yesterday = row_of(html, 'data-day="2026-11-25"')
    assert re.findall(r"<td>(\d+)</td>", yesterday) == ["1", "1", "0", "2", "0", "0"] + ["0"] * 3


@time_machine.travel(NOW, tick=False)
def test_the_campaigns_page_shows_what_went_out(client, operator, history):
    client.force_login(operator)
    html = client.get("/outreach/campaigns/").content.decode()
    assert "No cold email has gone out yet" not in html
    cold = row_of(html, f'data-sequence="{history["cold"].pk}"')
    assert "Fermieri email" in cold and "No provider campaign" in cold
    assert (cell(cold, "data-sent"), cell(cold, "data-bounced")) == ("6", "1")  # = dashboard
    campaign = row_of(html, f'data-campaign="{EmailCampaign.objects.get().pk}"')
    assert (cell(campaign, "data-sent"), cell(campaign, "data-bounced")) == ("0", "0")
    provider = re.sub(r"<[^>]+>|\s+", " ", campaign[campaign.index("data-provider") :])
    assert "40 · 2 · 5.00% / 3.00%" in " ".join(provider.split())  # what the shield judges


@time_machine.travel(NOW, tick=False)
def test_the_api_agrees(tenant, history):
    admin = make_user(tenant, role="ADMIN")
    _, key = api_keys.create_key(tenant, name="bi", scope=TenantAPIKey.Scope.READ, user=admin)
    api = key_client(key)
    overview = api.get("/api/v1/analytics/overview/").json()
    assert overview["day"] == "2026-11-26"
    assert overview["today"] == {
        "sent": 12,  # WhatsApp 7, cold 4, warm 1
        "new_contacts": 7,
        "follow_ups": 2,
        "delivered": 0,  # the only delivered_at is the opt-out confirmation's
        "read": 0,
        "replies": 3,
        "positive_replies": 1,
        "bounces": 1,
        "opt_outs": 1,
        "failed": 1,
    }
    assert overview["last_7_days"] == {
        **overview["today"],
        "sent": 15,
        "new_contacts": 10,
        "replies": 4,
    }
    daily = api.get("/api/v1/analytics/daily/").json()
    wa = next(c for c in daily["channels"] if c["channel"] == "WHATSAPP")
    index = daily["days"].index("2026-11-26")
    assert (wa["sent"][index], wa["sent"][index - 1], sum(wa["sent"])) == (7, 1, 9)
    assert (sum(wa["replies"]), sum(wa["positive_replies"])) == (3, 1)
