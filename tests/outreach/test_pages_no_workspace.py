"""A signed-in account without a workspace sees why there is nothing, not "Not Found"."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.factories import make_tenant, make_user

PAGES = ["/outreach/dashboard/", "/outreach/leads/", "/outreach/phones/", "/outreach/review/"]


@pytest.mark.django_db
@pytest.mark.parametrize("url", PAGES)
def test_every_operator_page_explains_the_missing_workspace(client, url):
    client.force_login(make_user(username="ana"))
    response = client.get(url)
    assert response.status_code == 403
    page = response.content.decode()
    assert "Your account has no workspace yet" in page
    assert "You are signed in as <strong>ana</strong>" in page
    assert "Ask an administrator of your company" in page
    assert "manage.py create_workspace" not in page  # an operator gets no server commands
    assert 'aria-label="Main navigation"' not in page  # nothing to navigate to


@pytest.mark.django_db
def test_home_leads_there_too(client):
    client.force_login(make_user())
    response = client.get("/", follow=True)
    assert response.status_code == 403
    assert b"Your account has no workspace yet" in response.content


@pytest.mark.django_db
def test_in_romanian():
    client = Client(HTTP_ACCEPT_LANGUAGE="ro")
    client.force_login(make_user())
    page = client.get("/outreach/dashboard/").content.decode()
    assert "Contul tău nu are încă un spațiu de lucru" in page


@pytest.mark.django_db
def test_a_staff_account_is_told_how_to_create_or_join_one(client):
    client.force_login(make_user(username="root", is_staff=True))
    page = client.get("/outreach/dashboard/").content.decode()
    assert "manage.py create_workspace" in page and "--admin-username root" in page
    assert 'href="/admin/"' in page


@pytest.mark.django_db
def test_a_member_still_gets_a_404_for_another_tenants_row(client):
    """Only the missing workspace is explained; tenant isolation stays a plain 404."""
    tenant = make_tenant(slug="own")
    client.force_login(make_user(tenant))
    assert client.get("/outreach/dashboard/").status_code == 200
    assert client.get("/outreach/leads/999999/").status_code == 404


@pytest.mark.django_db
def test_an_anonymous_visitor_is_sent_to_log_in(client):
    response = client.get("/outreach/dashboard/")
    assert response.status_code == 302 and response["Location"].startswith("/login/")
