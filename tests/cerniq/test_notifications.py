"""Alert notifications (cerniq.notifications) through apprise: to a real local webhook
(json://, form://), to Slack and Telegram at their HTTP boundary (responses)."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime, timedelta

import pytest
import responses
import time_machine
from django.db import transaction

from cerniq import notifications
from cerniq.alerts import acknowledge, raise_alert, resolve_alerts, resolve_by_hand
from cerniq.models import Alert, AlertChannel
from cerniq.notifications import deliver_alert, deliver_pending
from cerniq.tasks import deliver_alert_notifications, notify_alert
from tests.concurrency import run_at_once
from tests.drain import running_workers, wait_until
from tests.factories import make_tenant, make_user

T0 = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)  # Monday 10:00 in Bucharest
SLACK_HOOK = "https://hooks.slack.com/services/T1JJ3T3L2/A1BRTD4JD/TIiajkdnlazkcOXrIdevi7FQ"
TELEGRAM_TOKEN = "123456789:AABCDEFGHIJKLMNOPQRSTUVWXYZabcdefgh"
Kind, Severity = Alert.Kind, Alert.Severity


@pytest.fixture(autouse=True)
def local_receivers_allowed(settings):
    """The channels here are real servers on 127.0.0.1: the SSRF guard would refuse them
    (tests/cerniq/test_alert_channel_guard.py tests it)."""
    settings.OUTBOUND_ALLOW_LOCAL_TARGETS = True


@pytest.fixture(autouse=True)
def english(settings):
    """Notices in English here (a channel's language defaults to the deployment's, Romanian;
    `test_a_channel_in_romanian_gets_romanian_notices` covers that)."""
    settings.LANGUAGE_CODE = "en"


@pytest.fixture
def clock():
    with time_machine.travel(T0, tick=False) as traveller:
        yield traveller


@pytest.fixture
def channel(tenant, alert_receiver):
    return AlertChannel.objects.create(
        tenant=tenant, name="Ops webhook", url=alert_receiver.url(), language="en"
    )


def raise_one(tenant, kind=Kind.PHONE_OFFLINE, subject="phone:+40740000101", **kw):
    return raise_alert(tenant, kind, subject, kw.pop("message", "It stopped answering."), **kw)


@pytest.mark.parametrize("kind", Kind.values)
def test_each_kind_goes_out_once_then_a_reminder_after_the_quiet_period_then_resolved_once(
    tenant, channel, alert_receiver, clock, settings, kind
):
    settings.ALERT_REMINDER_AFTER = timedelta(hours=4)
    alert = raise_one(tenant, kind, subject="thing:1", severity=Severity.CRITICAL)

    assert deliver_pending().sent == 1
    (opened,) = alert_receiver.received
    label = Kind(kind).label
    assert opened.json["title"] == f"[Critical] {label}, thing:1"
    assert opened.json["type"] == "failure"
    assert "It stopped answering." in opened.json["message"]
    assert f"/outreach/alerts/#alert-{alert.pk}" in opened.json["message"]

    # Still open, seen again, runs every minute: nothing more.
    raise_one(tenant, kind, subject="thing:1", message="Still not answering.")
    for minutes in (1, 2, 239):
        clock.move_to(T0 + timedelta(minutes=minutes))
        deliver_pending()
    assert len(alert_receiver.received) == 1

    clock.move_to(T0 + timedelta(hours=4, minutes=1))
    deliver_pending()
    deliver_pending()
    assert alert_receiver.titles()[1:] == [f"Still open: [Critical] {label}, thing:1"]
    assert "Seen 2 times" in alert_receiver.received[1].json["message"]

    clock.move_to(T0 + timedelta(hours=5))
    assert resolve_alerts(tenant, kind, "thing:1") == 1
    deliver_pending()
    clock.move_to(T0 + timedelta(hours=9))  # past another quiet period: nothing is owed
    deliver_pending()
    assert alert_receiver.titles()[2:] == [f"Resolved: {label}, thing:1"]
    assert alert_receiver.received[2].json["type"] == "success"
    alert.refresh_from_db()
    assert alert.notified_at == T0
    assert alert.reminded_at == T0 + timedelta(hours=4, minutes=1)
    assert alert.resolved_notified_at == T0 + timedelta(hours=5)
    assert (alert.notice_pending, alert.notify_after) == ("", None)


def test_the_message_is_short_and_says_what_where_and_when(tenant, channel, alert_receiver, clock):
    tenant.name = "Agro Nord SRL"
    tenant.save()
    raise_one(tenant, Kind.BOUNCE_RATE, subject="campaign:7", message="Bounce rate 4.2 % > 3 %.")
    deliver_pending()
    assert alert_receiver.received[0].json["message"].splitlines() == [
        "Bounce rate 4.2 % > 3 %.",
        "",
        "Severity: Warning · Kind: Bounce rate",
        "About: campaign:7",
        "Workspace: Agro Nord SRL",
        "Seen 1 time, first 02/03/2026, 10:00, last 02/03/2026, 10:00.",
        f"Alerts: http://127.0.0.1:8000/outreach/alerts/#alert-{Alert.objects.get().pk}",
    ]


def test_an_acknowledged_alert_gets_no_reminder_but_its_resolved_notice(
    tenant, channel, alert_receiver, clock, operator
):
    alert = raise_one(tenant)
    deliver_pending()
    assert acknowledge(Alert.objects.filter(pk=alert.pk), operator) == 1
    clock.move_to(T0 + timedelta(days=2))
    deliver_pending()
    assert len(alert_receiver.received) == 1
    resolve_by_hand(Alert.objects.filter(pk=alert.pk), operator)
    deliver_pending()
    assert alert_receiver.titles()[1] == "Resolved: Phone offline, phone:+40740000101"


def test_an_alert_resolved_before_anybody_heard_of_it_sends_nothing(tenant, alert_receiver, clock):
    raise_one(tenant)
    resolve_alerts(tenant, Kind.PHONE_OFFLINE, "phone:+40740000101")
    AlertChannel.objects.create(tenant=tenant, name="Late", url=alert_receiver.url())
    assert deliver_pending().alerts == 0
    assert alert_receiver.received == []


def test_alerts_wait_for_a_channel_and_go_out_once_one_is_added(tenant, alert_receiver, clock):
    alert = raise_one(tenant)
    assert deliver_pending().alerts == 0
    alert.refresh_from_db()
    assert alert.notified_at is None and alert.notify_after is None  # not claimed
    AlertChannel.objects.create(tenant=tenant, name="New", url=alert_receiver.url())
    deliver_pending()
    assert len(alert_receiver.received) == 1


def test_a_failing_channel_blocks_no_other_and_is_retried_with_back_off_until_it_works(
    tenant, channel, clock, caplog
):
    from tests.alert_receiver import AlertReceiver

    with AlertReceiver() as broken:
        broken.statuses = [500, 502]
        bad = AlertChannel.objects.create(
            tenant=tenant, name="Flaky", url=broken.url(path="/hook/flaky-secret-9f8e7d")
        )
        alert = raise_one(tenant)

        with caplog.at_level(logging.WARNING, logger="cerniq.notifications"):
            report = deliver_pending()
        assert (report.sent, report.failed) == (1, 1)
        alert.refresh_from_db()
        assert alert.notified_at == T0  # people were told, on the good channel
        assert alert.notice_pending == "OPENED"
        assert alert.notice_sent_to == [f"channel:{channel.pk}"]  # answers 200
        assert "Flaky (json://127.0.0.1" in caplog.text and "f...d" in caplog.text
        assert "flaky-secret-9f8e7d" not in caplog.text
        bad.refresh_from_db()
        assert bad.last_error and bad.last_error_at == T0

        deliver_pending()  # within the back-off: nothing
        clock.move_to(T0 + timedelta(minutes=1))
        assert deliver_pending().failed == 1  # second failure: next try 2 minutes later
        clock.move_to(T0 + timedelta(minutes=2))
        assert deliver_pending().alerts == 0
        clock.move_to(T0 + timedelta(minutes=3))
        assert deliver_pending().sent == 1
        assert len(broken.received) == 3
    alert.refresh_from_db()
    assert (alert.notice_pending, alert.notice_sent_to, alert.notice_attempts) == ("", [], 0)
    bad.refresh_from_db()
    assert bad.last_error == "" and bad.last_sent_at == T0 + timedelta(minutes=3)


def test_the_good_channel_is_not_sent_the_notice_again_while_another_is_retried(
    tenant, channel, alert_receiver, clock
):
    AlertChannel.objects.create(tenant=tenant, name="Nowhere", url="json://127.0.0.1:9/x")
    raise_one(tenant)
    for minute in range(0, 120, 1):
        clock.move_to(T0 + timedelta(minutes=minute))
        deliver_pending()
    assert len(alert_receiver.received) == 1
    assert Alert.objects.get().notice_attempts == 7  # 1, 2, 4 … 64 minutes apart


def test_a_channel_that_stays_broken_never_holds_back_the_others_reminders(
    tenant, channel, alert_receiver, clock, settings
):
    settings.ALERT_REMINDER_AFTER = timedelta(hours=4)
    AlertChannel.objects.create(tenant=tenant, name="Revoked", url="json://127.0.0.1:9/x")
    raise_one(tenant)
    for minutes in range(0, 9 * 60 + 10, 5):
        clock.move_to(T0 + timedelta(minutes=minutes))
        deliver_pending()
    # Each reminder may wait out the broken channel's back-off (at most an hour).
    assert alert_receiver.titles() == [
        "[Warning] Phone offline, phone:+40740000101",
        "Still open: [Warning] Phone offline, phone:+40740000101",
        "Still open: [Warning] Phone offline, phone:+40740000101",
    ]


def test_channels_take_only_their_kinds_and_severities(tenant, alert_receiver, clock):
    phones = AlertChannel.objects.create(
        tenant=tenant,
        name="Phones",
        url=alert_receiver.url(path="/phones"),
        kinds=["PHONE_OFFLINE"],
    )
    critical = AlertChannel.objects.create(
        tenant=tenant,
        name="Pager",
        url=alert_receiver.url(path="/pager"),
        min_severity=Severity.CRITICAL,
        language="en",
    )
    raise_one(tenant, Kind.PHONE_OFFLINE, severity=Severity.WARNING)
    raise_one(tenant, Kind.SLA_BREACH, subject="review:1", severity=Severity.WARNING)
    raise_one(tenant, Kind.SLA_BREACH, subject="review:2", severity=Severity.CRITICAL)
    deliver_pending()
    got = sorted((r.path, r.json["title"]) for r in alert_receiver.received)
    assert got == [
        ("/pager", "[Critical] SLA breach, review:2"),
        ("/phones", "[Warning] Phone offline, phone:+40740000101"),
    ]
    assert phones.pk and critical.pk


def test_a_tenants_alert_never_reaches_another_tenants_channel(
    tenant, other_tenant, channel, alert_receiver, clock
):
    from tests.alert_receiver import AlertReceiver

    with AlertReceiver() as theirs:
        AlertChannel.objects.create(tenant=other_tenant, name="Theirs", url=theirs.url())
        raise_one(tenant)
        deliver_pending()
        assert theirs.received == []
    assert len(alert_receiver.received) == 1


def test_disabled_channels_get_nothing(tenant, channel, alert_receiver, clock):
    channel.enabled = False
    channel.save()
    raise_one(tenant)
    deliver_pending()
    assert alert_receiver.received == []


def test_platform_alerts_go_to_the_deployments_alert_urls(alert_receiver, settings, clock, db):
    settings.LANGUAGE_CODE = "en"  # the deployment's language (Romanian by default)
    settings.ALERT_URLS = [alert_receiver.url(scheme="form", path="/ops")]
    alert = raise_alert(None, Kind.WORKER_DOWN, "worker:host-1", "No heartbeat for 5 minutes.")
    deliver_pending()
    (received,) = alert_receiver.received
    assert received.path == "/ops" and received.content_type.startswith("application/x-www")
    assert received.form["title"] == "[Warning] Worker down, worker:host-1"
    assert f"/admin/cerniq/alert/{alert.pk}/change/" in received.form["message"]


def test_an_env_reference_is_read_at_send_time(tenant, alert_receiver, clock, monkeypatch):
    AlertChannel.objects.create(tenant=tenant, name="From env", url="env://ALERTS_OPS_HOOK")
    raise_one(tenant)
    assert deliver_pending().failed == 1  # not set yet: retried later, never lost
    assert "ALERTS_OPS_HOOK is not set" in AlertChannel.objects.get().last_error
    monkeypatch.setenv("ALERTS_OPS_HOOK", alert_receiver.url())
    clock.move_to(T0 + timedelta(minutes=1))
    assert deliver_pending().sent == 1
    assert len(alert_receiver.received) == 1


def test_an_email_channel_gets_the_notice_as_an_email(tenant, clock):
    from tests.alert_receiver import FakeSMTP

    with FakeSMTP() as smtp:
        AlertChannel.objects.create(tenant=tenant, name="E-mail", url=smtp.url(), language="en")
        raise_one(tenant, Kind.DEAD_LETTERS, subject="dead-letters", severity="CRITICAL")
        assert deliver_pending().sent == 1
    (mail,) = smtp.messages
    assert (mail["To"], mail["From"]) == ("ops@agro-nord.ro", "alerte@cerniq.ro")
    assert mail["Subject"] == "[Critical] Dead letters, dead-letters"
    text = next(p for p in mail.walk() if p.get_content_type() == "text/plain")
    assert "It stopped answering." in text.get_payload(decode=True).decode()


@responses.activate
def test_slack_gets_the_notice_as_a_slack_message(tenant, clock):
    responses.post(SLACK_HOOK, body="ok")
    AlertChannel.objects.create(tenant=tenant, name="Slack", url=SLACK_HOOK, language="en")
    raise_one(tenant, Kind.PROVIDER_AUTH, subject="provider:timelinesai", severity="CRITICAL")
    assert deliver_pending().sent == 1
    payload = json.loads(responses.calls[0].request.body)
    (attachment,) = payload["attachments"]
    assert attachment["title"] == "[Critical] Provider authentication failure, provider:timelinesai"
    assert "It stopped answering." in attachment["text"]
    assert attachment["color"] == "#A32037"  # apprise's colour for a failure


@responses.activate
def test_telegram_gets_the_notice_escaped_for_its_html_mode(tenant, clock):
    send_url = f"https://api.telegram.org/bot{TELEGRAM_TOKEN}/sendMessage"
    responses.post(send_url, json={"ok": True, "result": {}})
    AlertChannel.objects.create(
        tenant=tenant, name="Telegram", url=f"tgram://{TELEGRAM_TOKEN}/12345", language="en"
    )
    raise_one(
        tenant, Kind.WEBHOOK_FAILURE, subject="webhooks:instantly", message="got <html> & 500"
    )
    assert deliver_pending().sent == 1
    payload = json.loads(responses.calls[0].request.body)
    assert payload["chat_id"] == 12345 and payload["parse_mode"] == "HTML"
    assert "[Warning] Webhook failure, webhooks:instantly" in payload["text"]
    assert "got &lt;html&gt; &amp; 500" in payload["text"]


@responses.activate
def test_a_slack_refusal_is_recorded_without_the_token(tenant, clock, caplog):
    responses.post(SLACK_HOOK, status=404, body="no_service")
    channel = AlertChannel.objects.create(tenant=tenant, name="Slack", url=SLACK_HOOK)
    raise_one(tenant)
    with caplog.at_level(logging.DEBUG):
        assert deliver_pending().failed == 1
    channel.refresh_from_db()
    for text in (caplog.text, channel.last_error):
        assert "TIiajkdnlazkcOXrIdevi7FQ" not in text and "T1JJ3T3L2" not in text
    assert "slack://T...2/A...D/T...Q" in caplog.text


def test_the_fast_path_is_enqueued_when_the_alert_opens_and_resolves(
    tenant, channel, alert_receiver, django_capture_on_commit_callbacks, monkeypatch
):
    sent: list[tuple] = []
    monkeypatch.setattr(notify_alert, "send", lambda *args: sent.append(("one", *args)))
    monkeypatch.setattr(deliver_alert_notifications, "send", lambda: sent.append(("all",)))
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        alert = raise_one(tenant)
        raise_one(tenant)  # a second occurrence enqueues nothing more
    assert sent == [] and len(callbacks) == 1  # nothing before the commit
    callbacks[0]()
    assert sent == [("one", alert.pk)]
    with django_capture_on_commit_callbacks(execute=True):
        resolve_alerts(tenant, Kind.PHONE_OFFLINE, "phone:+40740000101")
        resolve_alerts(tenant, Kind.PHONE_OFFLINE, "phone:+40740000101")  # nothing left
    assert sent == [("one", alert.pk), ("all",)]


@pytest.mark.django_db(transaction=True)
def test_a_worker_sends_the_notice_as_soon_as_the_alert_opens(alert_receiver):
    tenant = make_tenant()
    AlertChannel.objects.create(tenant=tenant, name="Ops", url=alert_receiver.url())
    with running_workers():
        with transaction.atomic():
            raise_one(tenant)
        wait_until(lambda: alert_receiver.received, timeout=30, what="the notice")
    assert Alert.objects.get().notified_at is not None
    assert len(alert_receiver.received) == 1


def test_deliver_alert_sends_only_what_that_alert_owes(tenant, channel, alert_receiver, clock):
    first = raise_one(tenant, subject="phone:1")
    raise_one(tenant, subject="phone:2")
    assert deliver_alert(first.pk).sent == 1
    assert deliver_alert(first.pk).sent == 0  # done; a redelivered message changes nothing
    assert alert_receiver.titles() == ["[Warning] Phone offline, phone:1"]


def test_a_claimed_alert_is_not_taken_by_a_second_worker(tenant, channel, clock):
    alert = raise_one(tenant)
    assert notifications._claim(alert.pk, T0)
    assert not notifications._claim(alert.pk, T0)
    assert deliver_pending().alerts == 0
    # A worker that died holding it: after CLAIM_FOR another one takes over.
    assert notifications._claim(alert.pk, T0 + notifications.CLAIM_FOR)


@pytest.mark.django_db(transaction=True)
def test_two_workers_running_at_once_send_each_notice_once(alert_receiver):
    tenant = make_tenant()
    AlertChannel.objects.create(tenant=tenant, name="Ops", url=alert_receiver.url())
    for n in range(5):
        raise_one(tenant, subject=f"phone:{n}")
    alert_receiver.delay = 0.1  # both runs are inside their sends at the same time
    run_at_once(2, deliver_pending)  # fails on an error in either run
    assert sorted(alert_receiver.titles()) == [
        f"[Warning] Phone offline, phone:{n}" for n in range(5)
    ]


def test_send_test_reports_success_and_failure(tenant, channel, alert_receiver):
    assert notifications.send_test(channel) == ""
    (received,) = alert_receiver.received
    assert received.json["title"] == "Test notification from Cerniq Outreach"
    assert "“Ops webhook” works" in received.json["message"]
    alert_receiver.status = 500
    assert notifications.send_test(channel)
    channel.refresh_from_db()
    assert channel.last_error and channel.last_sent_at is not None


def test_the_acknowledging_user_is_kept(tenant, operator):
    alert = raise_one(tenant)
    someone = make_user(tenant)
    acknowledge(Alert.objects.filter(pk=alert.pk), operator)
    acknowledge(Alert.objects.filter(pk=alert.pk), someone)  # already acknowledged: kept
    alert.refresh_from_db()
    assert alert.acknowledged_by == operator and alert.acknowledged_at is not None


def test_a_channel_in_romanian_gets_romanian_notices(tenant, alert_receiver, clock, settings):
    settings.LANGUAGE_CODE = "ro"  # the deployment's default: new channels take it
    channel = AlertChannel.objects.create(tenant=tenant, name="Birou", url=alert_receiver.url())
    assert channel.language == "ro"
    raise_one(tenant, severity=Severity.CRITICAL)
    deliver_pending()
    (received,) = alert_receiver.received
    assert received.json["title"] == "[Critic] Telefon deconectat, phone:+40740000101"
