"""The outgoing webhooks page (/outreach/webhooks/): admins only, tenant isolation, CSRF,
the secret shown once, the actions, the recent deliveries with their last response."""

from __future__ import annotations

import pytest
from django.test import Client
from svix.webhooks import Webhook

from cerniq.models import WebhookDelivery, WebhookEndpoint
from cerniq.outbound import endpoints, events
from cerniq.outbound.delivery import deliver
from tests.factories import make_user, make_webhook_endpoint

URL = "/outreach/webhooks/"
Status = WebhookDelivery.Status


@pytest.fixture(autouse=True)
def local_receivers_allowed(settings):
    settings.OUTBOUND_ALLOW_LOCAL_TARGETS = True


@pytest.fixture
def admin_web(tenant) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(make_user(tenant, role="ADMIN"))
    return client


def test_only_admins_manage_webhooks_and_login_and_csrf_are_needed(client, operator, tenant):
    mine = make_webhook_endpoint(tenant)
    assert Client().get(URL).status_code == 302  # anonymous: to the login page
    client.force_login(operator)
    assert client.get(URL).status_code == 403
    assert (
        client.post(URL, {"url": "https://x.example.com", "events": ["lead.replied"]}).status_code
        == 403
    )
    assert client.post(f"{URL}{mine.pk}/delete/").status_code == 403
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(make_user(tenant, role="ADMIN"))
    assert strict.post(f"{URL}{mine.pk}/delete/").status_code == 403
    assert WebhookEndpoint.objects.filter(pk=mine.pk).exists()


def test_another_tenants_endpoints_and_deliveries_are_invisible_and_404(
    admin_web, tenant, other_tenant
):
    theirs = make_webhook_endpoint(other_tenant, url="https://theirs.example.com/secret-hook")
    events.emit(other_tenant.pk, "lead.replied", {"lead_id": 1})
    row = WebhookDelivery.objects.get()
    page = admin_web.get(URL).content.decode()
    assert "theirs.example.com" not in page and row.event_id not in page
    assert admin_web.get(f"{URL}{theirs.pk}/").status_code == 404
    for action in ("test", "enable", "disable", "rotate", "delete"):
        assert admin_web.post(f"{URL}{theirs.pk}/{action}/").status_code == 404
    assert admin_web.post(f"{URL}deliveries/{row.pk}/redeliver/").status_code == 404
    theirs.refresh_from_db()
    assert theirs.enabled


def test_adding_an_endpoint_shows_its_secret_once(admin_web, tenant):
    response = admin_web.post(
        URL,
        {"url": "https://hooks.example.com/cerniq", "events": ["lead.replied", "review.created"]},
    )
    assert response.status_code == 200
    endpoint = WebhookEndpoint.objects.get(tenant=tenant)
    assert endpoint.secret.startswith("whsec_") and endpoint.events == [
        "lead.replied",
        "review.created",
    ]
    assert endpoint.secret in response.content.decode()
    later = admin_web.get(URL).content.decode()
    assert endpoint.secret not in later
    assert endpoints.masked_secret(endpoint.secret) in later


@pytest.mark.parametrize(
    ("data", "field", "problem"),
    [
        ({"url": "ftp://hooks.example.com", "events": ["lead.replied"]}, "url", "https://"),
        ({"url": "https://hooks.example.com", "events": []}, "events", "required"),
        ({"url": "https://hooks.example.com", "events": ["lead.exploded"]}, "events", "valid"),
    ],
)
def test_a_bad_endpoint_names_the_field_and_saves_nothing(admin_web, data, field, problem):
    response = admin_web.post(URL, data)
    assert response.status_code == 200
    assert problem in " ".join(response.context["form"].errors[field])
    assert not WebhookEndpoint.objects.exists()


def test_production_refuses_a_private_url_on_the_form(admin_web, settings):
    settings.OUTBOUND_ALLOW_LOCAL_TARGETS = False
    response = admin_web.post(URL, {"url": "https://169.254.169.254/", "events": ["lead.replied"]})
    assert "not resolve to a public Internet address" in " ".join(
        response.context["form"].errors["url"]
    )
    assert not WebhookEndpoint.objects.exists()


def test_the_test_event_rotate_disable_enable_delete(admin_web, tenant, alert_receiver):
    endpoint = make_webhook_endpoint(tenant, url=alert_receiver.url("http", "/in"))
    response = admin_web.post(f"{URL}{endpoint.pk}/test/", follow=True)
    assert "Test event delivered" in response.content.decode()
    (received,) = alert_receiver.received
    assert received.json["type"] == "webhook.test"
    Webhook(endpoint.secret).verify(received.body, received.headers)

    old = endpoint.secret
    response = admin_web.post(f"{URL}{endpoint.pk}/rotate/")
    endpoint.refresh_from_db()
    assert endpoint.secret != old and endpoint.secret in response.content.decode()

    alert_receiver.status = 500
    response = admin_web.post(f"{URL}{endpoint.pk}/test/", follow=True)
    assert "HTTP 500" in response.content.decode()

    admin_web.post(f"{URL}{endpoint.pk}/disable/")
    endpoint.refresh_from_db()
    assert not endpoint.enabled
    assert events.emit(tenant.pk, "lead.replied", {"lead_id": 1}) == []
    response = admin_web.post(f"{URL}{endpoint.pk}/test/", follow=True)
    assert "Enable the endpoint first" in response.content.decode()
    assert len(alert_receiver.received) == 2
    admin_web.post(f"{URL}{endpoint.pk}/enable/")
    endpoint.refresh_from_db()
    assert endpoint.enabled
    admin_web.post(f"{URL}{endpoint.pk}/delete/")
    assert not WebhookEndpoint.objects.exists()


def test_recent_deliveries_show_status_attempts_and_the_last_response_and_redeliver(
    admin_web, tenant, alert_receiver
):
    make_webhook_endpoint(tenant, url=alert_receiver.url("http", "/in"))
    alert_receiver.status = 422
    (delivery_id,) = events.emit(tenant.pk, "lead.replied", {"lead_id": 1})
    deliver(delivery_id)
    page = admin_web.get(URL).content.decode()
    row = WebhookDelivery.objects.get()
    assert row.event_id in page and "HTTP 422" in page and "Pending" in page
    WebhookDelivery.objects.filter(pk=row.pk).update(status=Status.FAILED, next_attempt_at=None)
    assert admin_web.post(f"{URL}deliveries/{row.pk}/redeliver/").status_code == 302
    row.refresh_from_db()
    assert (row.status, row.attempts) == (Status.PENDING, 0)


def test_a_test_event_to_a_private_address_is_refused_and_the_page_says_why(
    admin_web, tenant, alert_receiver, settings
):
    endpoint = make_webhook_endpoint(tenant, url=f"https://127.0.0.1:{alert_receiver.port}/in")
    settings.OUTBOUND_ALLOW_LOCAL_TARGETS = False  # saved before; production rule now
    page = admin_web.post(f"{URL}{endpoint.pk}/test/", follow=True).content.decode()
    refused = "127.0.0.1 does not resolve to a public Internet address"
    assert f"failed: {refused}" in page
    assert page.count(refused) == 2  # the message, and the delivery's last error
    assert "platform.destination_refused" not in page  # the reason, never its code
    assert alert_receiver.received == []
