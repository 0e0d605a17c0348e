"""The headers on pages and API answers: a strict Content-Security-Policy (relaxed only on the
API's two documentation pages), Permissions-Policy, and Cache-Control: no-store wherever the
answer is a signed-in person's page or comes from the API. The templates keep no inline
script, style or event handler that the policy would block."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.test import Client, override_settings
from rest_framework.test import APIClient

from cerniq import api_keys
from cerniq.models import TenantAPIKey
from tests.factories import make_user

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
STRICT = {
    "default-src": "'self'",
    "script-src": "'self'",
    "style-src": "'self'",
    "img-src": "'self' data:",
    "connect-src": "'self'",
    "frame-ancestors": "'none'",
    "form-action": "'self'",
    "base-uri": "'self'",
    "object-src": "'none'",
}


def policy(response) -> dict[str, str]:
    header = response["Content-Security-Policy"]
    return dict(part.strip().split(" ", 1) for part in header.split(";"))


@pytest.fixture
def operator_client(client, operator):
    client.force_login(operator)
    return client


@pytest.mark.parametrize(
    "url", ["/outreach/dashboard/", "/outreach/leads/", "/outreach/review/", "/outreach/analytics/"]
)
def test_operator_pages_carry_the_strict_policy_and_no_store(operator_client, url):
    response = operator_client.get(url)
    assert response.status_code == 200
    directives = policy(response)
    assert {name: directives.get(name) for name in STRICT} == STRICT
    assert "unsafe" not in response["Content-Security-Policy"]
    assert "no-store" in response["Cache-Control"]
    assert "camera=()" in response["Permissions-Policy"]
    assert "geolocation=()" in response["Permissions-Policy"]


def test_the_dashboards_htmx_refresh_is_not_stored_either(operator_client):
    response = operator_client.get("/outreach/dashboard/partial/", HTTP_HX_REQUEST="true")
    assert response.status_code == 200 and "no-store" in response["Cache-Control"]


def test_the_login_page_has_the_policy_and_is_never_cached(client):
    response = client.get("/login/")
    assert policy(response)["script-src"] == "'self'"
    assert "no-store" in response["Cache-Control"]  # Django's never_cache: it holds a CSRF token


@override_settings(WHITENOISE_USE_FINDERS=True, WHITENOISE_AUTOREFRESH=True)
def test_static_files_are_cacheable_and_carry_no_page_headers():
    response = Client().get("/static/css/app.css")  # served by WhiteNoise (from the finders)
    assert response.status_code == 200
    assert "no-store" not in response.get("Cache-Control", "")
    assert "Content-Security-Policy" not in response


@pytest.mark.django_db
def test_every_api_answer_is_no_store(tenant, operator):
    admin = make_user(tenant, role="ADMIN")
    _, key = api_keys.create_key(tenant, name="crm", scope=TenantAPIKey.Scope.READ, user=admin)
    with_key = APIClient(HTTP_AUTHORIZATION=f"Api-Key {key}")
    anonymous = APIClient()
    answers = {
        "200 with a key": with_key.get("/api/v1/leads/"),
        "404 in the error shape": with_key.get("/api/v1/nowhere/"),
        "401 without a key": anonymous.get("/api/v1/leads/"),
        "the schema": anonymous.get("/api/schema/"),
    }
    session = APIClient()
    session.force_login(operator)
    answers["200 with a session"] = session.get("/api/v1/leads/")
    for what, response in answers.items():
        assert "no-store" in response["Cache-Control"], what


@pytest.mark.django_db
@pytest.mark.parametrize("url", ["/api/docs/", "/api/redoc/"])
def test_only_the_api_documentation_relaxes_styles_and_workers(client, url):
    directives = policy(client.get(url))
    assert directives["style-src"] == "'self' 'unsafe-inline'"
    assert directives["worker-src"] == "'self' blob:"
    assert directives["script-src"] == "'self'"  # scripts still only from our files


def test_the_browsable_api_relaxes_styles_only_for_its_html(operator_client):
    html = operator_client.get("/api/v1/leads/", HTTP_ACCEPT="text/html")
    assert html["Content-Type"].startswith("text/html")
    assert policy(html)["style-src"] == "'self' 'unsafe-inline'"
    assert policy(html)["script-src"] == "'self'"
    as_json = operator_client.get("/api/v1/leads/", HTTP_ACCEPT="application/json")
    assert policy(as_json)["style-src"] == "'self'"


@pytest.mark.django_db
def test_swagger_ui_starts_from_a_script_of_its_own_not_an_inline_one(client):
    page = client.get("/api/docs/").content.decode()
    assert re.search(r"<script>\s*\S", page) is None
    (start,) = re.findall(r'<script src="(/api/docs/\?[^"]*script=[^"]*)"', page)
    script = client.get(start.replace("&amp;", "&"))
    assert script.status_code == 200 and script["Content-Type"].startswith("application/javascript")
    assert "SwaggerUIBundle(" in script.content.decode()


@pytest.mark.django_db
def test_redoc_loads_no_fonts_from_elsewhere(client):
    page = client.get("/api/redoc/").content.decode()
    assert "fonts.googleapis.com" not in page and "redoc.standalone.js" in page


INLINE = [
    (re.compile(r"<script(?![^>]*\bsrc=)(?![^>]*application/json)[^>]*>", re.I), "inline script"),
    (re.compile(r"<style\b", re.I), "style element"),
    (re.compile(r"\sstyle\s*=", re.I), "style attribute"),
    (re.compile(r"\son[a-z]+\s*=", re.I), "event handler attribute"),
    (re.compile(r"\shx-on", re.I), "hx-on (evaluated code)"),
    (re.compile(r"javascript:", re.I), "javascript: URL"),
]


def test_no_template_of_ours_holds_what_the_policy_blocks():
    found = []
    for path in sorted(TEMPLATES.rglob("*.html")):
        if path.parent.name == "drf_spectacular":  # under the docs pages' own policy
            continue
        text = path.read_text()
        for pattern, what in INLINE:
            for match in pattern.finditer(text):
                line = text.count("\n", 0, match.start()) + 1
                found.append(f"{path.relative_to(TEMPLATES)}:{line}: {what}")
    assert found == []
