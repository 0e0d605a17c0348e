"""Alert channel URLs (cerniq.alert_channels, cerniq.forms): validated by apprise, masked
wherever shown, env:// references limited to ALERTS_* variables."""

from __future__ import annotations

import logging

import pytest
from django.core.exceptions import ValidationError

from cerniq.alert_channels import masked, resolve, validate_url
from cerniq.forms import AlertChannelForm
from cerniq.models import AlertChannel
from tests.fake_dns import fake_dns

SLACK = "https://hooks.slack.com/services/T1JJ3T3L2/A1BRTD4JD/TIiajkdnlazkcOXrIdevi7FQ"


@pytest.fixture(autouse=True)
def public_names():
    """`h` (a webhook host in these URLs) is a public name; nothing else resolves."""
    with fake_dns({"h": ["93.184.215.14"]}):
        yield


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("slack://T1JJ3T3L2/A1BRTD4JD/TIiajkdnlazkcOXrIdevi7FQ", "slack://T...2/A...D/T...Q"),
        (SLACK, "slack://T...2/A...D/T...Q"),
        ("tgram://123456789:AABCDEFGHIJKLMNOPQRSTUVWXYZabcdefgh/12345", "tgram://1...h/12345"),
        ("mailto://ops:s3cretpassw0rd@mail.agro.ro", "mailto://ops:****@mail.agro.ro"),
        ("json://127.0.0.1:8080/hooks/f81d4fae7dec11d0a765", "json://127.0.0.1:8080/hooks/f...5"),
        ("env://ALERTS_SLACK_URL", "env://ALERTS_SLACK_URL"),
        ("nonsense://x/abcdefghijkl", "nonsense://…"),
    ],
)
def test_masked_shows_the_service_never_the_secret(url, shown):
    assert masked(url) == shown


@pytest.mark.parametrize(
    "url",
    [SLACK, "tgram://123456789:AABCDEFGHIJKLMNOPQRSTUVWXYZabcdefgh/12345", "json://h/p"],
)
def test_service_urls_apprise_reads_are_valid(url):
    validate_url(url)


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("not a url", "Apprise cannot use this URL"),
        ("slack://T1JJ3T3L2/A1BRTD4JD/bad-token!", "Apprise cannot use this URL"),
        ("env://SECRET_KEY", "starting with ALERTS_"),
        ("env://ALERTS_NOT_SET_ANYWHERE", "ALERTS_NOT_SET_ANYWHERE is not set"),
    ],
)
def test_unusable_urls_are_refused_without_repeating_them(url, problem, caplog):
    with caplog.at_level(logging.DEBUG), pytest.raises(ValidationError) as refused:
        validate_url(url)
    (message,) = refused.value.messages
    assert problem in message
    if not url.startswith("env://"):
        assert url not in message
    assert "bad-token!" not in caplog.text  # apprise's own log lines stay with it


def test_an_env_reference_resolves_to_the_variable(monkeypatch):
    monkeypatch.setenv("ALERTS_OPS", " json://h/x ")
    assert resolve("env://ALERTS_OPS") == "json://h/x"
    validate_url("env://ALERTS_OPS")
    monkeypatch.setenv("ALERTS_OPS", "garbage")
    with pytest.raises(ValidationError):
        validate_url("env://ALERTS_OPS")


def test_the_form_never_renders_the_saved_url_and_keeps_it_when_left_empty(tenant):
    channel = AlertChannel.objects.create(tenant=tenant, name="Slack", url=SLACK)
    form = AlertChannelForm(instance=channel)
    html = form.as_p()
    assert "TIiajkdnlazkcOXrIdevi7FQ" not in html and "T1JJ3T3L2" not in html
    assert "slack://T...2/A...D/T...Q" in html  # shown masked in the help text

    data = {"name": "Slack #ops", "url": "", "min_severity": "WARNING", "language": "en"}
    form = AlertChannelForm(data, instance=channel)
    assert form.is_valid(), form.errors
    saved = form.save()
    assert (saved.name, saved.url, saved.enabled) == ("Slack #ops", SLACK, False)


def test_the_form_names_the_url_field_when_apprise_cannot_read_it(tenant):
    form = AlertChannelForm(
        {"name": "X", "url": "slack://nope", "min_severity": "INFO", "language": "en"},
        instance=AlertChannel(tenant=tenant),
    )
    assert not form.is_valid()
    assert list(form.errors) == ["url"]
    assert "Apprise cannot use this URL" in form.errors["url"][0]


def test_a_new_channel_needs_a_url_and_a_name_unique_in_its_tenant(tenant, other_tenant):
    AlertChannel.objects.create(tenant=tenant, name="Ops", url="json://h/p")
    AlertChannel.objects.create(tenant=other_tenant, name="Mine", url="json://h/p")
    data = {"name": "Ops", "url": "", "min_severity": "INFO", "language": "en"}
    form = AlertChannelForm(data, instance=AlertChannel(tenant=tenant))
    assert not form.is_valid()
    assert set(form.errors) == {"name", "url"}
    data = {"name": "Mine", "url": "json://h/p", "min_severity": "INFO", "language": "en"}
    form = AlertChannelForm(data, instance=AlertChannel(tenant=tenant))
    assert form.is_valid(), form.errors  # another tenant's name is no clash


def test_a_deployment_url_apprise_cannot_use_is_a_system_check_warning(settings):
    from cerniq.checks import check_alert_urls

    settings.ALERT_URLS = ["json://127.0.0.1/ops", "slack://T1JJ3T3L2/A1BRTD4JD/bad-token!"]
    (warning,) = check_alert_urls()
    assert warning.id == "cerniq.W030"
    assert warning.msg.startswith("ALERT_URLS entry 2 (slack://…) cannot be used: Apprise")
    assert "bad-token" not in warning.msg
    settings.ALERT_URLS = []
    assert check_alert_urls() == []
