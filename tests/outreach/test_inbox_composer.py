"""The inbox composer (#21): answering a lead on WhatsApp or by email (with files) through
outreach.manual.send_manual, the reason a channel is refused shown before anyone types and
after a refused send (opt-out, closed window, no quota, a colleague's takeover) with the
typed text kept, the default channel, and tenant isolation."""

from __future__ import annotations

import io
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone
from pypdf import PdfWriter

from outreach.manual_checks import channel_answers, default_channel, window_notice
from outreach.models import Channel, Journey, Lead, Message, Suppression
from tests.factories import make_lead, make_message, make_phone, make_user

pytestmark = pytest.mark.django_db

BUCHAREST = ZoneInfo("Europe/Bucharest")
OPEN = datetime(2026, 11, 24, 10, 0, tzinfo=BUCHAREST)  # a Tuesday, inside 09-18
SUNDAY = datetime(2026, 11, 22, 11, 0, tzinfo=BUCHAREST)
HTMX = {"HTTP_HX_REQUEST": "true"}


def pdf_bytes() -> bytes:
    writer = PdfWriter()
    writer.add_blank_page(width=595, height=842)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


@pytest.fixture(autouse=True)
def open_window_and_media(settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path)
    with time_machine.travel(OPEN, tick=False):
        yield


@pytest.fixture
def lead(tenant):
    make_phone(tenant)
    return make_lead(
        tenant,
        name="Ferma Știubei SRL",
        contact_name="Ștefan Țurcanu",
        email="stefan@ferma.ro",
        email_status=Lead.EmailStatus.VALID,
    )


@pytest.fixture
def logged_in(client, operator):
    client.force_login(operator)
    return client


def send_url(lead: Lead) -> str:
    return f"/outreach/inbox/{lead.pk}/send/"


def thread(client, lead: Lead) -> str:
    response = client.get(f"/outreach/inbox/{lead.pk}/")
    assert response.status_code == 200
    return response.content.decode()


# --- sending ------------------------------------------------------------------------------


def test_the_thread_shows_the_composer_with_both_channels_open(logged_in, lead):
    page = thread(logged_in, lead)
    assert 'id="composer-text"' in page and 'name="text"' in page
    assert f'hx-post="/outreach/inbox/{lead.pk}/send/"' in page
    assert 'hx-encoding="multipart/form-data"' in page
    assert "data-refusal" not in page
    assert "js/composer.js" in page


def test_a_whatsapp_answer_is_queued_and_the_composer_comes_back_empty(logged_in, lead):
    response = logged_in.post(
        send_url(lead), {"channel": "WHATSAPP", "text": "Bună ziua, domnule Țurcanu!"}, **HTMX
    )
    assert response.status_code == 200
    assert response["HX-Trigger"] == "cerniq:sent"
    message = Message.objects.get(lead=lead)
    assert (message.channel, message.status) == (Channel.WHATSAPP, Message.Status.QUEUED)
    assert message.body == "Bună ziua, domnule Țurcanu!"
    assert message.is_manual and message.sent_by_id is not None
    body = response.content.decode()
    assert "data-sent" in body and "Bună ziua, domnule" not in body


def test_an_email_with_a_proforma_is_queued_with_its_file(logged_in, lead):
    proforma = SimpleUploadedFile("Proformă 12.pdf", pdf_bytes(), "application/pdf")
    response = logged_in.post(
        send_url(lead),
        {
            "channel": "EMAIL_WARM",
            "subject": "Oferta",
            "text": "Vă trimit oferta.",
            "attachments": [proforma],
        },
        **HTMX,
    )
    assert response["HX-Trigger"] == "cerniq:sent"
    message = Message.objects.get(lead=lead)
    assert (message.channel, message.status, message.subject) == (
        Channel.EMAIL_WARM,
        Message.Status.QUEUED,
        "Oferta",
    )
    (stored,) = message.attachments.all()
    assert (stored.filename, stored.content_type) == ("Proformă 12.pdf", "application/pdf")


def test_a_plain_post_redirects_to_the_thread_with_a_message(logged_in, lead):
    response = logged_in.post(send_url(lead), {"channel": "WHATSAPP", "text": "Salut"}, follow=True)
    assert response.redirect_chain[-1][0] == f"/outreach/inbox/{lead.pk}/"
    assert "Message queued." in response.content.decode()
    assert Message.objects.filter(lead=lead).count() == 1


def test_another_tenants_lead_is_404_and_nothing_is_sent(logged_in, other_tenant):
    theirs = make_lead(other_tenant)
    assert logged_in.post(send_url(theirs), {"text": "Salut"}, **HTMX).status_code == 404
    assert logged_in.get(f"/outreach/inbox/{theirs.pk}/").status_code == 404
    assert not Message.objects.filter(lead=theirs).exists()


# --- refusals, before typing and after a refused send ------------------------------------


def refused_send(client, lead, **data):
    posted = {"channel": "WHATSAPP", "text": "Textul meu cu diacritice: ăâîșț", **data}
    response = client.post(send_url(lead), posted, **HTMX)
    assert response.status_code == 200
    assert "HX-Trigger" not in response
    assert not Message.objects.filter(lead=lead, direction=Message.Direction.OUTBOUND).exists()
    body = response.content.decode()
    assert "Textul meu cu diacritice: ăâîșț" in body  # kept
    return body


def test_a_whatsapp_opt_out_is_shown_beside_the_channel_and_refuses_the_send(logged_in, lead):
    Journey.objects.filter(lead=lead).update(whatsapp_opted_out=True)
    page = thread(logged_in, lead)
    assert 'data-refusal="WHATSAPP"' in page and "opted out of WhatsApp" in page
    assert 'data-refusal="EMAIL_WARM"' not in page
    assert 'value="EMAIL_WARM" checked' in page  # the allowed channel is chosen
    body = refused_send(logged_in, lead)
    assert "data-composer-error" in body and "opted out of WhatsApp" in body


def test_a_suppressed_address_refuses_email(logged_in, lead):
    Suppression.objects.create(tenant=lead.tenant, email="stefan@ferma.ro", reason="unsubscribe")
    ours, _email = channel_answers(lead, None)
    assert _email.refusal == "This address asked us to stop; nothing can be sent to it."
    assert ours.allowed


def test_a_closed_window_is_said_but_a_persons_message_still_goes_out(logged_in, lead):
    # One rule for every place a person writes (outreach.sending): automation waits for
    # the window, a conversation does not; the composer says so instead of refusing.
    with time_machine.travel(SUNDAY, tick=False):
        page = thread(logged_in, lead)
        assert "The sending window is closed until" in page and "weekend" in page
        assert "messages you write still go out now" in page
        assert "disabled data-composer-send" not in page
        response = logged_in.post(send_url(lead), {"channel": "WHATSAPP", "text": "Salut"}, **HTMX)
    assert response["HX-Trigger"] == "cerniq:sent"
    assert Message.objects.get(lead=lead, body="Salut").status == Message.Status.QUEUED


def test_no_quota_left_for_a_new_contact_refuses_whatsapp(logged_in, lead, tenant):
    from whatsapp import quota

    phone = tenant.phones.get()
    day = quota.quota_day(tenant)
    while quota.reserve_new_contact(phone, day):
        pass
    page = thread(logged_in, lead)
    assert "No active WhatsApp phone has quota left today for a new contact." in page
    body = refused_send(logged_in, lead)
    assert "quota" in body


def test_a_colleagues_takeover_names_them_before_and_after(logged_in, lead, tenant):
    ana = make_user(tenant, first_name="Ana", last_name="Pop")
    Journey.objects.filter(lead=lead).update(taken_over_by=ana, taken_over_at=timezone.now())
    page = thread(logged_in, lead)
    assert page.count("Ana Pop took over this conversation") == 1  # said once, for both
    assert 'data-refusal="all"' in page
    assert 'value="WHATSAPP" checked disabled' in page and "disabled data-composer-send" in page
    body = refused_send(logged_in, lead, channel="EMAIL_WARM", subject="Oferta mea")
    assert "Ana Pop took over this conversation" in body
    assert 'value="Oferta mea"' in body and 'value="EMAIL_WARM" checked' in body


def test_the_holder_may_write(logged_in, lead, operator):
    Journey.objects.filter(lead=lead).update(taken_over_by=operator, taken_over_at=timezone.now())
    response = logged_in.post(send_url(lead), {"channel": "WHATSAPP", "text": "Revin eu."}, **HTMX)
    assert response["HX-Trigger"] == "cerniq:sent"


def test_a_refused_email_with_files_asks_for_them_again(logged_in, lead):
    Journey.objects.filter(lead=lead).update(email_opted_out=True)
    proforma = SimpleUploadedFile("oferta.pdf", pdf_bytes(), "application/pdf")
    body = refused_send(
        logged_in, lead, channel="EMAIL_WARM", subject="Oferta", attachments=[proforma]
    )
    assert "opted out of email" in body and "choose the files again" in body


def test_a_refused_plain_post_keeps_the_text_for_the_thread(logged_in, lead):
    Journey.objects.filter(lead=lead).update(whatsapp_opted_out=True)
    response = logged_in.post(
        send_url(lead), {"channel": "WHATSAPP", "text": "Nu se pierde"}, follow=True
    )
    page = response.content.decode()
    assert "Nu se pierde</textarea>" in page and "opted out of WhatsApp" in page


# --- the refusal rules are send_manual's, the default channel ----------------------------


def test_no_window_notice_while_the_window_is_open(lead):
    assert window_notice(lead.tenant) == ""


def test_the_default_channel_is_the_one_the_lead_last_wrote_on(lead):
    assert default_channel(lead) == Channel.WHATSAPP
    make_message(
        lead,
        channel=Channel.EMAIL_COLD,
        direction=Message.Direction.INBOUND,
        status=Message.Status.RECEIVED,
    )
    assert default_channel(lead) == Channel.EMAIL_WARM
    no_phone = make_lead(lead.tenant, phone="", email="a@b.ro")
    assert default_channel(no_phone) == Channel.EMAIL_WARM


def test_an_unchecked_number_is_allowed_with_readinesss_hint(logged_in, lead):
    Lead.objects.filter(pk=lead.pk).update(phone_reachable=None)
    page = thread(logged_in, lead)
    assert 'data-hint="WHATSAPP"' in page and "the first message checks it" in page
    assert 'data-refusal="WHATSAPP"' not in page


def test_an_email_answer_takes_the_leads_subject_with_re(logged_in, lead):
    make_message(
        lead,
        channel=Channel.EMAIL_COLD,
        direction=Message.Direction.INBOUND,
        status=Message.Status.RECEIVED,
        idempotency_key=None,
        subject="Oferta pentru Ferma Știubei",
    )
    page = thread(logged_in, lead)
    assert 'value="Re: Oferta pentru Ferma Știubei"' in page
    make_message(
        lead,
        channel=Channel.EMAIL_COLD,
        direction=Message.Direction.INBOUND,
        status=Message.Status.RECEIVED,
        idempotency_key=None,
        subject="RE: Oferta pentru Ferma Știubei",
    )
    assert 'value="RE: Oferta pentru Ferma Știubei"' in thread(logged_in, lead)  # no Re: Re:
