"""API keys (hashed, shown once, scoped, revocable), session auth, the one error shape,
throttling."""

from __future__ import annotations

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from cerniq import api_keys
from cerniq.models import TenantAPIKey
from tests.api.conftest import key_client
from tests.factories import make_lead, make_user

LEADS = "/api/v1/leads/"


def test_no_key_is_401_with_a_challenge_and_the_error_shape(anonymous, tenant):
    response = anonymous.get(LEADS)
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Api-Key"
    assert response.json()["error"]["code"] == "not_authenticated"
    assert response.json()["error"]["fields"] == {}


@pytest.mark.parametrize(
    ("header", "code"),
    [
        ("Api-Key nope.nope", "authentication_failed"),
        ("Api-Key abc", "authentication_failed"),
        ("Api-Key ", "not_authenticated"),
    ],
)
def test_a_wrong_key_is_401(tenant, header, code):
    client = APIClient()
    response = client.get(LEADS, HTTP_AUTHORIZATION=header)
    assert response.status_code == 401
    assert response.json()["error"]["code"] == code


def test_the_key_is_stored_hashed_and_shown_once(tenant, tenant_admin):
    stored, key = api_keys.create_key(tenant, name="crm", scope="write", user=tenant_admin)
    stored.refresh_from_db()
    secret = key.split(".", 1)[1]
    assert secret not in stored.hashed_key and secret not in stored.pk
    assert stored.hashed_key.startswith("sha512$$")
    assert key_client(key).get(LEADS).status_code == 200


def test_a_revoked_key_is_401_and_last_used_is_recorded(tenant, tenant_admin):
    stored, key = api_keys.create_key(tenant, name="crm", scope="read", user=tenant_admin)
    assert key_client(key).get(LEADS).status_code == 200
    stored.refresh_from_db()
    assert stored.last_used_at is not None
    api_keys.revoke_key(tenant, stored.prefix, user=tenant_admin)
    assert key_client(key).get(LEADS).status_code == 401


def test_only_a_tenant_admin_manages_keys(tenant, other_tenant, tenant_admin):
    operator = make_user(tenant)
    with pytest.raises(api_keys.KeyRefused):
        api_keys.create_key(tenant, name="x", scope="read", user=operator)
    with pytest.raises(api_keys.KeyRefused):  # an admin of one tenant, not of the other
        api_keys.create_key(other_tenant, name="x", scope="read", user=tenant_admin)
    with pytest.raises(api_keys.KeyRefused):
        api_keys.create_key(tenant, name=" ", scope="read", user=tenant_admin)
    with pytest.raises(api_keys.KeyRefused):
        api_keys.create_key(tenant, name="x", scope="admin", user=tenant_admin)
    stored, _ = api_keys.create_key(
        other_tenant, name="x", scope="read", user=make_user(other_tenant, role="ADMIN")
    )
    with pytest.raises(api_keys.KeyRefused):  # another tenant's key is not found
        api_keys.revoke_key(tenant, stored.prefix, user=tenant_admin)
    assert not TenantAPIKey.objects.get(pk=stored.pk).revoked


def test_a_read_key_gets_403_on_writes(read_api, tenant):
    lead = make_lead(tenant)
    response = read_api.post(LEADS, {"name": "X SRL", "phone": "0722123456"}, format="json")
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "permission_denied"
    assert read_api.post(f"{LEADS}{lead.pk}/pause/").status_code == 403
    assert read_api.patch(f"{LEADS}{lead.pk}/", {"county": "Cluj"}).status_code == 403
    assert read_api.get(f"{LEADS}{lead.pk}/").status_code == 200


def test_session_auth_sees_the_operators_tenant_and_checks_csrf(tenant, other_tenant):
    operator = make_user(tenant)
    mine, theirs = make_lead(tenant), make_lead(other_tenant)
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(operator)
    ids = [row["id"] for row in client.get(LEADS).json()["results"]]
    assert ids == [mine.pk]
    assert client.get(f"{LEADS}{theirs.pk}/").status_code == 404
    refused = client.post(f"{LEADS}{mine.pk}/pause/")
    assert refused.status_code == 403
    assert "CSRF" in refused.json()["error"]["message"]


def test_unknown_method_is_405_in_the_error_shape(api, tenant):
    lead = make_lead(tenant)
    response = api.put(f"{LEADS}{lead.pk}/", {"name": "x"}, format="json")
    assert response.status_code == 405
    assert response.json()["error"]["code"] == "method_not_allowed"


@override_settings(API_THROTTLE_RATE="3/min")
def test_throttled_per_key_with_retry_after(tenant, tenant_admin):
    _, first = api_keys.create_key(tenant, name="a", scope="read", user=tenant_admin)
    _, second = api_keys.create_key(tenant, name="b", scope="read", user=tenant_admin)
    client = key_client(first)
    assert [client.get(LEADS).status_code for _ in range(3)] == [200, 200, 200]
    response = client.get(LEADS)
    assert response.status_code == 429
    assert 0 < int(response["Retry-After"]) <= 60
    assert response.json()["error"]["code"] == "throttled"
    assert key_client(second).get(LEADS).status_code == 200  # per key, not global


def test_schema_and_offline_docs_are_served(anonymous, tenant):
    schema = anonymous.get("/api/schema/?format=json")
    assert schema.status_code == 200
    paths = schema.json()["paths"]
    assert "/api/v1/leads/{id}/transition/" in paths
    responses = paths["/api/v1/leads/{id}/transition/"]["post"]["responses"]
    assert {"200", "400", "401", "403", "404", "409", "429"} <= set(responses)
    for page in ("/api/docs/", "/api/redoc/"):
        html = anonymous.get(page).content.decode()
        assert "/static/drf_spectacular_sidecar/" in html  # served offline, no CDN
        assert "cdn.jsdelivr" not in html


@pytest.mark.parametrize("method", ["get", "post", "delete"])
@pytest.mark.parametrize("path", ["/api/v1/nothing-here/", "/api/v1/sequences/%2E/enroll/"])
def test_an_unknown_api_address_is_a_json_404(api, method, path):
    """Whatever the method: a POST to a mistyped address got CSRF's HTML 403 before."""
    client = APIClient(enforce_csrf_checks=True, HTTP_ACCEPT_LANGUAGE="en")
    client.credentials(**api._credentials)
    response = getattr(client, method)(path)
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_an_unexpected_failure_is_a_json_500_without_details(api, tenant, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("secret internals")

    monkeypatch.setattr("api.filters.filter_leads", broken)
    response = api.get(LEADS)
    assert response.status_code == 500
    assert response.json()["error"]["code"] == "server_error"
    assert "secret" not in response.content.decode()


def test_the_schema_is_valid_openapi_without_warnings(tmp_path):
    """drf-spectacular's own validation: a view it cannot describe fails here, not in CI's
    schemathesis run or an integrator's code generator."""
    from django.core.management import call_command

    target = tmp_path / "schema.yaml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(target))
    assert "/api/v1/imports/{id}/" in target.read_text()
