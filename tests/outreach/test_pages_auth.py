"""Login, logout, the home redirect, the language switch and the shared layout."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.factories import make_phone

pytestmark = pytest.mark.django_db

PAGES = ["/outreach/dashboard/", "/outreach/dashboard/partial/", "/outreach/phones/"]


@pytest.mark.parametrize("url", PAGES)
def test_anonymous_is_sent_to_login(client, url):
    response = client.get(url)
    assert response.status_code == 302
    assert response["Location"].startswith(f"/login/?next={url}")


def test_home_redirects_to_login_then_dashboard(client, operator):
    assert client.get("/")["Location"].startswith("/login/")
    client.force_login(operator)
    assert client.get("/")["Location"] == "/outreach/dashboard/"


def test_login_page_renders_and_logs_in(client, operator):
    page = client.get("/login/", HTTP_ACCEPT_LANGUAGE="en")
    assert page.status_code == 200
    assert b'name="password"' in page.content
    response = client.post("/login/", {"username": operator.username, "password": "pw-for-tests-1"})
    assert response.status_code == 302
    assert response["Location"] == "/outreach/dashboard/"
    assert client.get("/outreach/dashboard/").status_code == 200


def test_login_follows_next(client, operator):
    response = client.post(
        "/login/?next=/outreach/phones/",
        {"username": operator.username, "password": "pw-for-tests-1", "next": "/outreach/phones/"},
    )
    assert response["Location"] == "/outreach/phones/"


def test_wrong_password_stays_on_login(client, operator):
    response = client.post(
        "/login/", {"username": operator.username, "password": "nope"}, HTTP_ACCEPT_LANGUAGE="en"
    )
    assert response.status_code == 200
    assert b"Wrong username or password" in response.content
    assert "_auth_user_id" not in client.session


def test_logout_is_a_post(client, operator):
    client.force_login(operator)
    response = client.post("/logout/")
    assert response.status_code == 302
    assert response["Location"] == "/login/"
    assert client.get("/outreach/dashboard/").status_code == 302


def test_login_enforces_csrf(operator):
    strict = Client(enforce_csrf_checks=True)
    response = strict.post("/login/", {"username": operator.username, "password": "pw-for-tests-1"})
    assert response.status_code == 403


def test_layout_shows_tenant_name_and_navigation(client, operator, tenant):
    client.force_login(operator)
    html = client.get("/outreach/dashboard/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert tenant.name in html
    for href in (
        'href="/outreach/dashboard/"',
        'href="/outreach/phones/"',
        'href="/outreach/review/"',
    ):
        assert href in html
    assert "/static/vendor/htmx.min.js" in html
    assert "https://" not in html  # no CDN


def test_user_without_tenant_gets_an_explanation_not_a_crash(client, db):
    from tests.factories import make_user

    loner = make_user(None)
    client.force_login(loner)
    response = client.get("/outreach/dashboard/")
    assert response.status_code == 403  # tests/outreach/test_pages_no_workspace.py
    assert b"Your account has no workspace yet" in response.content
    assert client.get("/login/").status_code == 302  # already signed in


def test_romanian_and_english(client, operator, tenant):
    make_phone(tenant)
    client.force_login(operator)
    ro = client.get("/outreach/phones/", HTTP_ACCEPT_LANGUAGE="ro").content.decode()
    assert "Telefoane" in ro
    assert "Panou" in ro  # "Dashboard" in the navigation
    en = client.get("/outreach/phones/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Phones" in en
    assert "Telefoane" not in en


def test_set_language_switches_and_sticks(client, operator):
    client.force_login(operator)
    response = client.post("/i18n/setlang/", {"language": "en", "next": "/outreach/phones/"})
    assert response.status_code == 302
    assert response["Location"] == "/outreach/phones/"
    assert "Phones" in client.get("/outreach/phones/").content.decode()
    client.post("/i18n/setlang/", {"language": "ro", "next": "/outreach/phones/"})
    assert "Telefoane" in client.get("/outreach/phones/").content.decode()


def test_set_language_enforces_csrf(operator):
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(operator)
    response = strict.post("/i18n/setlang/", {"language": "en", "next": "/outreach/phones/"})
    assert response.status_code == 403
