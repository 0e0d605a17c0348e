"""One-click unsubscribe (RFC 8058): public, signed, idempotent, and every channel stops."""

from __future__ import annotations

import pytest
from django.test import Client

from outreach import unsubscribe
from outreach.models import Journey, Lead
from outreach.suppression import is_suppressed
from tests.factories import make_lead, make_tenant

pytestmark = pytest.mark.django_db
ONE_CLICK = {"List-Unsubscribe": "One-Click"}


@pytest.fixture
def lead(tenant):
    return make_lead(tenant, email="ion@agro.ro", email_status=Lead.EmailStatus.VALID)


@pytest.fixture
def mail_client():
    """What a mail client is: no cookie, no CSRF token, no login."""
    return Client(enforce_csrf_checks=True)


def path_of(lead) -> str:
    return f"/u/{unsubscribe.token_for(lead)}/"


def journey_of(lead) -> Journey:
    return Journey.objects.get(lead=lead)


def test_every_email_carries_the_rfc_8058_headers(lead, settings):
    settings.PUBLIC_BASE_URL = "https://outreach.example.ro/"
    headers = unsubscribe.headers_for(lead)
    assert headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert headers["List-Unsubscribe"] == f"<https://outreach.example.ro{path_of(lead)}>"


def test_opening_the_link_asks_and_changes_nothing(lead, mail_client):
    response = mail_client.get(path_of(lead))
    assert response.status_code == 200
    assert b'name="List-Unsubscribe"' in response.content
    assert b"i***@agro.ro" in response.content and b"ion@agro.ro" not in response.content
    assert not journey_of(lead).email_opted_out


def test_a_mail_clients_one_click_post_stops_every_channel(tenant, lead, mail_client):
    response = mail_client.post(path_of(lead), ONE_CLICK)
    assert response.status_code == 200
    journey = journey_of(lead)
    assert journey.email_opted_out and journey.whatsapp_opted_out
    lead.refresh_from_db()
    assert lead.email_status == Lead.EmailStatus.UNSUBSCRIBED
    assert is_suppressed(tenant, email="ion@agro.ro") and is_suppressed(tenant, phone=lead.phone)
    # Again (a second click, a retrying mail client): the same answer, nothing else changes.
    opted_at = journey.email_opted_out_at
    assert mail_client.post(path_of(lead), ONE_CLICK).status_code == 200
    assert journey_of(lead).email_opted_out_at == opted_at
    assert b'data-state="done"' in mail_client.get(path_of(lead)).content


@pytest.mark.parametrize("mangle", [lambda t: t[:-2], lambda t: t + "x", lambda t: "x" + t[1:]])
def test_a_changed_token_is_refused_and_changes_nothing(lead, mail_client, mangle):
    token = mangle(unsubscribe.token_for(lead))
    for method in (mail_client.get, mail_client.post):
        assert method(f"/u/{token}/").status_code == 404
    assert not journey_of(lead).email_opted_out


def test_a_token_names_its_tenant(lead, mail_client):
    """A token only ever reaches the lead it was made for, in its own tenant."""
    other = make_lead(make_tenant(), email="x@y.ro")
    forged = unsubscribe.signing.dumps(
        {"t": other.tenant_id, "l": lead.pk}, salt=unsubscribe.SALT, compress=True
    )
    assert mail_client.post(f"/u/{forged}/", ONE_CLICK).status_code == 404
    assert not journey_of(lead).email_opted_out


def test_the_page_speaks_romanian_to_a_romanian_recipient(lead, mail_client):
    page = mail_client.get(path_of(lead), HTTP_ACCEPT_LANGUAGE="ro").content.decode()
    assert "Opriți toate mesajele de la" in page and "Dezabonare" in page
    page = mail_client.post(path_of(lead), ONE_CLICK, HTTP_ACCEPT_LANGUAGE="ro").content.decode()
    assert "nu vă va mai scrie, nici pe email, nici pe WhatsApp" in page
