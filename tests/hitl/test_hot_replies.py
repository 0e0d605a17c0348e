"""A hot reply (interest, a meeting, a price) reaches a person within 30 seconds of its
arrival (issue 19 §2): the lead's operator by e-mail, else the tenant's alert channels. The
notice is handed to the workers when the reply commits, never left to a periodic job."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core import mail

from cerniq import reasons
from cerniq.models import Alert, AlertChannel
from cerniq.tasks import deliver_alert_notifications, notify_alert
from hitl import review
from hitl.models import ReviewItem
from hitl.replies import process_reply
from hitl.tasks import email_hot_reply, triage_reply
from outreach.models import Journey, Message
from tests.factories import make_lead, make_message, make_user
from tests.whatsapp.conftest import MONDAY_10

BOUND = timedelta(seconds=30)


@pytest.fixture
def workers(monkeypatch):
    """The fast path only: enqueued actors (the reply's triage, then its notice) run as a
    worker would pick them up; the minute job must not be what delivers a hot reply."""
    monkeypatch.setattr(notify_alert, "send", lambda alert_id: notify_alert.fn(alert_id))
    monkeypatch.setattr(email_hot_reply, "send", lambda *args: email_hot_reply.fn(*args))
    monkeypatch.setattr(triage_reply, "send", lambda message_id: triage_reply.fn(message_id))

    def periodic():
        raise AssertionError("a hot reply must not wait for the periodic job")

    monkeypatch.setattr(deliver_alert_notifications, "send", periodic)


@pytest.fixture(autouse=True)
def local_receivers_allowed(settings):
    """The alert channel here is a server on 127.0.0.1, which the SSRF guard refuses."""
    settings.OUTBOUND_ALLOW_LOCAL_TARGETS = True


@pytest.fixture
def channel(tenant, alert_receiver):
    return AlertChannel.objects.create(
        tenant=tenant, name="Sales phone", url=alert_receiver.url(), language="en"
    )


def arrives(tenant, text: str, *, clock, capture, owner=None):
    """A reply arriving at MONDAY_10, processed (and committed) 5 s later."""
    lead = make_lead(tenant)
    if owner is not None:
        Journey.objects.filter(lead=lead).update(taken_over_by=owner, taken_over_at=MONDAY_10)
    message = make_message(
        lead,
        direction=Message.Direction.INBOUND,
        status=Message.Status.RECEIVED,
        body=text,
        sent_at=MONDAY_10,
    )
    clock.move_to(MONDAY_10 + timedelta(seconds=5))
    with capture(execute=True):
        process_reply(lead, message)
    return lead


@pytest.mark.parametrize(
    "text",
    [
        "Da, sunt interesat, trimiteți-mi oferta.",
        "Puteti trece pe la ferma joi la 10?",
        "Cât costă tona de azotat livrată la Slobozia?",
        "Yes, please send me the details.",
    ],
)
def test_with_nobody_assigned_the_channels_hear_of_it_within_30_seconds(
    tenant, channel, alert_receiver, clock, workers, django_capture_on_commit_callbacks, text
):
    lead = arrives(tenant, text, clock=clock, capture=django_capture_on_commit_callbacks)
    alert = Alert.objects.get(tenant=tenant, kind=Alert.Kind.HOT_REPLY)
    assert alert.subject == f"lead:{lead.pk}"
    assert alert.notified_at is not None and alert.notified_at - MONDAY_10 <= BOUND
    (notice,) = alert_receiver.received
    assert notice.json["title"] == f"[Warning] Hot reply, lead:{lead.pk}"
    assert f"{lead.name} replied:" in notice.json["message"]
    assert text not in notice.json["message"]  # the reply's words stay out of alerts and logs


def test_the_notice_reads_in_the_channels_language(
    tenant, alert_receiver, clock, workers, django_capture_on_commit_callbacks
):
    AlertChannel.objects.create(
        tenant=tenant, name="Vânzări", url=alert_receiver.url(), language="ro"
    )
    lead = arrives(
        tenant, "Da, sunt interesat.", clock=clock, capture=django_capture_on_commit_callbacks
    )
    (notice,) = alert_receiver.received
    assert f"{lead.name} a răspuns: Interesat." in notice.json["message"]


def test_the_operator_of_the_lead_is_emailed_instead(
    tenant, channel, alert_receiver, clock, workers, django_capture_on_commit_callbacks, settings
):
    settings.NOTIFY_BY_EMAIL = True
    settings.LANGUAGE_CODE = "en"
    owner = make_user(tenant, email="ana@agro.example")
    lead = arrives(
        tenant,
        "Hai să vorbim mâine la 11, vă convine?",
        clock=clock,
        capture=django_capture_on_commit_callbacks,
        owner=owner,
    )
    (email,) = mail.outbox
    assert email.to == ["ana@agro.example"]
    assert email.subject == f"Hot reply from {lead.name}: Asks for a meeting or a call"
    assert "Hai să vorbim mâine la 11" in email.body and f"/outreach/leads/{lead.pk}/" in email.body
    assert not Alert.objects.filter(kind=Alert.Kind.HOT_REPLY).exists()
    assert alert_receiver.received == []


def test_an_email_that_fails_still_reaches_the_channels(
    tenant,
    channel,
    alert_receiver,
    clock,
    workers,
    django_capture_on_commit_callbacks,
    settings,
    monkeypatch,
):
    settings.NOTIFY_BY_EMAIL = True

    def refused(*args, **kwargs):
        raise ConnectionRefusedError("smtp down")

    monkeypatch.setattr("hitl.hot_replies.send_mail", refused)
    owner = make_user(tenant, email="ana@agro.example")
    arrives(
        tenant,
        "Da, sunt interesat.",
        clock=clock,
        capture=django_capture_on_commit_callbacks,
        owner=owner,
    )
    assert Alert.objects.filter(kind=Alert.Kind.HOT_REPLY).count() == 1
    assert len(alert_receiver.received) == 1


@pytest.mark.parametrize(
    "text",
    [
        "Nu sunt interesat, mulțumesc.",
        "Se poate plăti în rate?",
        "Sunt în concediu până pe 12 august.",
        "Factura e greșită, am plătit de două ori!",  # URGENT, but a complaint: no sales alarm
    ],
)
def test_replies_that_are_not_hot_raise_no_hot_reply_alert(
    tenant, channel, clock, workers, django_capture_on_commit_callbacks, text
):
    arrives(tenant, text, clock=clock, capture=django_capture_on_commit_callbacks)
    assert not Alert.objects.filter(kind=Alert.Kind.HOT_REPLY).exists()


def test_taking_the_item_in_hand_resolves_the_hot_reply_alert(
    tenant, operator, clock, workers, django_capture_on_commit_callbacks
):
    lead = arrives(
        tenant, "Da, sunt interesat.", clock=clock, capture=django_capture_on_commit_callbacks
    )
    alert = Alert.objects.get(kind=Alert.Kind.HOT_REPLY)
    assert reasons.parse(alert.message)[1] == {"lead": lead.name, "intent": "interested"}
    review.assign(ReviewItem.objects.get(lead=lead), operator)
    alert.refresh_from_db()
    assert alert.resolved_at is not None
