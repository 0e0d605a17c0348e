"""One language per page (issue 19, point 7): the reasons of phone status and health
changes, their alerts, the quota alert, suppressions, re-planned messages and campaign
pauses are stored as codes and read in the reader's language on every page, in the admin
and in the API. A history with every kind of them, written through the services, is read
in English and in Romanian; each page shows its language's words and none of the other's.
"""

from __future__ import annotations

import re
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.test import Client

from cerniq import reasons
from cerniq.alerts import raise_alert
from cerniq.models import Alert
from email_channels import reasons as campaign_reasons
from email_channels.models import EmailCampaign
from outreach import email_events, optout
from outreach.phone_health import Signals, score
from outreach.replanning import take_phone_offline
from tests.factories import make_lead, make_message, make_phone, make_sequence, make_user
from whatsapp import phones
from whatsapp import reasons as phone_reasons
from whatsapp.capacity import check_quota_alert
from whatsapp.models import Phone, QuotaUsage

pytestmark = [pytest.mark.django_db, pytest.mark.clock]

TUESDAY = datetime(2026, 11, 24, 11, 0, tzinfo=ZoneInfo("Europe/Bucharest"))

# What each language says of this history, and the other must never show.
ENGLISH = (
    "Paused by an operator",
    "TimelinesAI reports the account as",
    "Health 70/100",
    "sends failed in a row",
    "re-planned on another phone",
    "opted out on",
    "bounced for good",
    "quota nearly exhausted",
    "Paused by the bounce shield",
    "Clean the list",
)
ROMANIAN = (
    "Pus pe pauză de un operator",
    "TimelinesAI raportează contul",
    "Sănătate 70/100",
    "trimiteri eșuate la rând",
    "replanificat pe alt telefon",
    "s-a dezabonat pe",
    "respinsă definitiv",
    "Cota WhatsApp aproape epuizată",
    "protecția la respingeri",
    "Curățați lista",
)


@pytest.fixture
def tuesday():
    """The whole test, its history included, on a working Tuesday morning."""
    with time_machine.travel(TUESDAY, tick=False):
        yield


@pytest.fixture
def history(tenant, settings, tuesday):
    settings.QUOTA_ALERT_SHARE = 0.05  # the quota alert: 10 of 110 used today
    return build_history(tenant)


def build_history(tenant) -> dict:
    """Every kind of event reason, written the way the product writes it (QUOTA_ALERT_SHARE
    low enough for the quota alert, at TUESDAY)."""
    full = make_phone(tenant, number="+40740000004", daily_limit=10)
    QuotaUsage.objects.create(tenant=tenant, phone=full, day=TUESDAY.date(), used=10, limit=10)
    paused = make_phone(tenant, number="+40740000001", label="Vânzări 1")
    phones.pause(paused)  # an operator's pause
    gone = make_phone(tenant, number="+40740000002")
    lead = make_lead(tenant, name="Ferma Verde SRL", email="office@fermaverde.ro")
    queued = make_message(lead, phone=gone)  # re-planned when its phone goes down
    said = reasons.code(phone_reasons.ACCOUNT_STATUS, provider="TimelinesAI", status="qr")
    take_phone_offline(gone, said)
    sick = make_phone(tenant, number="+40740000003")
    phones.set_health(sick, Phone.Health.THROTTLED, score(Signals(failures=3)).reason)
    check_quota_alert(tenant)
    optout.opt_out(lead, "WHATSAPP")  # suppresses its phone and email
    other = make_lead(tenant, name="Livada SRL", email="gone@livada.ro")
    email_events.bounced(tenant, email=other.email, permanent=True, reason="550 no such user")
    campaign = EmailCampaign.objects.create(
        tenant=tenant, name="Livezi", sequence=make_sequence(tenant), external_id="c-1",
        status=EmailCampaign.Status.PAUSED, sent=150, bounced=5,
    )  # fmt: skip
    figures = {"sent": 150, "bounced": 5, "threshold": "3.00", "rate": "3.33"}
    EmailCampaign.objects.filter(pk=campaign.pk).update(
        status_reason=reasons.code(campaign_reasons.SHIELD_PAUSED, **figures)
    )
    raise_alert(
        tenant,
        Alert.Kind.BOUNCE_RATE,
        f"campaign:{campaign.pk}",
        reasons.code(
            campaign_reasons.ALERT_CAMPAIGN_PAUSED, name="Livezi", provider="Instantly", **figures
        ),
    )
    return {"lead": lead, "queued": queued}


def text_of(html: str) -> str:
    """What a reader sees: tags dropped, entities of quotes undone, spaces squeezed."""
    body = html[html.find("<body") :]
    body = re.sub(r"<script.*?</script>|<style.*?</style>", " ", body, flags=re.S)
    text = re.sub(r"<[^>]+>", " ", body).replace("&#x27;", "'").replace("&quot;", '"')
    return " ".join(text.split())


def read(client: Client, path: str) -> str:
    response = client.get(path)
    assert response.status_code == 200, path
    return text_of(response.content.decode())


def assert_one_language(text: str, language: str, expected: tuple[str, ...]) -> None:
    own, other = (ENGLISH, ROMANIAN) if language == "en" else (ROMANIAN, ENGLISH)
    assert [w for w in other if w in text] == [], f"{language} page shows the other language"
    assert [w for w in expected if w not in text] == []
    assert set(expected) <= set(own)


PAGES = {
    "/outreach/phones/": (0, 1, 2, 3, 7),
    "/outreach/alerts/": (1, 2, 7, 9),
    "/outreach/campaigns/": (8,),
}


@pytest.mark.parametrize("language", ["en", "ro"])
def test_each_page_reads_the_reasons_in_the_readers_language(tenant, history, language):
    admin = make_user(tenant, role="ADMIN")
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(admin)
    words = ENGLISH if language == "en" else ROMANIAN
    for path, shown in PAGES.items():
        assert_one_language(read(client, path), language, tuple(words[i] for i in shown))
    lead_page = read(client, f"/outreach/leads/{history['lead'].pk}/")
    assert_one_language(lead_page, language, (words[4],))  # the re-planned message


@pytest.mark.parametrize("language", ["en", "ro"])
def test_the_admin_lists_read_the_reasons_in_the_readers_language(
    superuser, tenant, history, language
):
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(superuser)
    words = ENGLISH if language == "en" else ROMANIAN
    lists = {
        "/admin/whatsapp/phone/": (0, 2, 3),
        "/admin/whatsapp/phonestatuschange/": (0, 1),
        "/admin/outreach/suppression/": (5, 6),
        "/admin/cerniq/alert/": (1, 7, 9),
        "/admin/email_channels/emailcampaign/": (8,),
    }
    for path, shown in lists.items():
        assert_one_language(read(client, path), language, tuple(words[i] for i in shown))


def test_the_api_reads_a_phones_reasons_in_the_requests_language(tenant, history):
    from cerniq import api_keys
    from cerniq.models import TenantAPIKey
    from tests.api.conftest import key_client

    admin = make_user(tenant, role="ADMIN")
    _, key = api_keys.create_key(tenant, name="bi", scope=TenantAPIKey.Scope.READ, user=admin)
    api = key_client(key)
    sick = Phone.objects.get(number="+40740000003")
    english = api.get(f"/api/v1/phones/{sick.pk}/").json()
    romanian = api.get(f"/api/v1/phones/{sick.pk}/", HTTP_ACCEPT_LANGUAGE="ro").json()
    assert english["health"]["reason"] == "Health 70/100: 3 sends failed in a row"
    assert romanian["health"]["reason"] == "Sănătate 70/100: 3 trimiteri eșuate la rând"
    paused = Phone.objects.get(number="+40740000001")
    said = api.get(f"/api/v1/phones/{paused.pk}/", HTTP_ACCEPT_LANGUAGE="ro").json()
    assert said["status_reason"] == "Pus pe pauză de un operator"
