"""`manage.py instantly_setup`: registers the tenant's subscription once, fixes a stale one,
prints what it would do with --dry-run, and fails clearly on bad input or API errors."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from integrations.instantly import config
from integrations.instantly.management.commands.instantly_setup import Command
from tests.integrations.instantly.conftest import BASE, api_body

BASE_URL = "https://cerniq.example.ro"
pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def key(settings, api_key):
    settings.INSTANTLY_API_KEY = api_key
    settings.INSTANTLY_WEBHOOK_SECRET = "test-webhook-key-0123456789"


def run(tenant, *args: str) -> str:
    out = StringIO()
    call_command(Command(), "--tenant", tenant.slug, "--base-url", BASE_URL, *args, stdout=out)
    return out.getvalue()


def our_hook(tenant, **overrides) -> dict:
    hook = api_body("webhook_create")
    hook["target_hook_url"] = f"{BASE_URL}/webhooks/instantly/{tenant.webhook_token}/"
    hook["headers"] = {"x-webhook-secret": config.webhook_secret(tenant.webhook_token)}
    return {**hook, **overrides}


def test_it_creates_the_subscription_with_the_secret_header(rsps, tenant):
    rsps.get(f"{BASE}/api/v2/webhooks", json=api_body("webhooks_list"))
    rsps.post(f"{BASE}/api/v2/webhooks", json=api_body("webhook_create"))
    out = run(tenant)
    sent = json.loads(rsps.calls[1].request.body)
    assert sent == {
        "target_hook_url": f"{BASE_URL}/webhooks/instantly/{tenant.webhook_token}/",
        "event_type": "all_events",
        "headers": {"x-webhook-secret": config.webhook_secret(tenant.webhook_token)},
        "name": f"Cerniq {tenant.slug}",
    }
    assert out.startswith(f"{tenant.slug}: create {BASE_URL}/webhooks/instantly/")
    assert tenant.webhook_token not in out  # the token is a secret too


def test_dry_run_lists_but_changes_nothing(rsps, tenant):
    rsps.get(f"{BASE}/api/v2/webhooks", json=api_body("webhooks_list_empty"))
    out = run(tenant, "--dry-run")
    assert "[dry run] would create" in out
    assert [call.request.method for call in rsps.calls] == ["GET"]


def test_a_second_run_keeps_the_existing_subscription(rsps, tenant):
    rsps.get(
        f"{BASE}/api/v2/webhooks", json={"items": [our_hook(tenant)], "next_starting_after": None}
    )
    assert ": keep " in run(tenant)
    assert [call.request.method for call in rsps.calls] == ["GET"]


def test_a_stale_secret_or_a_narrow_event_type_is_updated_in_place(rsps, tenant):
    stale = our_hook(tenant, event_type="reply_received", headers={"x-webhook-secret": "old"})
    rsps.get(f"{BASE}/api/v2/webhooks", json={"items": [stale], "next_starting_after": None})
    rsps.patch(f"{BASE}/api/v2/webhooks/{stale['id']}", json=our_hook(tenant))
    assert ": update " in run(tenant)
    assert json.loads(rsps.calls[1].request.body) == {
        "event_type": "all_events",
        "headers": {"x-webhook-secret": config.webhook_secret(tenant.webhook_token)},
    }


def test_a_subscription_disabled_by_instantly_is_resumed(rsps, tenant):
    disabled = our_hook(tenant, status=-1)
    rsps.get(f"{BASE}/api/v2/webhooks", json={"items": [disabled], "next_starting_after": None})
    rsps.post(f"{BASE}/api/v2/webhooks/{disabled['id']}/resume", json=our_hook(tenant))
    assert ": keep and resume " in run(tenant)


@pytest.mark.parametrize("base_url", ["http://cerniq.example.ro", "cerniq.example.ro", "https://"])
def test_a_bad_base_url_is_refused(rsps, tenant, base_url):
    with pytest.raises(CommandError, match="https"):
        call_command(Command(), "--tenant", tenant.slug, "--base-url", base_url)
    assert not rsps.calls


def test_an_unknown_tenant_is_refused(rsps, db):
    with pytest.raises(CommandError, match="no active tenant"):
        call_command(Command(), "--tenant", "nobody", "--base-url", BASE_URL)


def test_an_api_error_is_a_command_error(rsps, tenant):
    rsps.get(f"{BASE}/api/v2/webhooks", json=api_body("error_401"), status=401)
    with pytest.raises(CommandError, match="Instantly refused.*401"):
        run(tenant)


def test_a_missing_api_key_is_a_command_error(rsps, settings, tenant):
    settings.INSTANTLY_API_KEY = ""
    with pytest.raises(CommandError, match="INSTANTLY_API_KEY"):
        run(tenant)
    assert not rsps.calls
