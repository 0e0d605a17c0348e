"""Routing a received email to its tenant, lead and message (integrations/resend/inbound.py,
reply_address.py), the Reply-To and thread headers of our sends, and the reply's own words
(email_channels/reply_text.py)."""

from __future__ import annotations

import pytest
import responses

from cerniq.models import WebhookEvent
from cerniq.provider_errors import AuthenticationFailed, RejectedRequest
from cerniq.webhooks import process_event
from email_channels.backends import OutgoingEmail
from email_channels.reply_text import reply_text, without_quote
from integrations.resend.client import ResendEmail
from integrations.resend.reply_address import Route, reply_address, route_of
from outreach.models import Channel, Lead, Message
from tests.factories import make_lead, make_message, make_tenant
from tests.integrations.resend.conftest import (
    ADDRESS,
    API_KEY,
    SENDER,
    api_fixture,
    post_webhook,
    tagged,
    webhook_fixture,
)

pytestmark = pytest.mark.django_db
RESEND = "https://api.resend.com"
DOMAIN = "raspuns.agrofirma.ro"
OUR_MESSAGE_ID = "<202608011000.4ef9a417@email.agrofirma.ro>"  # the fixture's In-Reply-To


# --- the reply address ------------------------------------------------------------------


def test_a_reply_address_names_its_tenant_and_message_and_nothing_else_does():
    address = reply_address(DOMAIN, tenant_id=7, message_id=4242)
    assert address.startswith("reply+7-4242-") and address.endswith("@" + DOMAIN)
    assert route_of(address) == Route(7, 4242)
    assert route_of(f"Cerniq Agro <{address}>") == Route(7, 4242)
    assert route_of(address.upper()) == Route(7, 4242)  # a mail system that uppercases
    assert route_of(address.replace("@" + DOMAIN, "@other.ro")) == Route(7, 4242)
    local, _, domain = address.partition("@")
    assert route_of(local.replace("-4242-", "-4243-") + "@" + domain) is None  # made up
    assert route_of(local[:-1] + ("0" if local[-1] != "0" else "1") + "@" + domain) is None
    assert route_of("reply+7-4242@" + DOMAIN) is None
    assert route_of("oferte@agrofirma.ro") is None and route_of("not an address") is None


def test_a_reply_address_made_before_a_key_rotation_still_routes(settings):
    address = reply_address(DOMAIN, tenant_id=3, message_id=9)
    settings.SECRET_KEY_FALLBACKS = [settings.SECRET_KEY]
    settings.SECRET_KEY = "a-new-secret-key-for-this-deployment-0123456789"
    assert route_of(address) == Route(3, 9)
    settings.SECRET_KEY_FALLBACKS = []
    assert route_of(address) is None


# --- what we send -----------------------------------------------------------------------


def _email(**kw) -> OutgoingEmail:
    return OutgoingEmail(
        **{
            "to": ADDRESS,
            "subject": "Oferta",
            "text": "Bună ziua!",
            "tags": {"tenant_id": "5", "message_id": "77"},
            **kw,
        }
    )


def test_with_an_inbound_domain_every_send_says_reply_to_its_routed_address():
    client = ResendEmail(api_key=API_KEY, from_address=SENDER, inbound_domain=DOMAIN)
    body = client.request_body(_email())
    assert route_of(body["reply_to"]) == Route(5, 77)
    assert body["reply_to"].endswith("@" + DOMAIN)
    explicit = client.request_body(_email(reply_to="vanzari@agrofirma.ro"))
    assert explicit["reply_to"] == "vanzari@agrofirma.ro"  # a caller's own choice wins
    assert "reply_to" not in ResendEmail(api_key=API_KEY, from_address=SENDER).request_body(
        _email()
    )


def test_an_inbound_domain_that_is_no_domain_is_refused_at_start():
    with pytest.raises(ValueError, match="RESEND_INBOUND_DOMAIN"):
        ResendEmail(api_key=API_KEY, from_address=SENDER, inbound_domain="not a domain")


def test_an_answer_in_a_thread_carries_in_reply_to_and_references():
    client = ResendEmail(api_key=API_KEY, from_address=SENDER)
    body = client.request_body(_email(in_reply_to="<CAF=abc123@mail.gmail.com>"))
    assert body["headers"]["In-Reply-To"] == "<CAF=abc123@mail.gmail.com>"
    assert body["headers"]["References"] == "<CAF=abc123@mail.gmail.com>"
    plain = client.request_body(_email(in_reply_to="not-a-message-id\r\nBcc: x@y.ro"))
    assert "In-Reply-To" not in plain.get("headers", {})


def test_a_received_email_is_fetched_with_a_get_and_errors_are_classified():
    client = ResendEmail(api_key=API_KEY, from_address=SENDER)
    email_id = api_fixture("received_email")["id"]
    with responses.RequestsMock() as rsps:
        rsps.get(f"{RESEND}/emails/receiving/{email_id}", json=api_fixture("received_email"))
        rsps.get(
            f"{RESEND}/emails/receiving/{email_id}",
            status=401,
            json=api_fixture("error_401_restricted_api_key"),
        )
        assert client.received_email(email_id)["text"].startswith("Bună ziua")
        request = rsps.calls[0].request
        assert request.method == "GET" and request.headers["User-Agent"].startswith("cerniq")
        assert "Idempotency-Key" not in request.headers
        with pytest.raises(AuthenticationFailed):
            client.received_email(email_id)
        with pytest.raises(RejectedRequest):
            client.received_email("../emails")  # never reaches HTTP
        assert len(rsps.calls) == 2


# --- whose reply it is ------------------------------------------------------------------


def _received(to: list[str], **data) -> dict:
    body = webhook_fixture("email_received")
    body["data"].update(to=to, received_for=to, **data)
    return body


def _deliver(client, tenant, body, msg_id="msg_in_1") -> str:
    answer = post_webhook(client, tenant, body, msg_id=msg_id).json()
    assert answer["status"] == "accepted", answer
    return process_event(answer["id"])


def test_another_tenants_reply_is_ignored_without_calling_resend(client, tenant):
    other = make_tenant()
    lead = make_lead(other, email=ADDRESS)
    sent = make_message(lead, channel=Channel.EMAIL_WARM, status="SENT", counterpart=ADDRESS)
    address = reply_address(DOMAIN, tenant_id=other.pk, message_id=sent.pk)
    with responses.RequestsMock():  # any HTTP call would fail the test
        assert _deliver(client, tenant, _received([address])) == "ignored"
    assert not Message.objects.filter(direction="IN").exists()


def test_mail_to_no_reply_address_of_a_tenant_without_threads_calls_nothing(client, tenant):
    make_lead(tenant, email=ADDRESS)  # the sender is a lead, yet nothing says it answers us
    with responses.RequestsMock():
        assert _deliver(client, tenant, _received(["oferte@agrofirma.ro"])) == "ignored"
    assert not Message.objects.filter(direction="IN").exists()


def test_a_reply_naming_our_message_id_is_threaded_without_a_reply_address(
    client, tenant, sent_email
):
    """Our email's Message-ID comes with a newer outbound event; the lead's client names it
    in In-Reply-To, though the reply went to our From address."""
    delivered = tagged(webhook_fixture("email_delivered"), tenant)
    delivered["data"]["message_id"] = OUR_MESSAGE_ID
    assert _deliver(client, tenant, delivered, msg_id="msg_out") == "processed"
    sent_email.refresh_from_db()
    assert sent_email.provider_thread_id == OUR_MESSAGE_ID
    body = _received(["oferte@agrofirma.ro"], **{"from": "Ion <ion@alt-domeniu.ro>"})
    with responses.RequestsMock() as rsps:
        rsps.get(f"{RESEND}/emails/receiving/{body['data']['email_id']}", json=_api("Da."))
        assert _deliver(client, tenant, body) == "processed"
    reply = Message.objects.get(direction="IN")
    assert reply.lead_id == sent_email.lead_id  # threaded, though sent from another address
    assert reply.counterpart == "ion@alt-domeniu.ro"
    assert reply.raw_response["answers_message"] == sent_email.pk


def test_a_reply_in_no_thread_of_ours_is_ignored(client, tenant, sent_email):
    Message.objects.filter(pk=sent_email.pk).update(provider_thread_id="<other@x.ro>")
    body = _received(["oferte@agrofirma.ro"])
    with responses.RequestsMock() as rsps:
        rsps.get(f"{RESEND}/emails/receiving/{body['data']['email_id']}", json=_api("Da."))
        assert _deliver(client, tenant, body) == "ignored"
    assert not Message.objects.filter(direction="IN").exists()


def test_an_internationalised_sender_is_taken_in(client, tenant, sent_email):
    address = reply_address(DOMAIN, tenant_id=tenant.pk, message_id=sent_email.pk)
    body = _received([address], **{"from": "José Ștefan <josé@fermă-verde.ro>"})
    with responses.RequestsMock() as rsps:
        rsps.get(f"{RESEND}/emails/receiving/{body['data']['email_id']}", json=_api("Sigur."))
        assert _deliver(client, tenant, body) == "processed"
    reply = Message.objects.get(direction="IN")
    assert reply.lead_id == sent_email.lead_id and reply.counterpart == "josé@fermă-verde.ro"


def test_a_routed_reply_whose_message_is_gone_goes_to_the_senders_lead(client, tenant):
    lead = make_lead(tenant, email=ADDRESS, email_status=Lead.EmailStatus.VALID)
    address = reply_address(DOMAIN, tenant_id=tenant.pk, message_id=999_999)
    body = _received([address])
    with responses.RequestsMock() as rsps:
        rsps.get(f"{RESEND}/emails/receiving/{body['data']['email_id']}", json=_api("Da."))
        assert _deliver(client, tenant, body) == "processed"
    assert Message.objects.get(direction="IN").lead_id == lead.pk


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda d: d.update(email_id="../emails"), "data.email_id"),
        (lambda d: d.update({"from": "nobody"}), "data.from"),
        (lambda d: d.update(message_id="<a b@c>"), "data.message_id"),
        (lambda d: d.pop("message_id"), "data.message_id"),
        (lambda d: d.update(to="oferte@agrofirma.ro"), "data.to"),
    ],
)
def test_a_received_email_breaking_what_we_read_is_400_naming_the_field(
    client, tenant, change, field
):
    body = webhook_fixture("email_received")
    change(body["data"])
    response = post_webhook(client, tenant, body)
    assert response.status_code == 400 and response.json()["field"] == field
    assert WebhookEvent.objects.get().status == WebhookEvent.Status.MALFORMED


def _api(text: str) -> dict:
    return {**api_fixture("received_email"), "text": text}


# --- the reply's own words --------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Da, sunați-mă.\n\nÎn vin., 1 aug. 2026 la 10:00, Cerniq <o@a.ro> a scris:\n> STOP",
        "Da, sunați-mă.\n\nOn Fri, Aug 1, 2026 at 10:00 AM Cerniq <o@a.ro> wrote:\n> STOP",
        "Da, sunați-mă.\n\n-----Original Message-----\nFrom: Cerniq\nSTOP",
        "Da, sunați-mă.\n\n-----Mesaj original-----\nDe la: Cerniq\nSTOP",
        "Da, sunați-mă.\n\nDe la: Cerniq Agro <o@a.ro>\nTrimis: vineri\nSubiect: Oferta\nSTOP",
        "Da, sunați-mă.\n________________________________\nFrom: Cerniq\nSent: Friday\nSTOP",
        "> Dacă nu doriți, răspundeți STOP\nDa, sunați-mă.",
    ],
)
def test_the_quoted_email_is_left_out(text):
    assert without_quote(text) == "Da, sunați-mă."


def test_html_is_read_without_its_blockquote():
    html = "<p>Da &amp; mulțumesc</p><blockquote>Răspundeți <b>STOP</b></blockquote>"
    assert reply_text(None, html) == "Da & mulțumesc"
    assert reply_text("", "") == "" and reply_text("Text", html) == "Text"
