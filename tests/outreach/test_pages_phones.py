"""The phones page and its actions: tenant scoping, CSRF, status changes, alerts."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from cerniq.models import Alert
from outreach.models import Message
from tests.factories import make_lead, make_message, make_phone, make_user
from whatsapp.models import Phone, QuotaUsage, WarmupPlan

pytestmark = pytest.mark.django_db


def test_cards_show_own_phones_with_quota_sends_and_alerts(client, operator, tenant, other_tenant):
    phone = make_phone(tenant, number="+40740000001", label="Iași 1")
    quiet = make_phone(tenant, number="+40740000002")
    theirs = make_phone(other_tenant, number="+40740000999")
    QuotaUsage.objects.create(tenant=tenant, phone=phone, day=timezone.localdate(), used=12)
    lead = make_lead(tenant)
    now = timezone.now()
    for _ in range(3):
        make_message(lead, phone=phone, status=Message.Status.SENT, sent_at=now)
    Alert.objects.create(
        tenant=tenant,
        kind=Alert.Kind.PHONE_OFFLINE,
        subject="phone:+40740000001",
        message="Offline since 9",
    )
    Alert.objects.create(
        tenant=tenant,
        kind=Alert.Kind.PHONE_OFFLINE,
        subject="phone:+40740000001",
        message="Old and resolved",
        resolved_at=now - timedelta(hours=1),
    )
    Alert.objects.create(
        tenant=other_tenant,
        kind=Alert.Kind.PHONE_OFFLINE,
        subject="phone:+40740000001",
        message="Not yours",
    )
    client.force_login(operator)
    response = client.get("/outreach/phones/", HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200
    html = response.content.decode()
    assert tenant.name in html
    assert phone.number in html and quiet.number in html and "Iași 1" in html
    assert theirs.number not in html
    card = html[html.index('data-phone="+40740000001"') : html.index('data-phone="+40740000002"')]
    assert "12/200" in card
    assert "data-sends-today>3<" in card
    assert "Offline since 9" in card
    assert "Old and resolved" not in html and "Not yours" not in html


def test_query_count_does_not_grow(client, operator, tenant):
    client.force_login(operator)
    make_phone(tenant, warmup_started_at=timezone.now())  # one warming: the ramp is read
    for _ in range(4):
        make_phone(tenant)
    with CaptureQueriesContext(connection) as small:
        client.get("/outreach/phones/")
    for i in range(45):
        phone = make_phone(
            tenant,
            warmup_started_at=timezone.now() if i % 2 else None,
            health=Phone.Health.THROTTLED if i % 3 else Phone.Health.OK,
        )
        Alert.objects.create(
            tenant=tenant,
            kind=Alert.Kind.PHONE_OFFLINE,
            subject=f"phone:{phone.number}",
            message="x",
        )
    with CaptureQueriesContext(connection) as large:
        html = client.get("/outreach/phones/").content.decode()
    assert html.count("phone-card") >= 50
    assert len(large) == len(small)


@pytest.mark.parametrize(
    ("start", "action", "field", "expected"),
    [
        ({"is_enabled": False}, "enable", "is_enabled", True),
        ({}, "disable", "is_enabled", False),
        ({}, "pause", "status", Phone.Status.PAUSED),
        ({"status": Phone.Status.PAUSED}, "resume", "status", Phone.Status.ACTIVE),
    ],
)
def test_actions_change_the_phone(client, operator, tenant, start, action, field, expected):
    phone = make_phone(tenant, **start)
    client.force_login(operator)
    response = client.post(f"/outreach/phones/{phone.pk}/{action}/")
    assert response.status_code == 302
    assert response["Location"] == "/outreach/phones/"
    phone.refresh_from_db()
    assert getattr(phone, field) == expected
    page = client.get("/outreach/phones/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'class="msg msg-success"' in page


def test_resume_refuses_a_banned_phone(client, operator, tenant):
    phone = make_phone(tenant, status=Phone.Status.BANNED)
    client.force_login(operator)
    response = client.post(f"/outreach/phones/{phone.pk}/resume/", follow=True)
    phone.refresh_from_db()
    assert phone.status == Phone.Status.BANNED
    assert 'class="msg msg-error"' in response.content.decode()


@pytest.mark.parametrize("action", ["enable", "disable", "pause", "resume"])
def test_another_tenants_phone_is_404(client, operator, other_tenant, action):
    theirs = make_phone(other_tenant, status=Phone.Status.PAUSED, is_enabled=False)
    client.force_login(operator)
    assert client.post(f"/outreach/phones/{theirs.pk}/{action}/").status_code == 404
    fresh = Phone.objects.get(pk=theirs.pk)
    assert (fresh.status, fresh.is_enabled) == (Phone.Status.PAUSED, False)


def test_unknown_action_and_get_are_refused(client, operator, tenant):
    phone = make_phone(tenant)
    client.force_login(operator)
    assert client.post(f"/outreach/phones/{phone.pk}/ban/").status_code == 404
    assert client.get(f"/outreach/phones/{phone.pk}/disable/").status_code == 405
    phone.refresh_from_db()
    assert phone.is_enabled


def test_anonymous_action_goes_to_login(client, tenant):
    phone = make_phone(tenant)
    response = client.post(f"/outreach/phones/{phone.pk}/disable/")
    assert response.status_code == 302 and response["Location"].startswith("/login/")
    phone.refresh_from_db()
    assert phone.is_enabled


def test_post_without_csrf_token_is_refused(operator, tenant):
    phone = make_phone(tenant)
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(operator)
    assert strict.post(f"/outreach/phones/{phone.pk}/disable/").status_code == 403
    phone.refresh_from_db()
    assert phone.is_enabled


def test_post_with_csrf_token_from_the_page_works(operator, tenant):
    phone = make_phone(tenant)
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(operator)
    strict.get("/outreach/phones/")
    token = strict.cookies["csrftoken"].value
    response = strict.post(f"/outreach/phones/{phone.pk}/disable/", {"csrfmiddlewaretoken": token})
    assert response.status_code == 302
    phone.refresh_from_db()
    assert not phone.is_enabled


@time_machine.travel(datetime(2026, 11, 25, 10, 0, tzinfo=UTC), tick=False)  # a Wednesday
def test_next_slot_and_last_send(client, operator, tenant):
    soon = timezone.localtime(timezone.now() + timedelta(minutes=3))
    last = timezone.localtime(timezone.now() - timedelta(minutes=1))
    busy = make_phone(tenant, number="+40740000001", next_send_at=soon, last_sent_at=last)
    make_phone(tenant, number="+40740000002", status=Phone.Status.PAUSED, next_send_at=soon)
    client.force_login(operator)
    html = client.get("/outreach/phones/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    card = html[html.index(f'data-phone="{busy.number}"') : html.index('data-phone="+40740000002"')]
    assert 'data-next-send="2026-11-25T10:03:00+00:00" data-reason="pacing"' in card
    assert "Wed 25 Nov 12:03</span>" in card  # Bucharest is UTC+2 in November
    assert "<dt>Last send</dt><dd>25/11/2026, 11:59</dd>" in card
    paused = html[html.index('data-phone="+40740000002"') :]
    assert 'data-next-send="never" data-reason="phone_paused" title="The number is paused.">—' in (
        paused
    )


# --- warm-up, health, the ramp form ---------------------------------------------------------


def card_of(html: str, number: str) -> str:
    start = html.index(f'data-phone="{number}"')
    end = html.find("</article>", start)
    return html[start:end]


def test_cards_show_warm_up_day_health_and_the_guards_reason(client, operator, tenant):
    warming = make_phone(tenant, number="+40740000001", warmup_started_at=timezone.now())
    throttled = make_phone(
        tenant,
        number="+40740000002",
        health=Phone.Health.THROTTLED,
        health_score=64,
        health_reason="health 64/100: 3 sends failed in a row",
    )
    rested = make_phone(
        tenant,
        number="+40740000003",
        status=Phone.Status.PAUSED,
        status_reason="health 38/100: 41% of first messages undelivered",
        health=Phone.Health.PAUSED,
        health_score=38,
        health_reason="health 38/100: 41% of first messages undelivered",
    )
    client.force_login(operator)
    html = client.get("/outreach/phones/").content.decode()
    card = card_of(html, warming.number)
    assert "<dd data-warmup-day>day 1 of 14: 20 a day</dd>" in card and "0/20" in card
    assert "<dd data-health>—</dd>" in card  # not scored yet
    card = card_of(html, throttled.number)
    assert "Throttled" in card and "0/100" in card  # half of 200
    assert "<dd data-health>64/100 · Throttled</dd>" in card
    assert "health 64/100: 3 sends failed in a row" in card
    card = card_of(html, rested.number)
    assert "Paused by the health guard" in card
    assert card.count("41% of first messages undelivered") == 1  # the reason, once


def test_a_banned_phone_can_be_reactivated_and_warms_up(client, operator, tenant):
    phone = make_phone(tenant, status=Phone.Status.BANNED)
    client.force_login(operator)
    html = client.get("/outreach/phones/").content.decode()
    assert f"/outreach/phones/{phone.pk}/reactivate/" in html
    response = client.post(f"/outreach/phones/{phone.pk}/reactivate/", follow=True)
    phone.refresh_from_db()
    assert phone.status == Phone.Status.ACTIVE and phone.warmup_started_at is not None
    assert "warms up from day 1" in response.content.decode()
    again = client.post(f"/outreach/phones/{phone.pk}/reactivate/", follow=True)
    assert "Only a banned phone can be reactivated." in again.content.decode()


def test_the_quota_alert_is_shown_on_the_page(client, operator, tenant, other_tenant):
    for owner, text in ((tenant, "ours: 95 of 100"), (other_tenant, "theirs: 99 of 100")):
        Alert.objects.create(
            tenant=owner, kind=Alert.Kind.QUOTA_EXHAUSTED, subject="quota:whatsapp", message=text
        )
    client.force_login(operator)
    html = client.get("/outreach/phones/").content.decode()
    assert "ours: 95 of 100" in html and "theirs" not in html


def test_an_admin_changes_the_ramp_and_todays_limits_follow(client, tenant):
    from whatsapp import quota

    admin = make_user(tenant, role="ADMIN")
    warming = make_phone(tenant, warmup_started_at=timezone.now())
    quota.reserve_new_contact(warming, quota.quota_day(tenant))
    client.force_login(admin)
    page = client.get("/outreach/phones/").content.decode()
    assert 'value="1:20, 3:40, 5:60, 7:90, 9:120, 11:160, 14:200"' in page
    response = client.post("/outreach/phones/warmup/", {"steps": "1:10, 4:60, 10:200"})
    assert response.status_code == 302
    assert WarmupPlan.objects.get(tenant=tenant).steps == [[1, 10], [4, 60], [10, 200]]
    assert QuotaUsage.objects.get(phone=warming).limit == 10
    page = client.get("/outreach/phones/").content.decode()
    assert "Warm-up ramp saved: 1:10, 4:60, 10:200." in page
    assert 'value="1:10, 4:60, 10:200"' in page


def test_a_bad_ramp_is_refused_with_the_reason_and_changes_nothing(client, tenant):
    admin = make_user(tenant, role="ADMIN")
    client.force_login(admin)
    response = client.post("/outreach/phones/warmup/", {"steps": "1:50, 3:40, 9:150"})
    assert response.status_code == 200
    html = response.content.decode()
    assert "Step 2: the limit must grow (40 is not above 50)." in html
    assert "The last step must reach the full 200 new contacts a day" in html
    assert 'value="1:50, 3:40, 9:150"' in html  # what was typed stays, to be fixed
    assert not WarmupPlan.objects.exists()


def test_only_an_admin_may_change_the_ramp(client, operator, tenant):
    client.force_login(operator)
    html = client.get("/outreach/phones/").content.decode()
    assert "/outreach/phones/warmup/" not in html
    assert "<span data-ramp>1:20, 3:40, 5:60, 7:90, 9:120, 11:160, 14:200</span>" in html
    assert client.post("/outreach/phones/warmup/", {"steps": "1:200"}).status_code == 403
    assert not WarmupPlan.objects.exists()


def test_the_ramp_form_needs_a_csrf_token_and_a_login(tenant):
    admin = make_user(tenant, role="ADMIN")
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(admin)
    assert strict.post("/outreach/phones/warmup/", {"steps": "1:200"}).status_code == 403
    anonymous = Client().post("/outreach/phones/warmup/", {"steps": "1:200"})
    assert anonymous.status_code == 302 and anonymous["Location"].startswith("/login/")
    assert not WarmupPlan.objects.exists()


def test_each_tenant_edits_its_own_ramp(client, tenant, other_tenant):
    admin = make_user(tenant, role="ADMIN")
    client.force_login(admin)
    client.post("/outreach/phones/warmup/", {"steps": "1:30, 5:200"})
    assert list(WarmupPlan.objects.values_list("tenant_id", flat=True)) == [tenant.pk]
