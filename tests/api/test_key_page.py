"""The operator page that manages API keys (/outreach/api-keys/): admins only, CSRF, the
key shown once, revoke, tenant isolation."""

from __future__ import annotations

import pytest
from django.test import Client

from cerniq import api_keys
from cerniq.models import TenantAPIKey
from tests.api.conftest import key_client
from tests.factories import make_user

PAGE = "/outreach/api-keys/"


def signed_in(user, **kw) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="en", **kw)
    client.force_login(user)
    return client


def test_anonymous_goes_to_login_and_operators_get_403(client, tenant):
    assert client.get(PAGE).status_code == 302
    assert signed_in(make_user(tenant)).get(PAGE).status_code == 403
    assert (
        signed_in(make_user(tenant)).post(PAGE, {"name": "x", "scope": "read"}).status_code == 403
    )
    assert not TenantAPIKey.objects.exists()


def test_admin_creates_a_key_shown_once_that_works(tenant, tenant_admin):
    client = signed_in(tenant_admin)
    response = client.post(PAGE, {"name": "CRM sync", "scope": "write"})
    assert response.status_code == 200
    assert response["Cache-Control"].startswith("max-age=0")
    key = response.context["created"]
    assert key in response.content.decode()
    stored = TenantAPIKey.objects.get()
    assert (stored.tenant, stored.name, stored.scope, stored.created_by) == (
        tenant,
        "CRM sync",
        "write",
        tenant_admin,
    )
    assert key_client(key).get("/api/v1/leads/").status_code == 200
    listing = client.get(PAGE).content.decode()
    assert "CRM sync" in listing and key not in listing  # never shown again


def test_a_bad_name_is_refused_with_the_reason(tenant, tenant_admin):
    response = signed_in(tenant_admin).post(PAGE, {"name": " ", "scope": "read"})
    assert response.status_code == 400
    assert "Give the key a name" in response.content.decode()
    assert not TenantAPIKey.objects.exists()


def test_admin_revokes_a_key(tenant, tenant_admin):
    stored, key = api_keys.create_key(tenant, name="bi", scope="read", user=tenant_admin)
    response = signed_in(tenant_admin).post(f"{PAGE}{stored.prefix}/revoke/")
    assert response.status_code == 302
    assert TenantAPIKey.objects.get().revoked
    assert key_client(key).get("/api/v1/leads/").status_code == 401


def test_another_tenants_key_is_neither_listed_nor_revoked(tenant, other_tenant, tenant_admin):
    theirs, _ = api_keys.create_key(
        other_tenant, name="theirs", scope="read", user=make_user(other_tenant, role="ADMIN")
    )
    client = signed_in(tenant_admin)
    assert "theirs" not in client.get(PAGE).content.decode()
    client.post(f"{PAGE}{theirs.prefix}/revoke/")
    assert not TenantAPIKey.objects.get(pk=theirs.pk).revoked


@pytest.mark.parametrize("path", [PAGE, f"{PAGE}abc/revoke/"])
def test_posts_need_the_csrf_token(tenant, tenant_admin, path):
    client = signed_in(tenant_admin, enforce_csrf_checks=True)
    assert client.post(path, {"name": "x", "scope": "read"}).status_code == 403


def test_only_admins_see_the_link(tenant, tenant_admin):
    assert PAGE in signed_in(tenant_admin).get("/outreach/leads/").content.decode()
    assert PAGE not in signed_in(make_user(tenant)).get("/outreach/leads/").content.decode()
