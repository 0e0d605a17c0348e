"""Images and PDFs on a Cloud API number through the one send path (issue #24 §4): the file
goes up once per number (`POST /<number id>/media`, multipart) and again after Meta's 30
days; inside the customer-service window a message goes as a `document` (with its file
name) or an `image` by media id, its text the caption; outside it, with no approved
media-header template, the message fails with the reason and nothing is sent."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
import responses
import time_machine
from django.core.files.uploadedfile import SimpleUploadedFile

from cerniq.provider_errors import RejectedRequest
from cerniq.providers import get_backend
from integrations.meta import errors
from integrations.meta.models import ApprovedTemplate
from outreach import media
from outreach.dispatch import dispatch_due
from outreach.models import Channel, MediaUpload, Message, SequenceStep, TemplateVersion
from outreach.sending import send_message
from outreach.whatsapp_transport import outgoing_whatsapp
from tests.factories import make_outreach_world
from tests.integrations.meta.conftest import GRAPH, NUMBER_ID, api_body
from tests.whatsapp.conftest import MONDAY_10
from whatsapp.models import Phone

MESSAGES = f"{GRAPH}/{NUMBER_ID}/messages"
MEDIA = f"{GRAPH}/{NUMBER_ID}/media"
MEDIA_ID = "1479537139650973"  # media_upload_ok.json
PDF = b"%PDF-1.7\n% lista de preturi\n%%EOF\n"
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + b"\x00" * 32


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path)


@pytest.fixture
def clock():
    with time_machine.travel(MONDAY_10, tick=False) as traveller:
        yield traveller


def wrote_to_us(lead, phone, at):
    """The person wrote to the number at `at`: the customer-service window is open."""
    Message.objects.create(
        tenant=lead.tenant,
        lead=lead,
        channel=Channel.WHATSAPP,
        direction=Message.Direction.INBOUND,
        status="RECEIVED",
        body="Trimiteți-mi lista, vă rog.",
        counterpart=lead.phone,
        phone=phone,
        sent_at=at,
    )


@pytest.fixture
def world(tenant, clock):
    """Two leads on one Cloud API number, step 1's version carrying a PDF and mapped to a
    (text-only) approved template."""
    world = make_outreach_world(tenant, phones=1, leads=2, steps=1)
    Phone.objects.update(provider="meta", account_id=NUMBER_ID, number="+40740000201")
    step = SequenceStep.objects.get(tenant=tenant)
    version = step.template.versions.get()
    ApprovedTemplate.objects.create(
        tenant=tenant,
        template_version=version,
        name="pas_1",
        language="ro",
        parameters=["contact_name"],
        text="Bună ziua {{1}}, vă scriem de la Agro Demo. Răspundeți STOP pentru dezabonare.",
    )
    pdf = SimpleUploadedFile("Lista prețuri.pdf", PDF, "application/pdf")
    TemplateVersion.objects.update(media=media.store(tenant.pk, pdf))
    for n, lead in enumerate(world["leads"]):
        lead.phone, lead.contact_name = f"+4072211133{n}", "Ion"
        lead.save(update_fields=["phone", "contact_name"])
    world["phone"] = Phone.objects.get()
    return world


def queued(tenant):
    dispatch_due(tenant)
    return list(Message.objects.filter(status="QUEUED").order_by("pk"))


def test_inside_the_window_a_document_goes_by_media_id_uploaded_once(world, tenant):
    for lead in world["leads"]:
        wrote_to_us(lead, world["phone"], MONDAY_10 - timedelta(hours=2))
    messages = queued(tenant)
    assert len(messages) == 2
    with responses.RequestsMock(assert_all_requests_are_fired=True) as rsps:
        rsps.post(MEDIA, json=api_body("media_upload_ok"))
        rsps.post(MESSAGES, json=api_body("send_text_ok"))
        rsps.post(MESSAGES, json={"messages": [{"id": "wamid.second"}]})
        assert [send_message(m.pk).kind for m in messages] == ["sent", "sent"]
        calls = [call.request for call in rsps.calls]
    assert [request.url for request in calls] == [MEDIA, MESSAGES, MESSAGES]
    upload = calls[0].body
    assert calls[0].headers["Content-Type"].startswith("multipart/form-data; boundary=")
    assert calls[0].headers["Authorization"] == "Bearer EAAG-test-access-token"
    assert b'name="messaging_product"\r\n\r\nwhatsapp' in upload
    assert b'name="type"\r\n\r\napplication/pdf' in upload
    assert b'name="file"; filename="Lista pre\xc8\x9buri.pdf"' in upload and PDF in upload
    for message, request in zip(messages, calls[1:], strict=True):
        message.refresh_from_db()
        assert json.loads(request.body) == {
            "messaging_product": "whatsapp",
            "recipient_type": "individual",
            "to": message.counterpart.lstrip("+"),
            "type": "document",
            "document": {"id": MEDIA_ID, "caption": message.body, "filename": "Lista prețuri.pdf"},
            "biz_opaque_callback_data": message.idempotency_key,
        }
        assert message.status == "SENT"
        assert message.raw_request["whatsapp_request"]["type"] == "document"
    stored = MediaUpload.objects.get()
    assert (stored.provider, stored.account, stored.remote_id) == ("meta", NUMBER_ID, MEDIA_ID)
    assert stored.expires_at == MONDAY_10 + timedelta(days=30)


def test_an_image_goes_as_an_image_and_an_expired_id_is_uploaded_again(world, tenant, clock):
    lead, phone = world["leads"][0], world["phone"]
    image = media.store(tenant.pk, SimpleUploadedFile("parcela.png", PNG, "image/png"))
    MediaUpload.objects.create(
        media=image,
        provider="meta",
        account=NUMBER_ID,
        remote_id="expired-id",
        expires_at=MONDAY_10 + timedelta(hours=3),  # Meta forgets it today
    )
    wrote_to_us(lead, phone, MONDAY_10 - timedelta(minutes=5))
    answer = Message.objects.create(
        tenant=tenant,
        lead=lead,
        channel=Channel.WHATSAPP,
        direction=Message.Direction.OUTBOUND,
        status="QUEUED",
        body="Parcela de care vorbeam.",
        counterpart=lead.phone,
        phone=phone,
        is_manual=True,
        media=image,
        idempotency_key="manual-image",
    )
    with responses.RequestsMock(assert_all_requests_are_fired=True) as rsps:
        rsps.post(MEDIA, json={"id": "fresh-id"})
        rsps.post(MESSAGES, json=api_body("send_text_ok"))
        assert send_message(answer.pk).kind == "sent"
        body = json.loads(rsps.calls[1].request.body)
    assert body["type"] == "image"
    assert body["image"] == {"id": "fresh-id", "caption": "Parcela de care vorbeam."}
    assert MediaUpload.objects.get(media=image).remote_id == "fresh-id"


def test_outside_the_window_without_a_media_template_it_fails_with_the_reason(world, tenant):
    messages = queued(tenant)
    with responses.RequestsMock():  # no call may be made: neither the upload nor the send
        outcome = send_message(messages[0].pk)
    message = Message.objects.get(pk=messages[0].pk)
    assert outcome.kind in ("failed", "dead")
    assert message.status in ("FAILED", "DEAD_LETTER")
    assert "media header" in message.error and "never without its file" in message.error
    assert "media header" in message.raw_request["whatsapp_request"]["error"]
    assert message.sent_at is None
    assert not MediaUpload.objects.exists()


def test_the_refusal_carries_its_code(world, tenant):
    """The backend's own answer, before the send path stores it: a code to act on."""
    message = queued(tenant)[0]
    with pytest.raises(RejectedRequest) as refused:
        get_backend("whatsapp.meta").prepare(outgoing_whatsapp(message, world["phone"]))
    assert refused.value.error_code == errors.NO_MEDIA_TEMPLATE


def test_outside_the_window_a_template_with_a_document_header_carries_the_file(world, tenant):
    ApprovedTemplate.objects.update(header=ApprovedTemplate.Header.DOCUMENT)
    message = queued(tenant)[0]
    with responses.RequestsMock(assert_all_requests_are_fired=True) as rsps:
        rsps.post(MEDIA, json=api_body("media_upload_ok"))
        rsps.post(MESSAGES, json=api_body("send_text_ok"))
        assert send_message(message.pk).kind == "sent"
        body = json.loads(rsps.calls[1].request.body)
    assert body == {
        "messaging_product": "whatsapp",
        "recipient_type": "individual",
        "to": message.counterpart.lstrip("+"),
        "type": "template",
        "template": {
            "name": "pas_1",
            "language": {"code": "ro"},
            "components": [
                {
                    "type": "header",
                    "parameters": [
                        {
                            "type": "document",
                            "document": {"id": MEDIA_ID, "filename": "Lista prețuri.pdf"},
                        }
                    ],
                },
                {"type": "body", "parameters": [{"type": "text", "text": "Ion"}]},
            ],
        },
        "biz_opaque_callback_data": message.idempotency_key,
    }
    message.refresh_from_db()
    assert message.status == "SENT" and message.body.startswith("Bună ziua Ion")


def test_a_header_of_another_kind_than_the_file_is_refused_like_none(world, tenant):
    ApprovedTemplate.objects.update(header=ApprovedTemplate.Header.IMAGE)  # the file is a PDF
    message = queued(tenant)[0]
    with pytest.raises(RejectedRequest) as refused:
        get_backend("whatsapp.meta").prepare(outgoing_whatsapp(message, world["phone"]))
    assert refused.value.error_code == errors.NO_MEDIA_TEMPLATE
