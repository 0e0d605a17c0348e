"""The phones page and its actions: tenant scoping, CSRF, status changes, alerts."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from cerniq.models import Alert
from outreach.models import Message
from tests.factories import make_lead, make_message, make_phone
from whatsapp.models import Phone, QuotaUsage

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
    for _ in range(5):
        make_phone(tenant)
    with CaptureQueriesContext(connection) as small:
        client.get("/outreach/phones/")
    for _ in range(45):
        phone = make_phone(tenant)
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


def test_next_slot_and_last_send(client, operator, tenant):
    soon = timezone.localtime(timezone.now() + timedelta(minutes=3))
    last = timezone.localtime(timezone.now() - timedelta(minutes=1))
    busy = make_phone(tenant, number="+40740000001", next_send_at=soon, last_sent_at=last)
    make_phone(tenant, number="+40740000002", status=Phone.Status.PAUSED, next_send_at=soon)
    client.force_login(operator)
    html = client.get("/outreach/phones/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    card = html[html.index(f'data-phone="{busy.number}"') : html.index('data-phone="+40740000002"')]
    assert f"<dt>Next slot</dt><dd>{soon:%d.%m %H:%M}</dd>" in card
    assert f"<dt>Last send</dt><dd>{last:%d.%m %H:%M}</dd>" in card
    paused = html[html.index('data-phone="+40740000002"') :]
    assert "<dt>Next slot</dt><dd>—</dd>" in paused
