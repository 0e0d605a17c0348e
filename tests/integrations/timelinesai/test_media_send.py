"""A template version's file through TimelinesAI and the one send path (issue #24 §4): the
file goes up once (`POST /files_upload`, multipart `file`, `filename`, `content_type`) and
every message is sent with its uid (`file_uid`) and the text as caption, to a number or
into a chat; a failed upload is retried as any failed send."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
import responses
from django.core.files.uploadedfile import SimpleUploadedFile

from outreach import media
from outreach.dispatch import dispatch_due
from outreach.models import Channel, MediaUpload, Message, TemplateVersion
from outreach.sending import send_message
from tests.factories import make_outreach_world
from tests.whatsapp.conftest import BASE, MONDAY_10, api_body

PDF = b"%PDF-1.7\n% lista de preturi toamna\n%%EOF\n"
FILE_UID = "9c1b3a52-6f7d-4e0a-b8a1-2f4c7d9e0a11"  # file_upload_ok.json
SENDER = "+40740000101"


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path)


@pytest.fixture
def queued(tenant, clock, timelinesai):
    """Two first messages QUEUED on one TimelinesAI number, both from a version that
    carries a PDF."""
    world = make_outreach_world(tenant, leads=2, phones=1, steps=1)
    phone = world["phones"][0]
    phone.number, phone.provider = SENDER, "timelinesai"
    phone.account_id = "40740000101@s.whatsapp.net"
    phone.save()
    for n, lead in enumerate(world["leads"]):
        lead.phone = f"+4072200011{n}"
        lead.save()
    upload = SimpleUploadedFile("Lista prețuri.pdf", PDF, "application/pdf")
    TemplateVersion.objects.update(media=media.store(tenant.pk, upload))
    dispatch_due(tenant)
    return list(Message.objects.order_by("pk"))


def test_the_file_goes_up_once_and_each_message_is_sent_with_its_uid(queued):
    assert len(queued) == 2 and all(m.media_id for m in queued)
    with responses.RequestsMock(assert_all_requests_are_fired=True) as rsps:
        rsps.post(f"{BASE}/files_upload", json=api_body("file_upload_ok.json"))
        rsps.post(f"{BASE}/messages", json=api_body("send_ok.json"))
        rsps.post(f"{BASE}/messages", json={"status": "ok", "data": {"message_uid": "uid-2"}})
        assert [send_message(m.pk).kind for m in queued] == ["sent", "sent"]
        calls = [(c.request.url, c.request) for c in rsps.calls]
    assert [url for url, _ in calls] == [
        f"{BASE}/files_upload",
        f"{BASE}/messages",
        f"{BASE}/messages",
    ]
    upload = calls[0][1]
    assert upload.headers["Content-Type"].startswith("multipart/form-data; boundary=")
    assert b'name="file"; filename="Lista pre\xc8\x9buri.pdf"' in upload.body
    assert b"Content-Type: application/pdf" in upload.body and PDF in upload.body
    assert b'name="filename"\r\n\r\nLista pre\xc8\x9buri.pdf' in upload.body
    assert b'name="content_type"\r\n\r\napplication/pdf' in upload.body
    for message, (_, request) in zip(queued, calls[1:], strict=True):
        message.refresh_from_db()
        assert json.loads(request.body) == {
            "phone": message.counterpart,
            "text": message.body,
            "whatsapp_account_phone": SENDER,
            "file_uid": FILE_UID,
        }
        assert message.status == "SENT"
    stored = MediaUpload.objects.get()
    assert (stored.provider, stored.account, stored.remote_id) == (
        "timelinesai",
        "40740000101@s.whatsapp.net",
        FILE_UID,
    )
    assert stored.expires_at is None  # TimelinesAI keeps its files


def test_a_follow_up_goes_into_the_chat_with_the_file(queued):
    first = queued[0]
    MediaUpload.objects.create(
        media=first.media,
        provider="timelinesai",
        account="40740000101@s.whatsapp.net",
        remote_id=FILE_UID,
    )
    follow_up = Message.objects.create(
        tenant=first.tenant,
        lead=first.lead,
        channel=Channel.WHATSAPP,
        direction=Message.Direction.OUTBOUND,
        status="QUEUED",
        body="Vă retrimit lista de prețuri.",
        counterpart=first.counterpart,
        phone=first.phone,
        provider_thread_id="12345",
        is_manual=True,
        media=first.media,
        idempotency_key="manual-follow-up",
    )
    with responses.RequestsMock(assert_all_requests_are_fired=True) as rsps:
        rsps.post(f"{BASE}/chats/12345/messages", json=api_body("send_ok.json"))
        assert send_message(follow_up.pk).kind == "sent"
        body = json.loads(rsps.calls[0].request.body)
    assert body == {"text": "Vă retrimit lista de prețuri.", "file_uid": FILE_UID}


def test_a_failed_upload_is_retried_like_a_failed_send_and_nothing_is_sent(queued, clock):
    message = queued[0]
    with responses.RequestsMock(assert_all_requests_are_fired=True) as rsps:
        rsps.post(f"{BASE}/files_upload", status=500, json=api_body("error_internal.json"))
        outcome = send_message(message.pk)
    assert outcome.kind == "retry" and outcome.retry_at == MONDAY_10 + timedelta(seconds=15)
    message.refresh_from_db()
    assert message.status == "QUEUED" and not message.needs_reconcile
    assert "Internal server error" in message.error
    assert not MediaUpload.objects.exists()
    clock.shift(timedelta(seconds=15))
    with responses.RequestsMock(assert_all_requests_are_fired=True) as rsps:
        rsps.post(f"{BASE}/files_upload", json=api_body("file_upload_ok.json"))
        rsps.post(f"{BASE}/messages", json=api_body("send_ok.json"))
        assert send_message(message.pk).kind == "sent"
    assert MediaUpload.objects.get().remote_id == FILE_UID
