"""The reputation guard of our own sender (email_channels.reputation) on Resend's warm email:
sends counted as they are recorded, complaints and hard bounces from Resend's webhooks; a
rolling complaint rate over 0.08 % (from 1,000 sends and 2 complaints) or a bounce rate
over 3 % (from 100 sends) pauses the address and its domain with a critical alert; an
automated email then waits (a person's goes), until a person lifts the pause."""

from __future__ import annotations

import json
import uuid
from datetime import timedelta

import pytest
import responses
import time_machine

from cerniq import reasons
from cerniq.models import Alert
from email_channels import reputation
from email_channels.models import SenderDay, SenderPause
from outreach.models import Channel, Lead, Message
from outreach.sending import send_message
from tests.factories import make_lead, make_message, make_user
from tests.integrations.resend.conftest import api_fixture, tagged, webhook_fixture
from tests.integrations.resend.test_webhooks import deliver
from tests.whatsapp.conftest import MONDAY_10

pytestmark = pytest.mark.django_db
SENDER = "oferte@agrofirma.ro"  # RESEND_FROM's address in these tests (conftest)
URL = "https://api.resend.com/emails"


def warm(tenant, address: str, **kw) -> Message:
    lead = make_lead(tenant, email=address, email_status=Lead.EmailStatus.VALID)
    return make_message(
        lead, channel=Channel.EMAIL_WARM, counterpart=address, subject="Ofertă", **kw
    )


def history(tenant, *, sent: int, complained: int = 0, bounced: int = 0, days_ago: int = 3):
    day = (MONDAY_10 - timedelta(days=days_ago)).date()
    reputation.count(
        tenant.pk, "resend", SENDER, day, sent=sent, complained=complained, bounced=bounced
    )


def complaint_on(client, tenant, message: Message) -> None:
    body = tagged(webhook_fixture("email_complained"), tenant)
    body["data"]["email_id"] = message.provider_message_id
    body["data"]["to"] = [message.counterpart]
    deliver(client, tenant, body, msg_id=f"msg_{message.pk}")


def test_the_limits_and_their_minimum_sample():
    from email_channels.reputation import Figures, breach

    assert breach(Figures(1200, 0, 2), watch_bounces=True).startswith("sender.complaints")
    assert breach(Figures(1000, 0, 1), watch_bounces=True) == ""  # one complaint: anecdote
    assert breach(Figures(999, 0, 5), watch_bounces=True) == ""  # too few sends
    assert breach(Figures(5000, 0, 3), watch_bounces=True) == ""  # 0.06 %
    assert breach(Figures(100, 4, 0), watch_bounces=True).startswith("sender.bounces")
    assert breach(Figures(100, 4, 0), watch_bounces=False) == ""
    assert breach(Figures(99, 20, 0), watch_bounces=True) == ""


@responses.activate
def test_complaints_over_the_limit_pause_the_sender_until_a_person_lifts_it(
    client, tenant, settings
):
    settings.PUBLIC_BASE_URL = "https://outreach.example.ro"

    def resend_answers(request):  # the fixture's answer, with an id of its own each time
        return 200, {}, json.dumps({**api_fixture("send_ok"), "id": str(uuid.uuid4())})

    responses.add_callback(responses.POST, URL, callback=resend_answers)
    with time_machine.travel(MONDAY_10, tick=False) as clock:
        sent = warm(tenant, "ana@ferma-unu.ro", scheduled_for=MONDAY_10)
        assert send_message(sent.pk).kind == "sent"
        day = SenderDay.objects.get()
        assert (day.address, day.domain, day.sent) == (SENDER, "agrofirma.ro", 1)

        history(tenant, sent=1199, complained=1)  # a month of sends, one complaint
        other = warm(
            tenant,
            "ion@ferma-doi.ro",
            status="SENT",
            provider_message_id="2a8f1b8e-5c1d-4e1f-9b7a-0d1e2f3a4b5c",
        )
        complaint_on(client, tenant, other)  # the second: 2 of 1,200 = 0.167 %

        pauses = SenderPause.objects.filter(lifted_at__isnull=True)
        assert {(p.scope, p.value) for p in pauses} == {
            ("address", SENDER),
            ("domain", "agrofirma.ro"),
        }
        said = reasons.render(pauses.first().reason)
        assert "spam complaints (2 of 1200 sent in 30 days), over 0.08%" in said
        alert = Alert.objects.get(subject=f"sender:resend:{SENDER}")
        assert alert.severity == Alert.Severity.CRITICAL
        assert "lifts the pause" in reasons.render(alert.message)

        # An automated email waits an hour at a time; a person's message goes.
        waiting = warm(tenant, "maria@ferma-trei.ro", scheduled_for=MONDAY_10)
        outcome = send_message(waiting.pk)
        assert outcome.kind == "deferred" and "reputation guard" in outcome.detail
        assert outcome.retry_at == MONDAY_10 + timedelta(hours=1)
        person = warm(
            tenant,
            "vasile@ferma-patru.ro",
            is_manual=True,
            idempotency_key=None,
            scheduled_for=MONDAY_10,
        )
        assert send_message(person.pk).kind == "sent"

        admin = make_user(tenant, role="ADMIN")
        with pytest.raises(reputation.LiftRefused):
            reputation.lift(pauses.get(scope="address"), by=admin, reason="ok")
        for pause in SenderPause.objects.filter(lifted_at__isnull=True):
            reputation.lift(pause, by=admin, reason="Cleaned the list: removed the old export")
        alert.refresh_from_db()
        assert alert.resolved_at is not None
        clock.move_to(outcome.retry_at)
        assert send_message(waiting.pk).kind == "sent"


def test_hard_bounces_over_three_percent_pause_the_sender(client, tenant):
    with time_machine.travel(MONDAY_10, tick=False):
        history(tenant, sent=100, bounced=3)
        bounced = warm(
            tenant,
            "nimeni@ferma-cinci.ro",
            status="SENT",
            provider_message_id="3b9f1b8e-5c1d-4e1f-9b7a-0d1e2f3a4b5d",
        )
        body = tagged(webhook_fixture("email_bounced"), tenant)
        body["data"]["email_id"] = bounced.provider_message_id
        body["data"]["to"] = [bounced.counterpart]
        deliver(client, tenant, body, msg_id="msg_bounce")
    pause = SenderPause.objects.get(scope="address")
    assert "hard bounces (4 of 100 sent in 30 days), over 3%" in reasons.render(pause.reason)


def test_the_window_rolls(tenant):
    """Complaints older than the window no longer count."""
    history(tenant, sent=1200, complained=2, days_ago=40)
    with time_machine.travel(MONDAY_10, tick=False):
        assert reputation.guard(tenant, "resend", SENDER, watch_bounces=True) == []
        history(tenant, sent=1200, complained=2, days_ago=2)
        assert len(reputation.guard(tenant, "resend", SENDER, watch_bounces=True)) == 2
        # Paused once: judging again makes no second pause or alert.
        assert reputation.guard(tenant, "resend", SENDER, watch_bounces=True) == []
    assert Alert.objects.filter(kind=Alert.Kind.BOUNCE_RATE).count() == 2


def test_the_senders_page_shows_the_figures_and_an_admin_lifts_the_pause(client, tenant):
    with time_machine.travel(MONDAY_10, tick=False):
        history(tenant, sent=1200, complained=2)
        reputation.guard(tenant, "resend", SENDER, watch_bounces=True)
        operator = make_user(tenant, username="ion")
        client.force_login(operator)
        page = client.get("/outreach/settings/senders/").content.decode()
        assert f'data-sender="{SENDER}"' in page
        assert "0.167 %" in page and 'data-sender-paused="address"' in page
        assert 'data-sender-paused="domain"' in page and "data-lift-sender" not in page
        pause = SenderPause.objects.get(scope="address")
        assert client.post(f"/outreach/settings/senders/{pause.pk}/lift/").status_code == 403
        admin = make_user(tenant, username="ana", role="ADMIN")
        client.force_login(admin)
        short = client.post(f"/outreach/settings/senders/{pause.pk}/lift/", {"reason": "ok"})
        assert short.status_code == 302 and SenderPause.objects.get(pk=pause.pk).lifted_at is None
        client.post(
            f"/outreach/settings/senders/{pause.pk}/lift/",
            {"reason": "Removed the purchased list that drew the complaints"},
        )
        page = client.get("/outreach/settings/senders/").content.decode()
        assert 'data-sender-paused="address"' not in page  # the domain's pause stays
        assert 'data-sender-paused="domain"' in page
        assert "Removed the purchased list" in page and "lifted by ana" in page
