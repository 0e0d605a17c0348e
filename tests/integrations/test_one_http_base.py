"""Every provider client speaks HTTP through cerniq.provider_http: the same failure gives the
same error class, hence the same row of the retry table, whoever answered.

Each provider is driven through a call it really makes (a send where it has one), with the
provider's own error body shape; the decision of `cerniq.retry.decide` must be equal across
providers for each kind of failure.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
import requests
import responses

from cerniq import retry
from cerniq.provider_errors import (
    AuthenticationFailed,
    ProviderError,
    ProviderTimeout,
    ProviderUnavailable,
    RateLimited,
    RejectedRequest,
)
from hitl.triage.openai_compatible import OpenAICompatibleTriage
from integrations.instantly.client import InstantlyClient
from integrations.instantly.ratelimit import WorkspaceLimiter, workspace_key
from integrations.mailchimp.client import MailchimpClient, subscriber_hash
from integrations.meta.cloud import CloudAPI
from integrations.resend.client import ResendEmail
from integrations.timelinesai.client import TimelinesAI

CHAT = "123456"


@dataclass(frozen=True)
class Provider:
    name: str
    method: str
    url: str
    call: Callable[[], Any]
    error_body: Callable[[int, str], dict[str, Any]]  # the provider's error shape
    sends: bool  # the call changes something at the provider


def timelinesai() -> Provider:
    client = TimelinesAI(api_token="tok", base_url="https://tl.test/api")
    return Provider(
        "timelinesai",
        "POST",
        f"https://tl.test/api/chats/{CHAT}/messages",
        lambda: client.send_to_chat(chat_id=CHAT, text="Bună ziua"),
        lambda status, text: {"status": "error", "message": text},
        sends=True,
    )


def instantly() -> Provider:
    key = f"key-{uuid.uuid4()}"
    client = InstantlyClient(
        api_key=key, base_url="https://in.test", limiter=WorkspaceLimiter(workspace_key(key))
    )
    return Provider(
        "instantly",
        "POST",
        "https://in.test/api/v2/campaigns",
        lambda: client.create_campaign({"name": "c", "campaign_schedule": {"schedules": []}}),
        lambda status, text: {"statusCode": status, "error": "Some Error", "message": text},
        sends=True,
    )


def resend() -> Provider:
    client = ResendEmail(api_key="re_key", base_url="https://re.test", from_address="a@b.ro")
    return Provider(
        "resend",
        "POST",
        "https://re.test/emails",
        lambda: client._request("POST", "/emails", {"to": ["x@y.ro"]}, "key-1"),
        lambda status, text: {"statusCode": status, "name": "some_error", "message": text},
        sends=True,
    )


def ai_backend() -> Provider:
    client = OpenAICompatibleTriage(base_url="https://ai.test/v1", api_key="sk", model="m")
    return Provider(
        "ai",
        "POST",
        "https://ai.test/v1/chat/completions",
        lambda: client.complete([{"role": "user", "content": "salut"}]),
        lambda status, text: {"error": {"message": text, "type": "x"}},
        sends=False,  # a completion changes nothing
    )


def mailchimp() -> Provider:
    client = MailchimpClient(api_key="key-us21", base_url="https://us21.mc.test/3.0")
    return Provider(
        "mailchimp",
        "PUT",
        f"https://us21.mc.test/3.0/lists/a6b5da1054/members/{subscriber_hash('ion@agro.ro')}",
        lambda: client.upsert_member(
            "a6b5da1054", "ion@agro.ro", status_if_new="subscribed", merge_fields={}
        ),
        lambda status, text: {
            "type": "x",
            "title": "Some Problem",
            "status": status,
            "detail": text,
        },
        sends=True,
    )


def meta_cloud() -> Provider:
    client = CloudAPI(access_token="EAAG", waba_id="1")
    return Provider(
        "meta",
        "POST",
        "https://graph.facebook.com/v23.0/106540352242922/messages",
        lambda: client.send(
            account_id="106540352242922",
            to="+40722111333",
            content={"type": "text", "text": {"body": "Bună ziua"}},
        ),
        # A Meta error body without a code of its own: the HTTP status decides.
        lambda status, text: {"error": {"message": text, "type": "OAuthException"}},
        sends=True,
    )


PROVIDERS = [timelinesai, instantly, resend, ai_backend, mailchimp, meta_cloud]


@dataclass(frozen=True)
class Failure:
    name: str
    answer: Callable[[Provider], dict[str, Any]]  # keyword arguments of responses.add
    error: type[ProviderError]
    uncertain_when_sending: bool | None  # None: not asked


FAILURES = [
    Failure(
        "connect timeout",
        lambda p: {"body": requests.exceptions.ConnectTimeout("connect timed out")},
        ProviderUnavailable,
        False,
    ),
    Failure(
        "read timeout",
        lambda p: {"body": requests.exceptions.ReadTimeout("read timed out")},
        ProviderTimeout,
        True,
    ),
    Failure(
        "connection reset after writing",
        lambda p: {"body": requests.exceptions.ConnectionError("Connection reset by peer")},
        ProviderUnavailable,
        True,
    ),
    Failure(
        "500 with the provider's body",
        lambda p: {"status": 500, "json": p.error_body(500, "internal error")},
        ProviderUnavailable,
        True,
    ),
    Failure(
        "502 gateway page",
        lambda p: {"status": 502, "body": "<html>Bad gateway</html>", "content_type": "text/html"},
        ProviderUnavailable,
        True,
    ),
    Failure(
        "503 not taken",
        lambda p: {"status": 503, "json": p.error_body(503, "maintenance")},
        ProviderUnavailable,
        False,
    ),
    Failure(
        "429 with Retry-After",
        lambda p: {
            "status": 429,
            "json": p.error_body(429, "slow down"),
            "headers": {"Retry-After": "7"},
        },
        RateLimited,
        None,
    ),
    Failure(
        "401",
        lambda p: {"status": 401, "json": p.error_body(401, "bad key")},
        AuthenticationFailed,
        None,
    ),
    Failure(
        "other 4xx",
        lambda p: {"status": 404, "json": p.error_body(404, "no such thing")},
        RejectedRequest,
        None,
    ),
]


def _raised(provider: Provider, failure: Failure) -> ProviderError:
    with responses.RequestsMock() as rsps:
        rsps.add(provider.method, provider.url, **failure.answer(provider))
        with pytest.raises(ProviderError) as caught:
            provider.call()
    return caught.value


@pytest.mark.parametrize("failure", FAILURES, ids=lambda f: f.name)
def test_one_failure_is_one_retry_decision_for_every_provider(failure, settings):
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    decisions = {}
    for make in PROVIDERS:
        provider = make()
        error = _raised(provider, failure)
        assert type(error) is failure.error, (provider.name, error)
        if failure.uncertain_when_sending is not None:
            expected = failure.uncertain_when_sending and provider.sends
            assert error.uncertain is expected, (provider.name, error)
        decision = retry.decide(error, attempts=1)
        decisions[provider.name] = (decision.retry_in, decision.give_up, decision.next_day)
    assert len(set(decisions.values())) == 1, decisions


def test_retry_after_is_read_alike_as_seconds_or_a_date(settings):
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    date_in_past = "Wed, 21 Oct 2015 07:28:00 GMT"  # already due: retry at once
    for header, seconds in (("12", 12), (date_in_past, 0)):
        waits = set()
        for make in PROVIDERS:
            provider = make()
            failure = Failure(
                "429",
                lambda p, h=header: {
                    "status": 429,
                    "json": p.error_body(429, "slow"),
                    "headers": {"Retry-After": h},
                },
                RateLimited,
                None,
            )
            waits.add(_raised(provider, failure).retry_after)
        assert waits == {seconds}


def test_the_token_never_reaches_the_error_or_the_log(caplog):
    provider = timelinesai()
    with responses.RequestsMock() as rsps:
        rsps.add("POST", provider.url, status=500, json={"status": "error", "message": "x"})
        with pytest.raises(ProviderError) as caught:
            provider.call()
    assert "tok" not in str(caught.value).replace("token", "")
    assert "Bearer" not in caplog.text
