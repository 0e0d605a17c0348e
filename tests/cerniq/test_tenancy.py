from __future__ import annotations

import pytest
from django.contrib.sessions.backends.db import SessionStore
from django.http import Http404
from django.test import RequestFactory

from cerniq.tenancy import NoTenant, scope_for, switch_tenant, tenants_of
from outreach.models import Lead
from tests.factories import make_lead, make_tenant, make_user


def request_for(user):
    request = RequestFactory().get("/")
    request.user = user
    request.session = SessionStore()
    return request


def test_scope_lists_only_the_users_tenant(tenant, other_tenant, operator):
    mine = make_lead(tenant)
    make_lead(other_tenant)
    scope = scope_for(request_for(operator))
    assert scope.tenant == tenant
    assert list(scope.queryset(Lead)) == [mine]


def test_another_tenants_row_is_a_404(tenant, other_tenant, operator):
    theirs = make_lead(other_tenant)
    scope = scope_for(request_for(operator))
    with pytest.raises(Http404):
        scope.get_or_404(Lead, pk=theirs.pk)
    with pytest.raises(Http404):
        scope.get_or_404(Lead.objects.select_related("journey"), pk=theirs.pk)


def test_own_row_is_found(tenant, operator):
    lead = make_lead(tenant)
    assert scope_for(request_for(operator)).get_or_404(Lead, pk=lead.pk) == lead


def test_user_without_membership_gets_404(db):
    with pytest.raises(NoTenant):
        scope_for(request_for(make_user()))


def test_inactive_tenant_is_not_reachable(tenant, operator):
    tenant.is_active = False
    tenant.save()
    with pytest.raises(NoTenant):
        scope_for(request_for(operator))


def test_member_of_two_tenants_can_switch_but_not_into_a_stranger(tenant, other_tenant):
    user = make_user(tenant)
    second = make_tenant(name="Zeta Farms")
    from cerniq.models import Membership

    Membership.objects.create(tenant=second, user=user)
    request = request_for(user)
    assert scope_for(request).tenant == tenant  # first by name
    switch_tenant(request, second.pk)
    assert scope_for(request).tenant == second
    assert set(tenants_of(user)) == {tenant, second}
    with pytest.raises(Http404):
        switch_tenant(request, other_tenant.pk)
