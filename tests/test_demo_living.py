"""The living demo: a fresh seed at any hour sends and answers at once, over 60 days of
history written through the real models and the rollup (integrations.sandbox.demo_history)."""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta
from io import StringIO
from zoneinfo import ZoneInfo

import pytest
import responses
import time_machine
from django.core.management import CommandError, call_command

from cerniq.models import WebhookEvent
from cerniq.providers import get_backend
from cerniq.webhooks import process_event
from email_channels.models import EmailCampaign
from hitl.models import ReviewItem
from integrations.sandbox.demo_history import HISTORY_SOURCE, LEFT_OPEN_WITHIN, seed_history
from integrations.sandbox.demo_replies import post_reply
from outreach.analytics.definitions import INBOUND, SENT, day_bounds
from outreach.dispatch import dispatch_due
from outreach.hours import SendingWindow
from outreach.models import DailyStats, Enrollment, Message, StageTransition, TemplateVersion
from outreach.seeding import seed_demo
from outreach.sending import send_message
from tests.drain import run_triage
from whatsapp.models import Phone, PhoneStatusChange

pytestmark = pytest.mark.django_db
BUCHAREST = ZoneInfo("Europe/Bucharest")
SATURDAY_NIGHT = datetime(2026, 11, 28, 23, 30, tzinfo=BUCHAREST)
INTENTS = {
    "interested",
    "meeting_request",
    "price_request",
    "question",
    "referral",
    "not_interested",
    "unsubscribe",
    "out_of_office",
}


@pytest.fixture
def sandbox_email(settings):
    """The demo's cold email goes to the sandbox, as `make run` sets INSTANTLY_BACKEND."""
    settings.PROVIDERS = {
        **settings.PROVIDERS,
        "email.instantly": {"BACKEND": "integrations.sandbox.email.SandboxEmail"},
    }
    settings.SANDBOX_REPLY_RATE = 0  # the reply below is posted by the test itself


def counts() -> dict[str, int]:
    return {
        "messages": Message.objects.count(),
        "transitions": StageTransition.objects.count(),
        "reviews": ReviewItem.objects.count(),
        "stats": DailyStats.objects.count(),
        "status_changes": PhoneStatusChange.objects.count(),
    }


@pytest.mark.own_moment  # travels to its moment first
def test_a_fresh_demo_at_saturday_night_sends_and_gets_a_reply_within_two_minutes(
    client, sandbox_email, settings
):
    settings.SANDBOX_WEBHOOK_BASE_URL = "http://demo.local"
    with time_machine.travel(SATURDAY_NIGHT, tick=False) as clock:
        tenant = seed_demo(companies=40).tenant
        seed_history(tenant, companies=400)
        assert SendingWindow.for_tenant(tenant).is_open(SATURDAY_NIGHT)
        result = dispatch_due(tenant)
        assert sum(result.dispatched.values()) > 0
        first = Message.objects.filter(
            tenant=tenant, channel="WHATSAPP", status="QUEUED", lead__source="demo"
        ).order_by("scheduled_for", "pk")[0]
        assert send_message(first.pk)
        first.refresh_from_db()
        assert first.status == "SENT" and first.sent_at == SATURDAY_NIGHT
        sent = get_backend("whatsapp.sandbox").outbox[-1]

        # The sandbox lead answers at the latest delay `make run` allows: within 2 minutes.
        assert max(settings.SANDBOX_REPLY_DELAY_SECONDS) <= 120
        clock.shift(timedelta(seconds=max(settings.SANDBOX_REPLY_DELAY_SECONDS)))
        url = f"http://demo.local/webhooks/timelinesai/{tenant.webhook_token}/"
        with responses.RequestsMock() as mocked:
            mocked.add_callback(
                responses.POST,
                url,
                callback=lambda request: (
                    client.post(
                        url.removeprefix("http://demo.local"),
                        request.body,
                        content_type="application/json",
                    ).status_code,
                    {},
                    "",
                ),
            )
            assert post_reply(sent.account_phone, sent.to, sent.chat_id) == 200
        for event in WebhookEvent.objects.filter(status="RECEIVED"):  # the webhook worker
            process_event(event.pk)
        run_triage()
        reply = Message.objects.get(lead=first.lead, direction="IN")
        assert reply.created_at - first.sent_at <= timedelta(minutes=2)
        assert reply.analysis and reply.analysis.get("decision")  # triaged and routed

        client.force_login(tenant.memberships.get(user__username="operator").user)
        page = client.get("/outreach/dashboard/")
        assert page.status_code == 200
        assert page.context["today"].new_contacts > 0  # sent today, at 23:30 on a Saturday
        assert page.context["week"].new_contacts > page.context["today"].new_contacts
        charts = client.get("/outreach/analytics/").context["chart_data"]
        assert len(charts["days"]) == 30
        whatsapp = next(c for c in charts["channels"] if c["channel"] == "WHATSAPP")
        assert sum(1 for n in whatsapp["sent"] if n > 0) >= 15
        assert sum(whatsapp["replies"]) > 0


@pytest.mark.own_moment  # travels to its moment first
def test_sixty_days_of_history_through_the_real_models_and_a_true_rollup(settings):
    with time_machine.travel(SATURDAY_NIGHT, tick=False):
        tenant = seed_demo(companies=20).tenant
        result = seed_history(tenant, companies=500)
        assert not result.skipped
        today = SendingWindow.for_tenant(tenant).local_date(SATURDAY_NIGHT)
        history = Message.objects.filter(tenant=tenant, lead__source=HISTORY_SOURCE)
        sent_days = {
            m.astimezone(BUCHAREST).date() for m in history.values_list("sent_at", flat=True) if m
        }
        assert min(sent_days) >= today - timedelta(days=60)
        assert min(sent_days) <= today - timedelta(days=55) and max(sent_days) < today
        weekdays = Counter(day.weekday() < 5 for day in sent_days)
        assert weekdays[True] > 5 * weekdays[False]  # mostly working days
        hours = Counter(
            9 <= m.astimezone(BUCHAREST).hour < 18
            for m in history.values_list("sent_at", flat=True)
        )
        assert hours[True] > 0.9 * sum(hours.values())
        assert {"WHATSAPP", "EMAIL_COLD", "EMAIL_WARM"} <= set(
            history.values_list("channel", flat=True)
        )

        enrollments = Counter(
            Enrollment.objects.filter(lead__source=HISTORY_SOURCE).values_list("status", flat=True)
        )
        assert enrollments["COMPLETED"] > 0 and enrollments["STOPPED"] > 0  # replies stop them
        intents = set(
            history.filter(direction="IN").values_list("analysis__triage__intent", flat=True)
        )
        assert intents >= INTENTS
        # Opt-outs as the reply path records them: the decision, the journey, the suppression.
        opted = history.filter(analysis__decision__startswith="hitl.decision.opt_out")
        assert opted.exists()
        assert opted[0].lead.journey.whatsapp_opted_out
        assert tenant.suppressions.exists()  # opt-outs recorded the way replies record them
        items = ReviewItem.objects.filter(tenant=tenant)
        assert items.filter(status="RESOLVED", resolved_by__isnull=False).exists()
        # Old alerts are closed (by a person, or by the system when their cause ended); the
        # last day's may still be open.
        from cerniq.models import Alert

        day_before = SATURDAY_NIGHT - timedelta(days=1)
        stale = Alert.objects.filter(tenant=tenant, last_seen_at__lt=day_before)
        assert stale.exists() and not stale.filter(resolved_at__isnull=True).exists()
        # (The hot-reply alerts close with their review items, which operators work.)
        # Operators answer (an approved draft) as well as close: response times have figures.
        from hitl.models import ReplyResponse

        answered = ReplyResponse.objects.filter(tenant=tenant, kind="ANSWERED")
        assert answered.filter(responder__isnull=False, working_seconds__isnull=False).exists()
        assert history.filter(ai_drafted=True, sent_by__isnull=False, status="SENT").exists()
        assert items.filter(status="ASSIGNED", assignee__isnull=False).exists()
        assert items.filter(status__in=["OPEN", "ASSIGNED"], sla_due_at__lt=SATURDAY_NIGHT).exists()
        # ... but only recent ones: nothing older than a few days is left waiting.
        weeks_ago = SATURDAY_NIGHT - LEFT_OPEN_WITHIN
        assert not items.filter(status__in=["OPEN", "ASSIGNED"], created_at__lt=weeks_ago).exists()
        assert StageTransition.objects.filter(
            to_stage="NEGOTIATION", by_user__isnull=False
        ).exists()
        assert EmailCampaign.objects.get(tenant=tenant).status == "PAUSED"
        banned = PhoneStatusChange.objects.get(status="BANNED").phone
        assert banned.status == Phone.Status.ACTIVE and banned.warmup_started_at is not None
        first = TemplateVersion.objects.filter(template__name="WhatsApp — primul mesaj")
        (a_sent, a_replies), (b_sent, b_replies) = first.order_by("version").values_list(
            "sent_count", "reply_count"
        )
        assert a_sent > 0 and b_sent > 0 and a_replies != b_replies

        # The rollup is true: its rows equal the counts from the messages.
        busiest = DailyStats.objects.filter(tenant=tenant, phone=None).order_by("-sent")[:3]
        for row in list(busiest) + list(
            DailyStats.objects.filter(tenant=tenant, phone=None, replies__gt=0)[:3]
        ):
            start, end = day_bounds(tenant, row.day)
            on_day = Message.objects.filter(tenant=tenant, channel=row.channel)
            assert row.sent == on_day.filter(SENT, sent_at__gte=start, sent_at__lt=end).count()
            assert (
                row.replies
                == on_day.filter(INBOUND, created_at__gte=start, created_at__lt=end).count()
            )

        before = counts()
        assert seed_history(tenant, companies=500).skipped
        seed_demo(companies=20)
        assert counts() == before


@pytest.mark.parametrize(("real", "open_"), [(True, False), (False, True)])
def test_demo_real_window_gives_the_business_window(settings, real, open_):
    settings.DEMO_REAL_WINDOW = real
    tenant = seed_demo(companies=0).tenant
    window = SendingWindow.for_tenant(tenant)
    assert window.is_open(SATURDAY_NIGHT) is open_
    assert window.is_open(datetime(2026, 11, 30, 3, 0, tzinfo=BUCHAREST)) is open_  # a holiday
    assert window.is_open(datetime(2026, 11, 24, 11, 0, tzinfo=BUCHAREST))


def test_a_rerun_keeps_the_operators_window(settings):
    tenant = seed_demo(companies=0).tenant
    tenant.working_days = [0, 1, 2]
    tenant.save(update_fields=["working_days"])
    seed_demo(companies=0)
    tenant.refresh_from_db()
    assert tenant.working_days == [0, 1, 2]


def test_the_command_refuses_a_history_longer_than_a_year():
    with pytest.raises(CommandError, match="--history-days"):
        call_command("seed_demo", "--history-days", "400", "--allow-production", stdout=StringIO())
    assert not Message.objects.exists()
