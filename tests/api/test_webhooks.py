"""The webhook subscription endpoints: tenant scoping, admins only, the secret shown once,
URL and event checks naming the field, enable/disable keeping what is owed, rotate, the
test event to a local receiver, deliveries with their last response, redeliver."""

from __future__ import annotations

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient
from svix.webhooks import Webhook

from cerniq.models import WebhookDelivery, WebhookEndpoint
from cerniq.outbound import delivery, endpoints, events
from tests.factories import make_user, make_webhook_endpoint

HOOKS = "/api/v1/webhooks/"
DELIVERIES = "/api/v1/webhook-deliveries/"
Status = WebhookDelivery.Status


@pytest.fixture(autouse=True)
def local_receivers_allowed(settings):
    settings.OUTBOUND_ALLOW_LOCAL_TARGETS = True


def owe(tenant, event_type="lead.replied") -> list[WebhookDelivery]:
    """The event, owed to every endpoint of `tenant` that takes it (as emitted in a change)."""
    with transaction.atomic():
        ids = events.emit(tenant.pk, event_type, {"lead_id": 7})
    return list(WebhookDelivery.objects.filter(pk__in=ids))


def owe_one(tenant, event_type="lead.replied") -> WebhookDelivery:
    (row,) = owe(tenant, event_type)
    return row


def test_every_webhook_endpoint_needs_a_key(anonymous, tenant):
    endpoint = make_webhook_endpoint(tenant)
    row = owe_one(tenant)
    for method, url in [
        ("get", HOOKS),
        ("post", HOOKS),
        ("get", f"{HOOKS}events/"),
        ("patch", f"{HOOKS}{endpoint.pk}/"),
        ("delete", f"{HOOKS}{endpoint.pk}/"),
        ("post", f"{HOOKS}{endpoint.pk}/rotate-secret/"),
        ("get", DELIVERIES),
        ("post", f"{DELIVERIES}{row.pk}/redeliver/"),
    ]:
        response = getattr(anonymous, method)(url)
        assert response.status_code == 401, (method, url)
        assert response.json()["error"]["code"] == "not_authenticated"
    assert WebhookEndpoint.objects.filter(pk=endpoint.pk).exists()


@pytest.mark.parametrize(
    ("method", "suffix"),
    [("get", ""), ("patch", ""), ("delete", ""), ("post", "rotate-secret/"), ("post", "test/")],
)
def test_another_tenants_endpoint_is_404_and_unchanged(api, other_tenant, method, suffix):
    theirs = make_webhook_endpoint(other_tenant)
    response = getattr(api, method)(f"{HOOKS}{theirs.pk}/{suffix}", {"enabled": False})
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    after = WebhookEndpoint.objects.get(pk=theirs.pk)
    assert (after.enabled, after.secret) == (True, theirs.secret)
    assert not WebhookDelivery.objects.exists()


def test_another_tenants_deliveries_are_neither_listed_nor_redelivered(api, other_tenant):
    make_webhook_endpoint(other_tenant)
    theirs = owe_one(other_tenant)
    WebhookDelivery.objects.filter(pk=theirs.pk).update(status=Status.FAILED)
    assert api.get(DELIVERIES).json()["results"] == []
    assert api.get(f"{DELIVERIES}{theirs.pk}/").status_code == 404
    assert api.post(f"{DELIVERIES}{theirs.pk}/redeliver/").status_code == 404
    assert WebhookDelivery.objects.get(pk=theirs.pk).status == Status.FAILED


def test_a_read_key_lists_but_cannot_change_anything(read_api, tenant):
    endpoint = make_webhook_endpoint(tenant)
    row = owe_one(tenant)
    assert read_api.get(HOOKS).status_code == 200
    assert read_api.get(f"{DELIVERIES}{row.pk}/").status_code == 200
    for method, url in [
        ("post", HOOKS),
        ("patch", f"{HOOKS}{endpoint.pk}/"),
        ("delete", f"{HOOKS}{endpoint.pk}/"),
        ("post", f"{HOOKS}{endpoint.pk}/rotate-secret/"),
        ("post", f"{HOOKS}{endpoint.pk}/test/"),
        ("post", f"{DELIVERIES}{row.pk}/redeliver/"),
    ]:
        response = getattr(read_api, method)(url, {"enabled": False}, format="json")
        assert response.status_code == 403, (method, url)
    after = WebhookEndpoint.objects.get(pk=endpoint.pk)
    assert (after.enabled, after.secret) == (True, endpoint.secret)
    assert WebhookEndpoint.objects.count() == 1


def test_only_a_signed_in_admin_sees_or_changes_endpoints(tenant, tenant_admin):
    """As on the page: receiver URLs often carry a token."""
    endpoint = make_webhook_endpoint(tenant)
    operator = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    operator.force_login(make_user(tenant))
    assert operator.get(HOOKS).status_code == 403
    assert operator.get(DELIVERIES).status_code == 403
    refused = operator.patch(f"{HOOKS}{endpoint.pk}/", {"enabled": False}, format="json")
    assert refused.status_code == 403
    assert refused.json()["error"]["message"] == "Only the workspace's admins manage webhooks."
    assert WebhookEndpoint.objects.get(pk=endpoint.pk).enabled

    admin = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    admin.force_login(tenant_admin)
    assert admin.get(HOOKS).json()["results"][0]["url"] == endpoint.url
    allowed = admin.patch(f"{HOOKS}{endpoint.pk}/", {"enabled": False}, format="json")
    assert allowed.status_code == 200
    assert not WebhookEndpoint.objects.get(pk=endpoint.pk).enabled


def test_create_shows_the_secret_once_and_masks_it_afterwards(api, tenant):
    response = api.post(
        HOOKS,
        {
            "url": " https://crm.example.ro/hooks/cerniq ",
            "description": "CRM",
            "events": ["lead.replied", "lead.opted_out", "lead.replied"],
        },
        format="json",
    )
    assert response.status_code == 201, response.json()
    created = response.json()
    endpoint = WebhookEndpoint.objects.get(pk=created["id"])
    assert endpoint.tenant == tenant
    assert endpoint.url == "https://crm.example.ro/hooks/cerniq"
    assert endpoint.events == ["lead.replied", "lead.opted_out"]
    assert endpoint.enabled
    assert created["secret"] == endpoint.secret and endpoint.secret.startswith("whsec_")

    shown = api.get(f"{HOOKS}{endpoint.pk}/").json()
    assert shown["secret"] == endpoints.masked_secret(endpoint.secret)
    assert endpoint.secret not in str(api.get(HOOKS).json())


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"url": "ftp://crm.example.ro/x", "events": ["lead.replied"]}, "url"),
        ({"url": "https://user:pw@crm.example.ro/x", "events": ["lead.replied"]}, "url"),
        ({"url": "https://crm.example.ro/x", "events": ["lead.sold"]}, "events.0"),
        ({"url": "https://crm.example.ro/x", "events": []}, "events"),
        ({"url": "https://crm.example.ro/x", "events": "lead.replied"}, "events"),
        ({"events": ["lead.replied"]}, "url"),
        (
            {"url": "https://crm.example.ro/x", "events": ["lead.replied"], "enabled": "x"},
            "enabled",
        ),
    ],
)
def test_a_bad_endpoint_is_a_400_naming_the_field_and_creates_nothing(api, body, field):
    response = api.post(HOOKS, body, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid"
    assert field in error["fields"], error
    assert not WebhookEndpoint.objects.exists()


def test_a_private_address_is_refused_in_production(api, settings):
    settings.OUTBOUND_ALLOW_LOCAL_TARGETS = False
    response = api.post(
        HOOKS, {"url": "https://127.0.0.1/hooks", "events": ["lead.replied"]}, format="json"
    )
    assert response.status_code == 400
    assert (
        "not resolve to a public Internet address" in response.json()["error"]["fields"]["url"][0]
    )
    assert not WebhookEndpoint.objects.exists()


def test_a_delivery_refused_by_the_guard_says_why_in_words(api, tenant, settings):
    endpoint = make_webhook_endpoint(tenant, url="https://10.0.0.7/hooks")
    row = owe_one(tenant)
    settings.OUTBOUND_ALLOW_LOCAL_TARGETS = False
    assert delivery.deliver(row.pk) == Status.PENDING
    (shown,) = api.get(DELIVERIES, {"endpoint": endpoint.pk}).json()["results"]
    assert shown["last_status_code"] is None
    assert shown["last_error"] == (
        "10.0.0.7 does not resolve to a public Internet address: the server does not connect to it."
    )


def test_disabling_holds_what_is_owed_and_enabling_sends_it(api, tenant, alert_receiver):
    endpoint = make_webhook_endpoint(tenant, url=alert_receiver.url("http", "/hooks"))
    owed = owe_one(tenant)
    off = api.patch(f"{HOOKS}{endpoint.pk}/", {"enabled": False}, format="json").json()
    assert (off["enabled"], off["disabled_reason"]) == (False, "disabled by an operator")
    assert delivery.deliver_due() == 0
    with transaction.atomic():  # while disabled it is subscribed to nothing
        assert events.emit(tenant.pk, "lead.replied", {"lead_id": 8}) == []
    assert alert_receiver.received == []

    on = api.patch(f"{HOOKS}{endpoint.pk}/", {"enabled": True}, format="json").json()
    assert (on["enabled"], on["disabled_reason"]) == (True, "")
    assert delivery.deliver_due() == 1
    (received,) = alert_receiver.received
    assert received.headers["webhook-id"] == owed.event_id


def test_update_changes_url_and_events_and_checks_them(api, tenant):
    endpoint = make_webhook_endpoint(tenant)
    changed = api.patch(
        f"{HOOKS}{endpoint.pk}/",
        {"url": "https://bi.example.ro/in", "events": ["review.created", "message.failed"]},
        format="json",
    )
    assert changed.status_code == 200
    endpoint.refresh_from_db()
    assert endpoint.url == "https://bi.example.ro/in"
    assert endpoint.events == ["review.created", "message.failed"]
    refused = api.patch(f"{HOOKS}{endpoint.pk}/", {"events": ["nope"]}, format="json")
    assert refused.status_code == 400 and "events.0" in refused.json()["error"]["fields"]
    endpoint.refresh_from_db()
    assert endpoint.events == ["review.created", "message.failed"]
    assert api.put(f"{HOOKS}{endpoint.pk}/", {}, format="json").status_code == 405


def test_rotate_returns_a_new_secret_that_signs_the_next_delivery(api, tenant, alert_receiver):
    endpoint = make_webhook_endpoint(tenant, url=alert_receiver.url("http", "/hooks"))
    old = endpoint.secret
    rotated = api.post(f"{HOOKS}{endpoint.pk}/rotate-secret/").json()
    assert rotated["secret"] != old and rotated["secret"].startswith("whsec_")
    assert WebhookEndpoint.objects.get(pk=endpoint.pk).secret == rotated["secret"]

    tested = api.post(f"{HOOKS}{endpoint.pk}/test/")
    assert tested.status_code == 200
    assert tested.json()["status"] == Status.DELIVERED
    assert tested.json()["event_type"] == events.TEST_EVENT
    (received,) = alert_receiver.received
    Webhook(rotated["secret"]).verify(received.body, received.headers)
    with pytest.raises(Exception, match="signature"):
        Webhook(old).verify(received.body, received.headers)


def test_a_test_event_shows_what_a_failing_receiver_said(api, tenant, alert_receiver):
    alert_receiver.status = 500
    endpoint = make_webhook_endpoint(tenant, url=alert_receiver.url("http", "/hooks"))
    shown = api.post(f"{HOOKS}{endpoint.pk}/test/").json()
    assert (shown["status"], shown["attempts"], shown["last_status_code"]) == (
        Status.PENDING,
        1,
        500,
    )
    assert shown["next_attempt_at"] is not None
    assert shown["last_response_excerpt"] == "ok"

    endpoints.set_enabled(endpoint, False)
    refused = api.post(f"{HOOKS}{endpoint.pk}/test/")
    assert refused.status_code == 409
    assert refused.json()["error"]["code"] == "endpoint_disabled"


def test_delete_removes_the_endpoint_and_what_it_was_owed(api, tenant):
    endpoint = make_webhook_endpoint(tenant)
    owe_one(tenant)
    assert api.delete(f"{HOOKS}{endpoint.pk}/").status_code == 204
    assert not WebhookEndpoint.objects.exists() and not WebhookDelivery.objects.exists()
    assert api.delete(f"{HOOKS}{endpoint.pk}/").status_code == 404


def test_the_event_catalogue_lists_every_subscribable_event(read_api):
    listed = read_api.get(f"{HOOKS}events/").json()
    assert [item["type"] for item in listed] == list(events.EVENTS)
    assert all(item["description"] for item in listed)


def test_deliveries_filter_by_endpoint_status_and_event(api, tenant):
    crm = make_webhook_endpoint(tenant, events=["lead.replied", "review.created"])
    bi = make_webhook_endpoint(tenant, url="https://bi.example.ro/in", events=["review.created"])
    replied = owe_one(tenant, "lead.replied")
    owe(tenant, "review.created")
    WebhookDelivery.objects.filter(pk=replied.pk).update(status=Status.FAILED)

    def ids(query: str) -> set[int]:
        response = api.get(f"{DELIVERIES}?{query}")
        assert response.status_code == 200, response.json()
        return {row["id"] for row in response.json()["results"]}

    assert len(ids("")) == 3
    assert ids(f"endpoint={bi.pk}") == set(
        WebhookDelivery.objects.filter(endpoint=bi).values_list("pk", flat=True)
    )
    assert ids("status=FAILED") == {replied.pk}
    assert ids(f"event_type=review.created&endpoint={crm.pk}") == set(
        WebhookDelivery.objects.filter(endpoint=crm, event_type="review.created").values_list(
            "pk", flat=True
        )
    )
    bad = api.get(f"{DELIVERIES}?status=LOST")
    assert bad.status_code == 400 and "status" in bad.json()["error"]["fields"]
    for junk in ("-2.78e+258", "1e300", "0", "abc", "9223372036854775808"):
        bad = api.get(f"{DELIVERIES}?endpoint={junk}")
        assert bad.status_code == 400, junk
        assert "endpoint" in bad.json()["error"]["fields"]


def test_redeliver_sends_a_failed_event_again_under_the_same_id(api, tenant, alert_receiver):
    make_webhook_endpoint(tenant, url=alert_receiver.url("http", "/hooks"))
    row = owe_one(tenant)
    WebhookDelivery.objects.filter(pk=row.pk).update(
        status=Status.FAILED, attempts=9, next_attempt_at=None, last_status_code=503
    )
    response = api.post(f"{DELIVERIES}{row.pk}/redeliver/")
    assert response.status_code == 202
    assert (response.json()["status"], response.json()["attempts"]) == (Status.PENDING, 0)
    assert delivery.deliver_due() == 1
    (received,) = alert_receiver.received
    assert received.headers["webhook-id"] == row.event_id
    shown = api.get(f"{DELIVERIES}{row.pk}/").json()
    assert (shown["status"], shown["last_status_code"]) == (Status.DELIVERED, 200)


def test_redeliver_while_a_worker_sends_it_is_a_409_and_changes_nothing(api, tenant):
    make_webhook_endpoint(tenant)
    row = owe_one(tenant)
    WebhookDelivery.objects.filter(pk=row.pk).update(status=Status.DELIVERING, attempts=2)
    response = api.post(f"{DELIVERIES}{row.pk}/redeliver/")
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "delivery_in_progress"
    after = WebhookDelivery.objects.get(pk=row.pk)
    assert (after.status, after.attempts) == (Status.DELIVERING, 2)


@pytest.mark.parametrize("url", [HOOKS, DELIVERIES])
def test_lists_take_a_constant_number_of_queries(api, tenant, url):
    def count() -> int:
        with CaptureQueriesContext(connection) as queries:
            assert api.get(url).status_code == 200
        return len(queries)

    make_webhook_endpoint(tenant, events=list(events.EVENTS))
    owe_one(tenant)
    count()  # the key's last_used_at is written on its first use in a minute
    few = count()
    for n in range(6):
        make_webhook_endpoint(tenant, url=f"https://crm{n}.example.ro/", events=list(events.EVENTS))
    for event_type in events.EVENTS:
        owe(tenant, event_type)
    assert count() == few
