from __future__ import annotations

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from cerniq import api_keys
from cerniq.models import TenantAPIKey
from tests.factories import make_user


@pytest.fixture(autouse=True)
def fresh_throttle_counts():
    """Throttle counters live in the cache: each test starts with none."""
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def tenant_admin(tenant):
    return make_user(tenant, role="ADMIN")


def key_client(key: str) -> APIClient:
    client = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    client.credentials(HTTP_AUTHORIZATION=f"Api-Key {key}")
    return client


@pytest.fixture
def write_key(tenant, tenant_admin) -> str:
    _, key = api_keys.create_key(
        tenant, name="crm", scope=TenantAPIKey.Scope.WRITE, user=tenant_admin
    )
    return key


@pytest.fixture
def read_key(tenant, tenant_admin) -> str:
    _, key = api_keys.create_key(
        tenant, name="bi", scope=TenantAPIKey.Scope.READ, user=tenant_admin
    )
    return key


@pytest.fixture
def api(write_key) -> APIClient:
    """A client with a write key of `tenant`."""
    return key_client(write_key)


@pytest.fixture
def read_api(read_key) -> APIClient:
    return key_client(read_key)


@pytest.fixture
def anonymous() -> APIClient:
    return APIClient(HTTP_ACCEPT_LANGUAGE="en")
