from __future__ import annotations

import pytest

from tests.factories import make_tenant, make_user


@pytest.fixture
def tenant(db):
    return make_tenant(name="Agro Demo", slug="agro-demo")


@pytest.fixture
def other_tenant(db):
    """'Charlie's' workspace: everything in it must be invisible to `tenant`'s users."""
    return make_tenant(name="Other Co", slug="other-co")


@pytest.fixture
def operator(tenant):
    return make_user(tenant)


@pytest.fixture
def superuser(db):
    from django.contrib.auth import get_user_model

    return get_user_model().objects.create_superuser("root", "root@example.com", "pw-for-tests-1")
