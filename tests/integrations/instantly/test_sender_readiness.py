"""Each Instantly account's readiness (integrations.instantly.readiness), from Instantly's
documented `GET /api/v2/accounts` answer at the HTTP boundary; a new campaign leaves out
the accounts that are not ready, and is not created when none is."""

from __future__ import annotations

import json

import pytest

from cerniq import reasons
from cerniq.provider_errors import PermanentProviderError
from email_channels import readiness
from email_channels.models import EmailCampaign, SenderCheck
from integrations.instantly import campaign_sync, config
from tests.factories import make_sequence
from tests.integrations.instantly.conftest import BASE, api_body

pytestmark = [pytest.mark.usefixtures("registered"), pytest.mark.django_db]
ACCOUNTS = f"{BASE}/api/v2/accounts"


@pytest.fixture
def keyed(monkeypatch, api_key):
    monkeypatch.setenv("INSTANTLY_API_KEY", api_key)


def test_an_account_in_error_or_with_a_low_warm_up_score_is_not_ready(rsps, keyed):
    rsps.get(ACCOUNTS, json=api_body("accounts_list"))
    readiness.check_all()
    good = SenderCheck.objects.get(provider="instantly", sender="vanzari@agrofirma-mail.ro")
    bad = SenderCheck.objects.get(provider="instantly", sender="oferte@agrofirma-mail.ro")
    assert good.ready and not bad.ready
    said = reasons.render(bad.reason)
    assert "the account is in a connection error" in said
    assert "its warm-up score is 61, under 70" in said
    assert bad.details["status_message"].startswith("535 5.7.3")


def test_a_new_campaign_leaves_out_the_accounts_that_are_not_ready(rsps, keyed, tenant):
    rsps.get(ACCOUNTS, json=api_body("accounts_list"))
    readiness.check_all()
    created = rsps.post(f"{BASE}/api/v2/campaigns", json=api_body("campaign_create"))
    sequence = make_sequence(tenant)
    row = EmailCampaign(tenant=tenant, name="Rece", provider="instantly")
    both = "vanzari@agrofirma-mail.ro, oferte@agrofirma-mail.ro"
    campaign_sync._create(config.client(), tenant, sequence, row, both, 50)
    assert json.loads(created.calls[0].request.body)["email_list"] == ["vanzari@agrofirma-mail.ro"]
    with pytest.raises(PermanentProviderError, match="no sending account is ready"):
        campaign_sync._create(
            config.client(), tenant, sequence, row, "oferte@agrofirma-mail.ro", 50
        )
