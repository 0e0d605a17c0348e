"""`manage.py check` says at start-up what keeps the deployment from reaching Mailchimp."""

from __future__ import annotations

import pytest

from integrations.mailchimp.checks import check_mailchimp_options


def ids(settings) -> list[str]:
    return [str(warning.id) for warning in check_mailchimp_options()]


@pytest.mark.parametrize(
    ("key", "base", "debug", "expected"),
    [
        ("0123-us21", "", False, []),
        ("0123-nodatacentre", "", False, ["mailchimp.W001"]),
        ("0123", "http://mailchimp-proxy.example/3.0", False, ["mailchimp.W002"]),
        ("0123", "http://127.0.0.1:9000/3.0", True, []),
        ("", "", False, ["mailchimp.W003"]),
        ("", "", True, []),
    ],
)
def test_a_key_that_reaches_no_account_is_said(settings, key, base, debug, expected):
    settings.MAILCHIMP_API_KEY, settings.MAILCHIMP_BASE_URL, settings.DEBUG = key, base, debug
    assert ids(settings) == expected
