"""TimelinesAI client against faked HTTP (`responses`), bodies shaped as in docs/providers.md §1.

Fixtures in integrations/timelinesai/fixtures/api/ follow TL-OAS schemas and TimelinesAI's own
captured responses (TL-PROBE); only the phone numbers, names and texts are ours.
"""

from __future__ import annotations

import copy
import http.client
import json
import logging
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from urllib.parse import parse_qsl, urlsplit

import pytest
import requests
import responses
from responses import matchers
from urllib3.exceptions import MaxRetryError, NewConnectionError, ProtocolError

from cerniq.provider_errors import (
    AccountDisconnected,
    AuthenticationFailed,
    InvalidRecipient,
    PermanentProviderError,
    ProviderError,
    ProviderTimeout,
    ProviderUnavailable,
    QuotaExceeded,
    RateLimited,
    RejectedRequest,
    SendResult,
)
from integrations.timelinesai.client import TimelinesAI
from tests.whatsapp.conftest import API_FIXTURES

FIXTURES = API_FIXTURES
BASE = "https://app.timelines.ai/integrations/api"
TOKEN = "4d2d0239-e28c-4f4a-8a4d-3a3ca40056b8"
SENDER = "+40740000101"  # "active" in whatsapp_accounts.json
SENDER_DOWN = "+40740000102"  # "disconnected" in whatsapp_accounts.json
SENDER_JID = "40740000101@s.whatsapp.net"
LEAD = "+40722000111"
TEXT = "Bună ziua, domnule Popescu! Vă scriu despre semințele de grâu 🌾"
SENT_UID = "a5bbb005-37f2-402c-96fa-e479a2e09b02"
CHAT_ID = "27616435"


def body(name: str) -> dict:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


def raw(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def query(call) -> dict[str, str]:
    return dict(parse_qsl(urlsplit(call.request.url).query))


@pytest.fixture
def rsps():
    with responses.RequestsMock(assert_all_requests_are_fired=True) as mock:
        yield mock


@pytest.fixture
def client():
    return TimelinesAI(api_token=TOKEN)


# --- the two sends ------------------------------------------------------------------------


def test_send_to_phone_posts_utf8_json_with_the_required_headers(rsps, client):
    rsps.post(f"{BASE}/messages", json=body("send_ok.json"))

    result = client.send_to_phone(account_phone=SENDER, to=LEAD, text=TEXT)

    assert result == SendResult(SENT_UID, raw=body("send_ok.json"), thread_id="")
    (call,) = rsps.calls
    request = call.request
    assert request.method == "POST"
    assert request.url == f"{BASE}/messages"  # no trailing slash, no query
    assert isinstance(request.body, bytes)
    assert json.loads(request.body.decode("utf-8")) == {
        "phone": LEAD,
        "text": TEXT,
        "whatsapp_account_phone": SENDER,
    }
    # diacritics and emoji travel as UTF-8 bytes, not as \u escapes
    assert "semințele de grâu 🌾".encode() in request.body
    assert b"\\u" not in request.body
    assert request.headers["Authorization"] == f"Bearer {TOKEN}"
    assert request.headers["User-Agent"] == "CerniqOutreach/0.1 (+https://cerniq.app)"
    assert request.headers["Content-Type"] == "application/json; charset=utf-8"
    assert request.headers["Accept"] == "application/json"
    assert request.headers["Connection"] == "close"
    assert call.request.req_kwargs["timeout"] == (5.0, 30.0)


def test_send_to_chat_posts_text_only_and_returns_the_chat_as_thread(rsps, client):
    rsps.post(f"{BASE}/chats/{CHAT_ID}/messages", json=body("send_ok.json"))

    result = client.send_to_chat(chat_id=CHAT_ID, text="Revin cu oferta până vineri.\nMersi!")

    assert result.provider_message_id == SENT_UID
    assert result.thread_id == CHAT_ID
    assert result.raw == body("send_ok.json")
    request = rsps.calls[0].request
    assert request.url == f"{BASE}/chats/{CHAT_ID}/messages"
    assert json.loads(request.body.decode("utf-8")) == {
        "text": "Revin cu oferta până vineri.\nMersi!"
    }
    assert request.headers["Content-Type"] == "application/json; charset=utf-8"
    assert request.headers["Authorization"] == f"Bearer {TOKEN}"


def test_send_to_chat_accepts_an_integer_chat_id(rsps, client):
    rsps.post(f"{BASE}/chats/{CHAT_ID}/messages", json=body("send_ok.json"))
    assert client.send_to_chat(chat_id=int(CHAT_ID), text="Salut").thread_id == CHAT_ID


def test_base_url_with_a_trailing_slash_still_gives_clean_paths(rsps):
    rsps.post(f"{BASE}/messages", json=body("send_ok.json"))
    TimelinesAI(api_token=TOKEN, base_url=BASE + "/").send_to_phone(
        account_phone=SENDER, to=LEAD, text="Salut"
    )
    assert rsps.calls[0].request.url == f"{BASE}/messages"


def test_every_call_uses_its_own_session_which_is_closed(rsps, client, monkeypatch):
    opened: list[requests.Session] = []
    closed: list[requests.Session] = []

    class SpySession(requests.Session):
        def __init__(self):
            super().__init__()
            opened.append(self)

        def close(self):
            closed.append(self)
            super().close()

    monkeypatch.setattr(requests, "Session", SpySession)
    rsps.post(f"{BASE}/messages", json=body("send_ok.json"))
    rsps.post(f"{BASE}/chats/{CHAT_ID}/messages", json=body("send_ok.json"))

    client.send_to_phone(account_phone=SENDER, to=LEAD, text="Salut")
    client.send_to_chat(chat_id=CHAT_ID, text="Salut din nou")

    assert len(opened) == 2 and opened[0] is not opened[1]
    assert closed == opened


def test_the_token_is_not_logged_and_phones_are_masked(rsps, client, caplog):
    rsps.get(
        f"{BASE}/chats",
        json=body("chats_by_phone.json"),
        match=[matchers.query_param_matcher({"phone": LEAD})],
    )
    rsps.post(f"{BASE}/messages", status=400, json=body("error_invalid_phone_format.json"))
    caplog.set_level(logging.DEBUG, logger="integrations.timelinesai.client")

    client.find_chat(to=LEAD)
    with pytest.raises(InvalidRecipient) as excinfo:
        client.send_to_phone(account_phone=SENDER, to=LEAD, text="Salut")

    assert "/chats?phone=+407***111" in caplog.text  # the call is logged, masked
    assert TOKEN not in caplog.text and "Bearer" not in caplog.text
    assert LEAD not in caplog.text and SENDER not in caplog.text
    assert TOKEN not in str(excinfo.value) and TOKEN not in repr(client)


# --- reading ------------------------------------------------------------------------------


def test_message_info_returns_the_message_object(rsps, client):
    rsps.get(f"{BASE}/messages/{SENT_UID}", json=body("message_info.json"))

    info = client.message_info(SENT_UID)

    assert info["uid"] == SENT_UID
    assert info["chat_id"] == int(CHAT_ID)
    assert info["from_me"] is True and info["status"] == "Delivered"
    assert info["text"] == TEXT
    request = rsps.calls[0].request
    assert request.url == f"{BASE}/messages/{SENT_UID}"
    assert request.body is None and "Content-Type" not in request.headers
    assert request.headers["Authorization"] == f"Bearer {TOKEN}"


def test_status_history_returns_the_records_in_order(rsps, client):
    rsps.get(f"{BASE}/messages/{SENT_UID}/status_history", json=body("status_history.json"))

    history = client.status_history(SENT_UID)

    assert [row["status"] for row in history] == ["Sent", "Delivered", "Read"]
    assert history[0]["timestamp"] == "2026-05-18 10:44:23 +0300"
    assert rsps.calls[0].request.url == f"{BASE}/messages/{SENT_UID}/status_history"


def test_find_chat_filters_by_phone_and_account_url_encoded(rsps, client):
    rsps.get(
        f"{BASE}/chats",
        json=body("chats_by_phone.json"),
        match=[matchers.query_param_matcher({"phone": LEAD, "whatsapp_account_id": SENDER_JID})],
    )

    chat = client.find_chat(to=LEAD, account_id=SENDER_JID)

    assert chat is not None and chat["id"] == int(CHAT_ID) and chat["phone"] == LEAD
    url = rsps.calls[0].request.url
    assert "phone=%2B40722000111" in url  # a raw "+" would arrive as a space
    assert "whatsapp_account_id=40740000101%40s.whatsapp.net" in url
    assert "/chats?" in url and "/chats/?" not in url


def test_find_chat_returns_none_when_there_is_no_chat(rsps, client):
    rsps.get(f"{BASE}/chats", json=body("chats_empty.json"))
    assert client.find_chat(to=LEAD) is None
    assert query(rsps.calls[0]) == {"phone": LEAD}


def test_find_chat_ignores_a_chat_with_another_number_or_account(rsps, client):
    page = body("chats_by_phone.json")
    other_number = copy.deepcopy(page["data"]["chats"][0])
    other_number["phone"] = "+407220001119"  # a substring match would be someone else
    other_account = copy.deepcopy(page["data"]["chats"][0])
    other_account["whatsapp_account_id"] = "40740000102@s.whatsapp.net"
    page["data"]["chats"] = [other_number, other_account]
    rsps.get(f"{BASE}/chats", json=page)

    assert client.find_chat(to=LEAD, account_id=SENDER_JID) is None


def _register_find_sent(rsps, pages: list[dict], since: datetime) -> None:
    rsps.get(f"{BASE}/chats", json=body("chats_by_phone.json"))
    after = (since - timedelta(hours=14)).strftime("%Y-%m-%d %H:%M:%S")
    for number, page in enumerate(pages, start=1):
        params = {"from_me": "true", "after": after, "sorting_order": "desc", "page": str(number)}
        rsps.get(
            f"{BASE}/chats/{CHAT_ID}/messages",
            json=page,
            match=[matchers.query_param_matcher(params)],
        )


SINCE = datetime(2026, 5, 18, 7, 40, tzinfo=UTC)  # 10:40 +0300; the send was at 10:44:21


def test_find_sent_finds_the_message_on_page_two(rsps, client):
    _register_find_sent(
        rsps, [body("chat_messages_page1.json"), body("chat_messages_page2.json")], SINCE
    )

    found = client.find_sent(to=LEAD, text=f"  {TEXT}\n", since=SINCE, account_id=SENDER_JID)

    assert found == SendResult(
        SENT_UID, raw=body("chat_messages_page2.json")["data"]["messages"][0], thread_id=CHAT_ID
    )
    assert [urlsplit(c.request.url).path for c in rsps.calls] == [
        "/integrations/api/chats",
        f"/integrations/api/chats/{CHAT_ID}/messages",
        f"/integrations/api/chats/{CHAT_ID}/messages",
    ]
    assert query(rsps.calls[0]) == {"phone": LEAD, "whatsapp_account_id": SENDER_JID}


def test_find_sent_returns_none_when_there_is_no_chat(rsps, client):
    rsps.get(f"{BASE}/chats", json=body("chats_empty.json"))
    assert client.find_sent(to=LEAD, text=TEXT, since=SINCE) is None
    assert len(rsps.calls) == 1


def test_find_sent_returns_none_when_no_text_matches(rsps, client):
    page2 = body("chat_messages_page2.json")
    page2["data"]["messages"][0]["text"] = TEXT.replace("grâu", "orz")
    _register_find_sent(rsps, [body("chat_messages_page1.json"), page2], SINCE)

    assert client.find_sent(to=LEAD, text=TEXT, since=SINCE) is None


def test_find_sent_ignores_the_same_text_sent_before_since(rsps, client):
    page2 = body("chat_messages_page2.json")
    page2["data"]["messages"][0]["timestamp"] = "2026-05-11 09:12:40 +0300"
    _register_find_sent(rsps, [body("chat_messages_page1.json"), page2], SINCE)

    assert client.find_sent(to=LEAD, text=TEXT, since=SINCE) is None


def test_find_sent_reads_at_most_three_pages(rsps, client):
    endless = body("chat_messages_page1.json")  # has_more_pages: true every time
    _register_find_sent(rsps, [endless, endless, endless], SINCE)

    assert client.find_sent(to=LEAD, text=TEXT, since=SINCE) is None
    assert [query(c).get("page") for c in rsps.calls[1:]] == ["1", "2", "3"]


def test_find_sent_needs_an_aware_datetime(client):
    with pytest.raises(ValueError):
        client.find_sent(to=LEAD, text=TEXT, since=datetime(2026, 5, 18, 7, 40))  # noqa: DTZ001


def test_list_accounts_and_account_status(rsps, client):
    rsps.get(f"{BASE}/whatsapp_accounts", json=body("whatsapp_accounts.json"))

    accounts = client.list_accounts()
    assert [a["id"] for a in accounts] == [SENDER_JID, "40740000102@s.whatsapp.net"]
    assert rsps.calls[0].request.url == f"{BASE}/whatsapp_accounts"

    assert client.account_status(SENDER) == "active"
    assert client.account_status(SENDER_DOWN) == "disconnected"
    assert client.account_status("+40740000999") is None
    assert len(rsps.calls) == 4


def test_account_status_is_lower_cased(rsps, client):
    accounts = body("whatsapp_accounts.json")
    accounts["data"]["whatsapp_accounts"][0]["status"] = "Active"  # as in the spec's example
    rsps.get(f"{BASE}/whatsapp_accounts", json=accounts)
    assert client.account_status(SENDER) == "active"


# --- error classification -----------------------------------------------------------------


def _send(client):
    return client.send_to_phone(account_phone=SENDER, to=LEAD, text=TEXT)


def test_read_timeout_is_an_uncertain_provider_timeout(rsps, client):
    rsps.post(f"{BASE}/messages", body=requests.exceptions.ReadTimeout("read timed out"))
    with pytest.raises(ProviderTimeout) as excinfo:
        _send(client)
    error = excinfo.value
    assert error.uncertain is True and error.status_code is None
    assert isinstance(error, ProviderError) and not isinstance(error, PermanentProviderError)


def test_connect_timeout_is_unavailable_and_certainly_not_sent(rsps, client):
    rsps.post(f"{BASE}/messages", body=requests.exceptions.ConnectTimeout("connect timed out"))
    with pytest.raises(ProviderUnavailable) as excinfo:
        _send(client)
    assert excinfo.value.uncertain is False and excinfo.value.status_code is None
    assert not isinstance(excinfo.value, ProviderTimeout)


def test_refused_connection_is_unavailable_and_certainly_not_sent(rsps, client):
    refused = NewConnectionError(None, "Failed to establish a new connection: [Errno 111]")
    error = requests.exceptions.ConnectionError(MaxRetryError(None, "/messages", refused))
    rsps.post(f"{BASE}/messages", body=error)
    with pytest.raises(ProviderUnavailable) as excinfo:
        _send(client)
    assert excinfo.value.uncertain is False


def test_connection_dropped_after_the_request_is_uncertain(rsps, client):
    dropped = ProtocolError("Connection aborted.", http.client.RemoteDisconnected("closed"))
    rsps.post(f"{BASE}/messages", body=requests.exceptions.ConnectionError(dropped))
    with pytest.raises(ProviderUnavailable) as excinfo:
        _send(client)
    assert excinfo.value.uncertain is True


@pytest.mark.parametrize(
    ("status", "kwargs", "uncertain"),
    [
        (500, {"json": body("error_internal.json")}, True),
        (502, {"body": "<html><body>502 Bad Gateway</body></html>"}, True),
        (503, {"body": "<html><body>503 Service Unavailable</body></html>"}, False),
    ],
)
def test_5xx_is_provider_unavailable(rsps, client, status, kwargs, uncertain):
    rsps.post(f"{BASE}/messages", status=status, **kwargs)
    with pytest.raises(ProviderUnavailable) as excinfo:
        _send(client)
    assert excinfo.value.status_code == status
    assert excinfo.value.uncertain is uncertain  # a gateway 5xx may hide an accepted send
    assert not isinstance(excinfo.value, PermanentProviderError)


def test_5xx_on_a_read_is_not_uncertain(rsps, client):
    rsps.get(f"{BASE}/whatsapp_accounts", status=500, json=body("error_internal.json"))
    with pytest.raises(ProviderUnavailable) as excinfo:
        client.list_accounts()
    assert excinfo.value.uncertain is False and excinfo.value.error_code == "internal_error"


def test_429_without_retry_after_waits_60_seconds(rsps, client):
    rsps.post(f"{BASE}/messages", status=429, json=body("error_rate_limited.json"))
    with pytest.raises(RateLimited) as excinfo:
        _send(client)
    assert excinfo.value.retry_after == 60 and excinfo.value.status_code == 429
    assert excinfo.value.provider_message.startswith("Rate limit exceeded")


def test_429_with_retry_after_seconds(rsps, client):
    rsps.post(
        f"{BASE}/messages",
        status=429,
        json=body("error_rate_limited.json"),
        headers={"Retry-After": "17"},
    )
    with pytest.raises(RateLimited) as excinfo:
        _send(client)
    assert excinfo.value.retry_after == 17


def test_429_with_retry_after_http_date(rsps, client):
    when = datetime.now(UTC) + timedelta(seconds=120)
    rsps.post(
        f"{BASE}/messages",
        status=429,
        json=body("error_rate_limited.json"),
        headers={"Retry-After": format_datetime(when, usegmt=True)},
    )
    with pytest.raises(RateLimited) as excinfo:
        _send(client)
    assert 110 <= excinfo.value.retry_after <= 121


@pytest.mark.parametrize("status", [429, 403])
def test_quota_exceeded_waits_for_the_next_day(rsps, client, status):
    rsps.post(f"{BASE}/messages", status=status, json=body("error_quota_exceeded.json"))
    with pytest.raises(QuotaExceeded) as excinfo:
        _send(client)
    error = excinfo.value
    assert error.status_code == status and error.error_code == "quota_exceeded"
    assert error.provider_message == "Message quota exceeded"
    assert 0 < error.retry_after <= 86400
    now = datetime.now(UTC)
    assert (now + timedelta(seconds=error.retry_after + 2)).date() > now.date()


def test_quota_message_without_code_is_quota_exceeded(rsps, client):
    quota = {"status": "error", "message": "Message quota exceeded"}  # sending-messages.mdx
    rsps.post(f"{BASE}/messages", status=400, json=quota)
    with pytest.raises(QuotaExceeded):
        _send(client)


def test_invalid_phone_number_format_is_invalid_recipient(rsps, client):
    rsps.post(f"{BASE}/messages", status=400, json=body("error_invalid_phone_format.json"))
    with pytest.raises(InvalidRecipient) as excinfo:
        _send(client)
    assert excinfo.value.status_code == 400
    assert excinfo.value.provider_message == "Invalid phone number format"
    assert len(rsps.calls) == 1  # no account check for an unambiguous answer


def test_wrong_phone_number_with_the_sender_active_is_invalid_recipient(rsps, client):
    rsps.post(f"{BASE}/messages", status=400, json=body("error_wrong_phone_number.json"))
    rsps.get(f"{BASE}/whatsapp_accounts", json=body("whatsapp_accounts.json"))

    with pytest.raises(InvalidRecipient) as excinfo:
        _send(client)

    assert excinfo.value.provider_message == 'Wrong phone number "+40722000111"'
    assert not isinstance(excinfo.value, AccountDisconnected)
    assert rsps.calls[1].request.url == f"{BASE}/whatsapp_accounts"


def test_wrong_phone_number_with_the_sender_disconnected_is_account_disconnected(rsps, client):
    rsps.post(f"{BASE}/messages", status=400, json=body("error_wrong_phone_number.json"))
    rsps.get(f"{BASE}/whatsapp_accounts", json=body("whatsapp_accounts.json"))

    with pytest.raises(AccountDisconnected) as excinfo:
        client.send_to_phone(account_phone=SENDER_DOWN, to=LEAD, text=TEXT)

    assert [c.request.method for c in rsps.calls] == ["POST", "GET"]
    assert rsps.calls[1].request.url == f"{BASE}/whatsapp_accounts"
    error = excinfo.value
    assert error.status_code == 400 and "Wrong phone number" in error.provider_message
    assert "disconnected" in str(error) and LEAD not in str(error)


def test_wrong_phone_number_from_an_unknown_sender_is_account_disconnected(rsps, client):
    rsps.post(f"{BASE}/messages", status=400, json=body("error_wrong_phone_number.json"))
    rsps.get(f"{BASE}/whatsapp_accounts", json=body("whatsapp_accounts.json"))
    with pytest.raises(AccountDisconnected):
        client.send_to_phone(account_phone="+40740000999", to=LEAD, text=TEXT)


def test_wrong_phone_number_when_the_account_check_fails_is_retryable(rsps, client):
    rsps.post(f"{BASE}/messages", status=400, json=body("error_wrong_phone_number.json"))
    rsps.get(f"{BASE}/whatsapp_accounts", status=502, body="<html>Bad gateway</html>")
    with pytest.raises(ProviderUnavailable) as excinfo:
        _send(client)
    assert excinfo.value.uncertain is False and excinfo.value.status_code == 400


def test_409_account_inactive_is_account_disconnected(rsps, client):
    rsps.post(
        f"{BASE}/chats/{CHAT_ID}/messages", status=409, json=body("error_account_inactive.json")
    )
    with pytest.raises(AccountDisconnected) as excinfo:
        client.send_to_chat(chat_id=CHAT_ID, text=TEXT)
    assert excinfo.value.status_code == 409 and excinfo.value.error_code == "account_inactive"


def test_no_connected_account_is_account_disconnected(rsps, client):
    rsps.post(f"{BASE}/messages", status=400, json=body("error_no_connected_account.json"))
    with pytest.raises(AccountDisconnected):
        _send(client)
    assert len(rsps.calls) == 1


def test_401_invalid_token_is_authentication_failed(rsps, client):
    rsps.post(f"{BASE}/messages", status=401, json=body("error_invalid_token.json"))
    with pytest.raises(AuthenticationFailed) as excinfo:
        _send(client)
    assert excinfo.value.status_code == 401 and excinfo.value.error_code == "invalid_token"
    assert isinstance(excinfo.value, PermanentProviderError)


def test_403_permission_denied_is_authentication_failed(rsps, client):
    rsps.get(f"{BASE}/whatsapp_accounts", status=403, json=body("error_permission_denied.json"))
    with pytest.raises(AuthenticationFailed) as excinfo:
        client.list_accounts()
    assert excinfo.value.status_code == 403


def test_404_chat_not_found_is_rejected_request(rsps, client):
    rsps.post(f"{BASE}/chats/99999999/messages", status=404, json=body("error_chat_not_found.json"))
    with pytest.raises(RejectedRequest) as excinfo:
        client.send_to_chat(chat_id="99999999", text=TEXT)
    error = excinfo.value
    assert error.status_code == 404
    assert error.provider_message == 'Whatsapp chat_id "99999999" not found'
    assert "404" in str(error) and "not found" in str(error)


def test_413_is_rejected_request(rsps, client):
    rsps.post(
        f"{BASE}/chats/{CHAT_ID}/messages", status=413, json=body("error_payload_too_large.json")
    )
    with pytest.raises(RejectedRequest) as excinfo:
        client.send_to_chat(chat_id=CHAT_ID, text=TEXT)
    assert excinfo.value.status_code == 413


def test_200_with_status_error_is_an_error_classified_by_message(rsps, client):
    rsps.post(f"{BASE}/messages", status=200, json=body("error_no_connected_account.json"))
    with pytest.raises(AccountDisconnected) as excinfo:
        _send(client)
    assert excinfo.value.status_code == 200


def test_200_with_an_unknown_status_error_is_rejected(rsps, client):
    rsps.post(f"{BASE}/messages", status=200, json={"status": "error", "message": "Label too long"})
    with pytest.raises(RejectedRequest) as excinfo:
        _send(client)
    assert excinfo.value.status_code == 200 and excinfo.value.provider_message == "Label too long"


def test_200_ok_without_a_message_uid_is_an_uncertain_error(rsps, client):
    rsps.post(f"{BASE}/messages", json={"status": "ok", "data": {}})
    with pytest.raises(ProviderUnavailable) as excinfo:
        _send(client)
    assert excinfo.value.uncertain is True


def test_redirects_are_not_followed(rsps, client):
    rsps.post(f"{BASE}/messages", status=301, headers={"Location": "https://example.com/messages"})
    with pytest.raises(RejectedRequest) as excinfo:
        _send(client)
    assert excinfo.value.status_code == 301 and len(rsps.calls) == 1


def test_html_404_is_rejected_with_status_and_an_excerpt(rsps, client):
    html = raw("not_found_trailing_slash.html")
    rsps.get(
        f"{BASE}/messages/{SENT_UID}",
        status=404,
        body=html,
        content_type="text/html; charset=utf-8",
    )
    with pytest.raises(RejectedRequest) as excinfo:
        client.message_info(SENT_UID)
    error = excinfo.value
    assert error.status_code == 404
    assert "HTTP 404" in str(error) and "non-JSON" in str(error)
    assert "Page not found | TimelinesAI" in str(error)
    assert len(error.provider_message) <= 200
    assert error.provider_message.startswith("<!DOCTYPE html>")


def test_cloudflare_html_403_is_unavailable_not_an_auth_failure(rsps, client):
    rsps.post(f"{BASE}/messages", status=403, body=raw("cloudflare_403.html"))
    with pytest.raises(ProviderUnavailable) as excinfo:
        _send(client)
    assert excinfo.value.status_code == 403
    assert "Cloudflare" in str(excinfo.value)
    assert not isinstance(excinfo.value, AuthenticationFailed)


def test_error_texts_mask_the_recipient(rsps, client):
    rsps.post(f"{BASE}/messages", status=400, json=body("error_wrong_phone_number.json"))
    rsps.get(f"{BASE}/whatsapp_accounts", json=body("whatsapp_accounts.json"))
    with pytest.raises(InvalidRecipient) as excinfo:
        _send(client)
    assert LEAD not in str(excinfo.value) and "+407***111" in str(excinfo.value)


# --- validation before any HTTP call ------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"text": ""}, "empty"),
        ({"text": "  \n "}, "empty"),
        ({"text": "x" * 2001}, "2001 characters"),
        ({"text": "Salut\x00"}, "NUL"),
        ({"text": "Salut \ud83c"}, "surrogate"),
        ({"to": "0722000111"}, "E.164"),
        ({"to": "+40 722 000 111"}, "E.164"),
        ({"account_phone": ""}, "E.164"),
    ],
)
def test_invalid_sends_are_rejected_without_an_http_call(rsps, client, kwargs, fragment):
    args = {"account_phone": SENDER, "to": LEAD, "text": TEXT, **kwargs}
    with pytest.raises(RejectedRequest) as excinfo:
        client.send_to_phone(**args)
    assert excinfo.value.status_code is None and fragment in str(excinfo.value)
    assert len(rsps.calls) == 0


@pytest.mark.parametrize(
    ("chat_id", "text"), [("123/../whatsapp_accounts", "Salut"), ("", "Salut"), (CHAT_ID, "")]
)
def test_invalid_chat_sends_are_rejected_without_an_http_call(rsps, client, chat_id, text):
    with pytest.raises(RejectedRequest):
        client.send_to_chat(chat_id=chat_id, text=text)
    assert len(rsps.calls) == 0


def test_2000_characters_is_allowed(rsps, client):
    rsps.post(f"{BASE}/chats/{CHAT_ID}/messages", json=body("send_ok.json"))
    client.send_to_chat(chat_id=CHAT_ID, text="ă" * 2000)
    assert len(json.loads(rsps.calls[0].request.body)["text"]) == 2000


def test_a_missing_token_fails_without_an_http_call(rsps):
    with pytest.raises(AuthenticationFailed):
        TimelinesAI(api_token="").send_to_phone(account_phone=SENDER, to=LEAD, text=TEXT)
    assert len(rsps.calls) == 0


def test_a_bad_uid_is_rejected_without_an_http_call(rsps, client):
    with pytest.raises(RejectedRequest):
        client.status_history("../whatsapp_accounts")
    assert len(rsps.calls) == 0


# --- the error classes --------------------------------------------------------------------


def test_error_classes_keep_the_two_roots_and_carry_details():
    assert issubclass(ProviderTimeout, ProviderError)
    assert not issubclass(ProviderTimeout, PermanentProviderError)
    for cls in (ProviderUnavailable, RateLimited, QuotaExceeded):
        assert issubclass(cls, ProviderError) and not issubclass(cls, PermanentProviderError)
    for cls in (InvalidRecipient, AccountDisconnected, AuthenticationFailed, RejectedRequest):
        assert issubclass(cls, PermanentProviderError)

    legacy = ProviderError("boom", retry_after=5)
    assert (legacy.retry_after, legacy.status_code, legacy.provider_message) == (5, None, "")
    assert legacy.uncertain is False and ProviderTimeout("t").uncertain is True
    assert PermanentProviderError("x").status_code is None
    detailed = RejectedRequest("x", status_code=422, provider_message="bad", error_code="e")
    assert (detailed.status_code, detailed.provider_message, detailed.error_code) == (
        422,
        "bad",
        "e",
    )
