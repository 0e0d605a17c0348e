"""cerniq.E020: with DEBUG off, PUBLIC_BASE_URL (the start of every unsubscribe link) must be
set and https; an address of this machine (a local trial) is only a warning."""

from __future__ import annotations

import pytest

from cerniq.checks import check_public_base_url


def ids(settings, url: str, *, debug: bool = False) -> list[str]:
    settings.DEBUG = debug
    settings.PUBLIC_BASE_URL = url
    return [message.id for message in check_public_base_url()]


@pytest.mark.parametrize(
    "url",
    ["", "  ", "http://outreach.example.ro", "outreach.example.ro", "https://", "ftp://x.ro"],
)
def test_production_refuses_a_missing_or_plain_http_public_address(settings, url):
    assert ids(settings, url) == ["cerniq.E020"]


def test_the_error_names_the_variable_and_what_depends_on_it(settings):
    settings.DEBUG = False
    settings.PUBLIC_BASE_URL = "http://outreach.example.ro"
    (error,) = check_public_base_url()
    assert "PUBLIC_BASE_URL (http://outreach.example.ro) is not an https address" in error.msg
    assert "unsubscribe link" in error.hint


@pytest.mark.parametrize(
    "url", ["https://outreach.example.ro", "https://outreach.example.ro/", "https://x.ro/app"]
)
def test_an_https_public_address_passes(settings, url):
    assert ids(settings, url) == []


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1:8000", "http://localhost:8000/", "https://localhost"]
)
def test_an_address_of_this_machine_is_a_warning_not_an_error(settings, url):
    assert ids(settings, url) == ["cerniq.W020"]


def test_development_is_not_checked(settings):
    assert ids(settings, "", debug=True) == []
