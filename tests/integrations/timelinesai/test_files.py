"""WhatsApp files through TimelinesAI (issue #24 §4, the provider's part): a file is
uploaded once (`POST /files_upload`, multipart) and sent by its uid with the text as its
caption, to a number or into a chat; the answers and refusals as for any send."""

from __future__ import annotations

import json

import pytest
import responses

from cerniq.provider_errors import ProviderUnavailable, RejectedRequest
from integrations.timelinesai.client import TimelinesAI
from tests.integrations.timelinesai.test_client import (
    BASE,
    CHAT_ID,
    LEAD,
    SENDER,
    TOKEN,
    body,
)

PDF = b"%PDF-1.4\n% a price list\n"
FILE_UID = "9c1b3a52-6f7d-4e0a-b8a1-2f4c7d9e0a11"


@pytest.fixture
def rsps():
    with responses.RequestsMock(assert_all_requests_are_fired=True) as mock:
        yield mock


@pytest.fixture
def client():
    return TimelinesAI(api_token=TOKEN)


def test_a_file_is_uploaded_as_multipart_with_its_name_and_type(rsps, client):
    rsps.post(f"{BASE}/files_upload", json=body("file_upload_ok.json"))
    info = client.upload_file(
        content=PDF, filename="lista-preturi-toamna.pdf", content_type="application/pdf"
    )
    assert info["uid"] == FILE_UID
    request = rsps.calls[0].request
    assert request.headers["Content-Type"].startswith("multipart/form-data; boundary=")
    assert request.headers["Authorization"] == f"Bearer {TOKEN}"
    sent = request.body
    assert b'name="file"; filename="lista-preturi-toamna.pdf"' in sent
    assert b"Content-Type: application/pdf" in sent and PDF in sent
    assert b'name="filename"\r\n\r\nlista-preturi-toamna.pdf' in sent
    assert b'name="content_type"\r\n\r\napplication/pdf' in sent


def test_a_file_is_sent_by_its_uid_with_the_text_as_caption(rsps, client):
    rsps.post(f"{BASE}/messages", json=body("send_ok.json"))
    rsps.post(f"{BASE}/chats/{CHAT_ID}/messages", json=body("send_ok.json"))
    client.send_to_phone(account_phone=SENDER, to=LEAD, text="Lista de prețuri", file_uid=FILE_UID)
    client.send_to_chat(chat_id=CHAT_ID, text="", file_uid=FILE_UID)
    first, second = (json.loads(call.request.body) for call in rsps.calls)
    assert first == {
        "phone": LEAD,
        "text": "Lista de prețuri",
        "whatsapp_account_phone": SENDER,
        "file_uid": FILE_UID,
    }
    assert second == {"text": "", "file_uid": FILE_UID}


def test_text_may_be_empty_only_with_a_file(client):
    with pytest.raises(RejectedRequest):
        client.send_to_chat(chat_id=CHAT_ID, text="  ")
    with pytest.raises(RejectedRequest):
        client.send_to_chat(chat_id=CHAT_ID, text="x", file_uid="../etc")


@pytest.mark.parametrize("name", ["", "a/b.pdf", "x" * 201])
def test_a_bad_file_name_is_refused_before_any_call(client, name):
    with pytest.raises(RejectedRequest):
        client.upload_file(content=PDF, filename=name, content_type="application/pdf")


def test_a_too_large_file_and_an_answer_without_uid(rsps, client):
    rsps.post(f"{BASE}/files_upload", json=body("error_payload_too_large.json"), status=413)
    with pytest.raises(RejectedRequest) as refused:
        client.upload_file(content=PDF, filename="mare.pdf", content_type="application/pdf")
    assert refused.value.status_code == 413
    rsps.post(f"{BASE}/files_upload", json={"status": "ok", "data": {}})
    with pytest.raises(ProviderUnavailable):
        client.upload_file(content=PDF, filename="x.pdf", content_type="application/pdf")
