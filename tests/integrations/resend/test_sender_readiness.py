"""Our Resend sending domain's readiness (integrations.resend.readiness,
email_channels.readiness), from Resend's documented answers at the HTTP boundary: a
verified domain is ready; a record pending or the domain missing makes it not ready, with
a platform alert, and warm email waits until it is ready again."""

from __future__ import annotations

import copy

import pytest
import responses
import time_machine

from cerniq import reasons
from cerniq.models import Alert
from email_channels import readiness
from email_channels.models import SenderCheck
from outreach.sending import send_message
from tests.factories import make_lead, make_message
from tests.integrations.resend.conftest import api_fixture
from tests.whatsapp.conftest import MONDAY_10

pytestmark = pytest.mark.django_db
DOMAINS = "https://api.resend.com/domains?limit=100"
DOMAIN = "https://api.resend.com/domains/d91cd9bd-1176-453e-8fc1-35364d380206"


@responses.activate
def test_a_verified_domain_is_ready_and_a_pending_record_is_not(tenant, settings):
    settings.PUBLIC_BASE_URL = "https://outreach.example.ro"
    responses.get(DOMAINS, json=api_fixture("domains_list"))
    responses.get(DOMAIN, json=api_fixture("domain_get"))
    assert readiness.check_all()["resend"] == 1
    check = SenderCheck.objects.get(provider="resend")
    assert (check.sender, check.ready, check.reason) == ("agrofirma.ro", True, "")
    assert check.details["records"][2] == {
        "record": "DKIM",
        "name": "resend._domainkey",
        "type": "TXT",
        "status": "verified",
    }

    broken = copy.deepcopy(api_fixture("domain_get"))
    broken["status"] = "partially_failed"
    broken["records"][2]["status"] = "failed"
    responses.replace(responses.GET, DOMAIN, json=broken)
    readiness.check_all()
    check.refresh_from_db()
    said = reasons.render(check.reason)
    assert not check.ready
    assert "“partially_failed”, not verified" in said
    assert "DKIM record resend._domainkey (TXT) is “failed”" in said
    alert = Alert.objects.get(subject="sender-ready:resend:agrofirma.ro")
    assert alert.tenant is None and alert.resolved_at is None

    # Warm email waits while the domain is not ready.
    with time_machine.travel(MONDAY_10, tick=False):
        lead = make_lead(tenant, email="ana@ferma.ro", email_status="valid")
        waiting = make_message(
            lead, channel="EMAIL_WARM", counterpart=lead.email, subject="Ofertă",
            scheduled_for=MONDAY_10,
        )  # fmt: skip
        outcome = send_message(waiting.pk)
    assert outcome.kind == "deferred" and "not ready" in outcome.detail

    responses.replace(responses.GET, DOMAIN, json=api_fixture("domain_get"))
    readiness.check_all()
    alert.refresh_from_db()
    assert alert.resolved_at is not None and SenderCheck.objects.get().ready


@responses.activate
def test_a_domain_missing_from_the_account_is_not_ready():
    listing = copy.deepcopy(api_fixture("domains_list"))
    listing["data"] = listing["data"][1:]  # only the receiving domain
    responses.get(DOMAINS, json=listing)
    readiness.check_all()
    check = SenderCheck.objects.get(provider="resend")
    assert "the domain agrofirma.ro is not in the account" in reasons.render(check.reason)


@responses.activate
def test_resend_out_of_reach_keeps_the_last_answer():
    responses.get(DOMAINS, json=api_fixture("domains_list"))
    responses.get(DOMAIN, json=api_fixture("domain_get"))
    readiness.check_all()
    responses.replace(responses.GET, DOMAINS, status=503, json={"message": "down"})
    assert "resend" not in readiness.check_all()
    assert SenderCheck.objects.get().ready
