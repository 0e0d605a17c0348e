"""The Resend client against its HTTP (`responses`, the recorded fixtures/api answers): the
request it sends, every documented error mapped to the retry table's classes, and the
rate limits it keeps for the whole deployment."""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime

import pytest
import requests
import responses
import time_machine

from cerniq.provider_errors import (
    AlreadyAccepted,
    AuthenticationFailed,
    InvalidRecipient,
    PermanentProviderError,
    ProviderTimeout,
    ProviderUnavailable,
    QuotaExceeded,
    RateLimited,
    RejectedRequest,
)
from email_channels.backends import MAX_ATTACHMENT_BYTES, EmailAttachment, OutgoingEmail
from integrations.resend import errors
from integrations.resend.client import USER_AGENT, ResendEmail
from tests.integrations.resend.conftest import API_FIXTURES, API_KEY, SENDER, api_fixture

URL = "https://api.resend.com/emails"
EMAIL = OutgoingEmail(
    to="office@fermaverde.ro",
    subject="Proforma nr. 118 — semințe de grâu",
    text="Bună ziua,\nVă trimit proforma.\n",
    reply_to="vanzari@agrofirma.ro",
    headers={
        "List-Unsubscribe": "<https://cerniq.example/u/tok>, <mailto:u@agrofirma.ro>",
        "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    },
    attachments=(EmailAttachment("proforma-118.pdf", b"%PDF-1.7 \x00\xff", "application/pdf"),),
    tags={"tenant_id": "7", "message_id": "4242"},
)


def ok(**headers):
    responses.post(URL, json=api_fixture("send_ok"), headers=headers)


@responses.activate
def test_send_posts_the_documented_body_and_headers(resend):
    ok()
    result = resend.send(EMAIL, idempotency_key="message-4242")
    assert result.provider_message_id == "49a3999c-0ce1-4ea6-ab68-afcd6dc2e794"
    request = responses.calls[0].request
    assert request.headers["Authorization"] == f"Bearer {API_KEY}"
    assert request.headers["User-Agent"] == USER_AGENT and USER_AGENT.startswith("cerniq-outreach/")
    assert request.headers["Idempotency-Key"] == "message-4242"
    assert request.headers["Content-Type"].startswith("application/json")
    body = json.loads(request.body)
    assert body == {
        "from": SENDER,
        "to": ["office@fermaverde.ro"],
        "subject": "Proforma nr. 118 — semințe de grâu",
        "text": "Bună ziua,\nVă trimit proforma.\n",
        "reply_to": "vanzari@agrofirma.ro",
        "headers": dict(EMAIL.headers),
        "attachments": [
            {
                "filename": "proforma-118.pdf",
                "content": base64.b64encode(b"%PDF-1.7 \x00\xff").decode(),
                "content_type": "application/pdf",
            }
        ],
        "tags": [{"name": "tenant_id", "value": "7"}, {"name": "message_id", "value": "4242"}],
    }
    assert "html" not in body  # a text email stays text (client.request_body says why)
    assert "ț" in request.body.decode("utf-8")  # UTF-8 on the wire, not \u escapes


@responses.activate
def test_html_is_sent_when_the_core_wrote_one(resend):
    ok()
    email = OutgoingEmail(to="a@fermaverde.ro", subject="S", text="t", html="<p>t</p>")
    resend.send(email, idempotency_key="k")
    assert json.loads(responses.calls[0].request.body)["html"] == "<p>t</p>"


@responses.activate
def test_a_retry_after_a_read_timeout_reuses_the_same_key(resend):
    responses.post(URL, body=requests.exceptions.ReadTimeout("read timed out"))
    ok()
    with pytest.raises(ProviderTimeout) as caught:
        resend.send(EMAIL, idempotency_key="message-4242")
    assert caught.value.uncertain  # it may have been sent: the retry must dedupe
    assert (
        resend.find_sent(idempotency_key="message-4242", to=EMAIL.to, since=datetime.now(UTC))
        is None
    )
    resend.send(EMAIL, idempotency_key="message-4242")
    keys = [call.request.headers["Idempotency-Key"] for call in responses.calls]
    assert keys == ["message-4242", "message-4242"]
    assert responses.calls[0].request.body == responses.calls[1].request.body


@responses.activate
def test_transport_failures(resend):
    responses.post(URL, body=requests.exceptions.ConnectTimeout("connect timed out"))
    with pytest.raises(ProviderUnavailable) as caught:
        resend.send(EMAIL, idempotency_key="k")
    assert not caught.value.uncertain  # never left: a plain retry
    responses.replace(responses.POST, URL, body=requests.exceptions.ConnectionError("reset"))
    with pytest.raises(ProviderUnavailable) as caught:
        resend.send(EMAIL, idempotency_key="k")
    assert caught.value.uncertain


# Every documented error body (docs/providers.md §3.2) → the class, and whether a retry may help.
ERRORS = {
    "error_400_validation_error": (RejectedRequest, False),
    "error_400_invalid_idempotency_key": (RejectedRequest, False),
    "error_401_missing_api_key": (AuthenticationFailed, False),
    "error_401_restricted_api_key": (AuthenticationFailed, False),
    "error_403_invalid_api_key": (AuthenticationFailed, False),
    "error_403_validation_error": (AuthenticationFailed, False),  # unverified domain
    "error_404_not_found": (RejectedRequest, False),
    "error_405_method_not_allowed": (RejectedRequest, False),
    # Resend holds an earlier request under the key: that attempt got through.
    "error_409_invalid_idempotent_request": (AlreadyAccepted, False),
    "error_409_concurrent_idempotent_requests": (ProviderUnavailable, True),
    "error_422_invalid_attachment": (RejectedRequest, False),
    "error_422_invalid_from_address": (RejectedRequest, False),
    "error_422_invalid_parameter": (RejectedRequest, False),
    "error_422_missing_required_field": (RejectedRequest, False),
    "error_422_validation_error": (InvalidRecipient, False),  # about `to`
    "error_429_rate_limit_exceeded": (RateLimited, False),
    "error_429_daily_quota_exceeded": (QuotaExceeded, False),
    "error_429_monthly_quota_exceeded": (QuotaExceeded, False),
    "error_451_security_error": (RejectedRequest, False),
    "error_500_application_error": (ProviderUnavailable, True),
    "error_500_internal_server_error": (ProviderUnavailable, True),
}


def test_every_recorded_error_is_in_the_table():
    assert {p.stem for p in API_FIXTURES.glob("error_*.json")} == set(ERRORS)


@pytest.mark.parametrize("name", sorted(ERRORS))
@responses.activate
def test_every_documented_error_is_mapped(resend, name):
    body = api_fixture(name)
    responses.post(URL, json=body, status=body["statusCode"], headers={"retry-after": "2"})
    cls, uncertain = ERRORS[name]
    with pytest.raises(cls) as caught:
        resend.send(EMAIL, idempotency_key="k")
    error = caught.value
    assert type(error) is cls
    assert error.status_code == body["statusCode"] and error.error_code == body["name"]
    assert error.provider_message == body["message"]
    assert error.uncertain is uncertain
    permanent = isinstance(error, PermanentProviderError)
    assert permanent == (cls in (RejectedRequest, AuthenticationFailed, InvalidRecipient))
    if cls in (RateLimited, QuotaExceeded):
        assert error.retry_after == 2
    if name == "error_409_concurrent_idempotent_requests":
        assert error.retry_after == 1  # the first request is running: ask again soon


@responses.activate
def test_quota_without_retry_after_waits_for_the_next_utc_day(resend):
    body = api_fixture("error_429_daily_quota_exceeded")
    responses.post(URL, json=body, status=429)
    night = time_machine.travel(datetime(2026, 8, 1, 23, 0, tzinfo=UTC), tick=False)
    with night, pytest.raises(QuotaExceeded) as caught:
        resend.send(EMAIL, idempotency_key="k")
    assert caught.value.retry_after == 3600


@pytest.mark.parametrize(
    ("fixture", "status", "cls", "uncertain"),
    [
        ("gateway_502.html", 502, ProviderUnavailable, True),
        ("gateway_502.html", 503, ProviderUnavailable, False),
        ("cloudflare_1010.html", 403, ProviderUnavailable, False),
        ("gateway_502.html", 400, RejectedRequest, False),
    ],
)
@responses.activate
def test_pages_that_are_not_json(resend, fixture, status, cls, uncertain):
    page = (API_FIXTURES / fixture).read_bytes()
    responses.post(URL, body=page, status=status, content_type="text/html")
    with pytest.raises(cls) as caught:
        resend.send(EMAIL, idempotency_key="k")
    assert caught.value.uncertain is uncertain


@responses.activate
def test_a_2xx_without_an_id_may_have_been_sent(resend):
    responses.post(URL, json={"object": "email"})
    with pytest.raises(ProviderUnavailable) as caught:
        resend.send(EMAIL, idempotency_key="k")
    assert caught.value.uncertain


# --- refused before any HTTP ------------------------------------------------------------


def _email(**changes) -> OutgoingEmail:
    fields = {"to": "a@fermaverde.ro", "subject": "S", "text": "t", **changes}
    return OutgoingEmail(**fields)


@pytest.mark.parametrize(
    ("email", "key", "cls"),
    [
        (_email(to="not-an-email"), "k", InvalidRecipient),
        (_email(to="a@b.ro, c@d.ro"), "k", InvalidRecipient),
        (_email(subject=""), "k", RejectedRequest),
        (_email(subject="a\nBcc: x@y.ro"), "k", RejectedRequest),
        (_email(text="", html=""), "k", RejectedRequest),
        (_email(reply_to="nope"), "k", RejectedRequest),
        (_email(headers={"X-Bad\r\nBcc": "x"}), "k", RejectedRequest),
        (_email(headers={"List-Unsubscribe": "<a>\r\nBcc: x@y.ro"}), "k", RejectedRequest),
        (_email(tags={"tenant id": "7"}), "k", RejectedRequest),
        (_email(tags={"tenant_id": "ș"}), "k", RejectedRequest),
        (_email(tags={"tenant_id": "x" * 257}), "k", RejectedRequest),
        (_email(tags={"tenant_id": ""}), "k", RejectedRequest),
        (_email(), "", RejectedRequest),
        (_email(), "k" * 257, RejectedRequest),
        (_email(), "clé", RejectedRequest),
    ],
)
@responses.activate
def test_bad_arguments_are_refused_before_any_http(resend, email, key, cls):
    with pytest.raises(cls) as caught:
        resend.send(email, idempotency_key=key)
    assert caught.value.status_code is None
    assert len(responses.calls) == 0


@responses.activate
def test_tags_at_the_limits_are_sent(resend):
    ok()
    tags = {"a" * 256: "Z-9_" * 64}
    resend.send(_email(tags=tags), idempotency_key="k" * 256)
    assert json.loads(responses.calls[0].request.body)["tags"] == [
        {"name": "a" * 256, "value": "Z-9_" * 64}
    ]


@responses.activate
def test_attachments_over_the_limit_are_refused_before_any_http(resend):
    half = MAX_ATTACHMENT_BYTES // 2
    big = (EmailAttachment("a.pdf", b"x" * half), EmailAttachment("b.pdf", b"x" * (half + 1)))
    with pytest.raises(RejectedRequest, match="attachments total"):
        resend.send(_email(attachments=big), idempotency_key="k")
    assert len(responses.calls) == 0


def test_attachments_up_to_the_limit_are_accepted():
    client = ResendEmail(api_key=API_KEY, from_address=SENDER)
    exact = (EmailAttachment("a.bin", b"\x01" * MAX_ATTACHMENT_BYTES),)
    body = client.request_body(_email(attachments=exact))
    assert len(body["attachments"][0]["content"]) == 4 * -(-MAX_ATTACHMENT_BYTES // 3)


@responses.activate
def test_missing_configuration_is_refused_before_any_http():
    with pytest.raises(AuthenticationFailed):
        ResendEmail(api_key="", from_address=SENDER).send(_email(), idempotency_key="k")
    with pytest.raises(RejectedRequest, match="RESEND_FROM"):
        ResendEmail(api_key=API_KEY, from_address="").send(_email(), idempotency_key="k")
    assert len(responses.calls) == 0


def test_the_key_never_shows():
    assert API_KEY not in repr(ResendEmail(api_key=API_KEY))


# --- rate limits ------------------------------------------------------------------------


@responses.activate
def test_the_deployment_ceiling_holds_across_clients(resend):
    """Two clients (two worker processes) share one window: the third send of a second is
    refused before any HTTP, with a retry a second later."""
    ok()
    other = ResendEmail(api_key=API_KEY, from_address=SENDER, max_per_second="2")
    mine = ResendEmail(api_key=API_KEY, from_address=SENDER, max_per_second=2)
    with time_machine.travel(datetime(2031, 1, 2, 3, 4, 5, tzinfo=UTC), tick=False):
        mine.send(_email(), idempotency_key="k1")
        other.send(_email(), idempotency_key="k2")
        with pytest.raises(RateLimited) as caught:
            mine.send(_email(), idempotency_key="k3")
    assert caught.value.retry_after == 1 and caught.value.status_code is None
    assert len(responses.calls) == 2


@responses.activate
def test_resend_announcing_a_lower_limit_wins(resend):
    ok(**{"ratelimit-limit": "1", "ratelimit-remaining": "4", "ratelimit-reset": "1"})
    with time_machine.travel(datetime(2031, 1, 2, 3, 4, 6, tzinfo=UTC), tick=False):
        resend.send(_email(), idempotency_key="k1")  # learns "1 per second"
        with pytest.raises(RateLimited):
            resend.send(_email(), idempotency_key="k2")
    assert errors.announced_limit() == 1
    assert len(responses.calls) == 1


@responses.activate
def test_nothing_remaining_pauses_every_sender_until_the_reset(resend):
    ok(**{"ratelimit-limit": "5", "ratelimit-remaining": "0", "ratelimit-reset": "3"})
    start = datetime(2031, 1, 2, 3, 4, 10, tzinfo=UTC)
    with time_machine.travel(start, tick=False) as clock:
        resend.send(_email(), idempotency_key="k1")
        other = ResendEmail(api_key=API_KEY, from_address=SENDER)
        with pytest.raises(RateLimited) as caught:
            other.send(_email(), idempotency_key="k2")
        assert caught.value.retry_after == 3
        clock.shift(4)
        other.send(_email(), idempotency_key="k2")
    assert len(responses.calls) == 2


@responses.activate
def test_a_429_pauses_for_retry_after(resend):
    body = api_fixture("error_429_rate_limit_exceeded")
    responses.post(URL, json=body, status=429, headers={"retry-after": "7"})
    with time_machine.travel(datetime(2031, 1, 2, 3, 4, 20, tzinfo=UTC), tick=False):
        with pytest.raises(RateLimited) as first:
            resend.send(_email(), idempotency_key="k1")
        with pytest.raises(RateLimited) as second:
            resend.send(_email(), idempotency_key="k2")
    assert first.value.retry_after == 7 and first.value.status_code == 429
    assert second.value.retry_after == 7 and second.value.status_code is None  # no HTTP
    assert len(responses.calls) == 1


def test_retry_after_reads_seconds_dates_and_the_reset():
    assert errors.retry_after({"retry-after": "12"}) == 12
    assert errors.retry_after({"ratelimit-reset": "3"}) == 3
    assert errors.retry_after({}) == errors.DEFAULT_RETRY_AFTER
    with time_machine.travel(datetime(2031, 1, 2, 3, 4, 0, tzinfo=UTC), tick=False):
        assert errors.retry_after({"retry-after": "Thu, 02 Jan 2031 03:04:30 GMT"}) == 30
    assert errors.retry_after({"retry-after": "soon"}) == errors.DEFAULT_RETRY_AFTER
