"""The campaigns page: the tenant's campaigns with their bounce rate; pause, resume and "why
(not) sending" asked of the provider through its email backend."""

from __future__ import annotations

import pytest

from cerniq.providers import get_backend
from email_channels.models import EmailCampaign
from tests.factories import make_tenant

pytestmark = pytest.mark.django_db


@pytest.fixture
def logged_in(client, operator):
    client.force_login(operator)
    return client


@pytest.fixture
def sandbox_campaigns(settings):
    settings.PROVIDERS = {
        **settings.PROVIDERS,
        "email.sandbox": {"BACKEND": "integrations.sandbox.email.SandboxEmail"},
    }


@pytest.fixture
def campaign(tenant, sandbox_campaigns):
    return EmailCampaign.objects.create(
        tenant=tenant,
        name="Ferme Iași",
        provider="sandbox",
        external_id="camp-1",
        sent=200,
        bounced=9,
    )


def test_the_page_lists_only_the_tenants_campaigns_with_their_bounce_rate(logged_in, campaign):
    EmailCampaign.objects.create(tenant=make_tenant(), name="Alt client", external_id="x")
    page = logged_in.get("/outreach/campaigns/").content.decode()
    assert "Ferme Iași" in page and "Alt client" not in page
    assert 'class="bad-text">4.50%' in page  # 9 of 200, over the 3 % threshold


def test_pause_check_resume(logged_in, campaign):
    backend = get_backend("email.sandbox")
    url = f"/outreach/campaigns/{campaign.pk}"
    page = logged_in.post(f"{url}/pause/", follow=True).content.decode()
    campaign.refresh_from_db()
    assert campaign.status == EmailCampaign.Status.PAUSED and "camp-1" in backend.paused
    assert "is paused" in page
    page = logged_in.post(f"{url}/check/", follow=True).content.decode()
    assert "Ferme Iași”: paused." in page
    logged_in.post(f"{url}/resume/", follow=True)
    campaign.refresh_from_db()
    assert campaign.status == EmailCampaign.Status.ACTIVE and "camp-1" not in backend.paused
    page = logged_in.post(f"{url}/check/", follow=True).content.decode()
    assert "sending normally" in page


def test_refusals_are_said_and_change_nothing(logged_in, campaign, tenant):
    page = logged_in.post(f"/outreach/campaigns/{campaign.pk}/resume/", follow=True)
    assert "is not paused" in page.content.decode()
    draft = EmailCampaign.objects.create(tenant=tenant, name="Ciornă", provider="sandbox")
    page = logged_in.post(f"/outreach/campaigns/{draft.pk}/pause/", follow=True)
    assert "not created at the provider yet" in page.content.decode()
    assert EmailCampaign.objects.get(pk=draft.pk).status == EmailCampaign.Status.ACTIVE


def test_another_tenants_campaign_is_404(logged_in, sandbox_campaigns):
    other = EmailCampaign.objects.create(tenant=make_tenant(), name="Alt", external_id="o-1")
    assert logged_in.post(f"/outreach/campaigns/{other.pk}/pause/").status_code == 404
    assert EmailCampaign.objects.get(pk=other.pk).status == EmailCampaign.Status.ACTIVE


def test_the_admin_pauses_and_resumes_at_the_provider(admin_client, campaign):
    url = "/admin/email_channels/emailcampaign/"
    admin_client.post(url, {"action": "pause_at_provider", "_selected_action": [campaign.pk]})
    campaign.refresh_from_db()
    assert campaign.status == EmailCampaign.Status.PAUSED
    assert "camp-1" in get_backend("email.sandbox").paused
    page = admin_client.post(
        url, {"action": "pause_at_provider", "_selected_action": [campaign.pk]}, follow=True
    ).content.decode()
    assert "is not active" in page  # said, not a crash
    admin_client.post(url, {"action": "resume_at_provider", "_selected_action": [campaign.pk]})
    campaign.refresh_from_db()
    assert campaign.status == EmailCampaign.Status.ACTIVE
