"""The webhook framework (cerniq/webhooks.py) with a tiny fake receiver, and the
signature helpers that the next providers will use."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from typing import Any

import pytest
import time_machine
from django.contrib.auth.models import Permission
from django.db.models import Q
from django.test import Client
from django.urls import reverse
from django.utils.module_loading import import_string

from cerniq import integrations, webhooks
from cerniq.models import Tenant, WebhookEvent
from cerniq.tasks import process_webhook_event
from cerniq.webhooks import (
    MalformedPayload,
    Receiver,
    process_event,
    replay,
    tenant_for_url_token,
    verify_hmac,
    verify_svix,
)
from tests.drain import running_workers, wait_until
from tests.factories import make_tenant, make_user

Status = WebhookEvent.Status
HANDLED_CALLS: list[tuple[Any, dict]] = []


class FakeReceiver(Receiver):
    """Signs nothing (URL token), answers 401 on failure, key = payload["id"]."""

    provider = integrations.SANDBOX
    HANDLED_EVENTS = frozenset({"thing.happened"})
    IGNORED_EVENTS = frozenset({"thing.ignored"})
    fail_with: Exception | None = None

    def authenticate(self, request, raw, token):
        return tenant_for_url_token(token)

    def identify(self, payload):
        event_type = payload.get("type")
        if not isinstance(event_type, str):
            raise MalformedPayload("missing type")
        if event_type in self.HANDLED_EVENTS and not payload.get("id"):
            raise MalformedPayload("missing id", event_type=event_type)
        return event_type, str(payload.get("id") or "")

    def handle(self, event, payload):
        if FakeReceiver.fail_with is not None:
            raise FakeReceiver.fail_with
        HANDLED_CALLS.append((event.tenant, payload))
        return payload["type"] in self.HANDLED_EVENTS


@pytest.fixture(autouse=True)
def fake_receiver(monkeypatch):
    monkeypatch.setattr(webhooks, "receivers", lambda: {"sandbox": f"{__name__}.FakeReceiver"})
    monkeypatch.setattr(FakeReceiver, "fail_with", None)
    HANDLED_CALLS.clear()
    yield
    HANDLED_CALLS.clear()


@pytest.fixture
def sent(monkeypatch):
    """Messages sent to the process_webhook_event actor (on commit)."""
    calls: list[int] = []
    monkeypatch.setattr(process_webhook_event, "send", calls.append)
    return calls


def body(**fields: Any) -> bytes:
    return json.dumps({"type": "thing.happened", "id": "evt-1", **fields}).encode()


def url(tenant, provider: str = "sandbox") -> str:
    return f"/webhooks/{provider}/{tenant.webhook_token}/"


def post(client, path: str, raw: bytes, **headers: str):
    return client.post(path, raw, content_type="application/json", headers=headers)


def raw_of(event: WebhookEvent) -> bytes:
    return bytes(event.raw_body)


# --- Intake ----------------------------------------------------------------------------


def test_valid_event_is_stored_as_sent_and_enqueued_once_on_commit(
    client, tenant, sent, django_capture_on_commit_callbacks
):
    raw = body(note="Bună ziua, recoltă bogată 🌾")
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = post(
            client,
            url(tenant),
            raw,
            user_agent="Provider/1.0",
            x_forwarded_for="203.0.113.9",
            authorization="Bearer should-not-be-stored",
            cookie="sessionid=nope",
        )
    assert response.status_code == 200
    event = WebhookEvent.objects.get()
    assert response.json() == {"status": "accepted", "id": event.pk}
    assert raw_of(event) == raw
    assert (event.provider, event.event_type, event.provider_event_id) == (
        "sandbox",
        "thing.happened",
        "evt-1",
    )
    assert event.tenant == tenant
    assert event.verified is True
    assert event.status == Status.RECEIVED
    assert event.remote_addr == "127.0.0.1"
    assert event.headers == {
        "Content-Type": "application/json",
        "User-Agent": "Provider/1.0",
        "X-Forwarded-For": "203.0.113.9",
    }
    assert len(callbacks) == 1
    assert sent == [event.pk]


def test_nothing_is_enqueued_before_the_transaction_commits(client, tenant, sent):
    # The test runs inside a transaction that never commits: on_commit never fires.
    assert post(client, url(tenant), body()).status_code == 200
    assert WebhookEvent.objects.count() == 1
    assert sent == []


def test_the_enqueued_event_is_processed_once(
    client, tenant, sent, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        post(client, url(tenant), body())
    (event_id,) = sent
    assert process_event(event_id) == "processed"
    event = WebhookEvent.objects.get(pk=event_id)
    assert event.status == Status.PROCESSED
    assert event.processed_at is not None
    assert event.attempts == 1
    assert [(tenant, json.loads(body()))] == HANDLED_CALLS
    # The same message delivered twice by the broker finds nothing to claim.
    assert process_event(event_id) == "skipped"
    assert len(HANDLED_CALLS) == 1
    assert WebhookEvent.objects.get(pk=event_id).attempts == 1


def test_the_actor_runs_process_event(client, tenant, sent, django_capture_on_commit_callbacks):
    assert process_webhook_event.queue_name == "webhooks"
    assert process_webhook_event.options["max_retries"] == 5
    with django_capture_on_commit_callbacks(execute=True):
        post(client, url(tenant), body())
    process_webhook_event.fn(sent[0])
    assert WebhookEvent.objects.get().status == Status.PROCESSED


@pytest.mark.django_db(transaction=True)
def test_a_real_worker_processes_a_committed_delivery_once(client):
    """Through the broker for real: commit -> on_commit send -> worker -> handler."""
    tenant = make_tenant()
    with running_workers():
        for _ in range(2):  # the second delivery is a duplicate
            assert post(client, url(tenant), body()).status_code == 200
        wait_until(
            lambda: WebhookEvent.objects.filter(status=Status.PROCESSED).exists(),
            timeout=20,
            what=lambda: list(WebhookEvent.objects.values_list("status", "error")),
        )
    assert WebhookEvent.objects.get().attempts == 1
    assert len(HANDLED_CALLS) == 1


def test_same_delivery_twice_is_one_row_and_one_enqueue(
    client, tenant, sent, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True) as first:
        assert post(client, url(tenant), body()).json()["status"] == "accepted"
    with django_capture_on_commit_callbacks(execute=True) as second:
        response = post(client, url(tenant), body(extra="changed body, same id"))
    assert response.status_code == 200
    assert response.json() == {"status": "duplicate"}
    assert WebhookEvent.objects.count() == 1
    assert raw_of(WebhookEvent.objects.get()) == body()  # the first delivery is kept
    assert (len(first), len(second)) == (1, 0)
    assert len(sent) == 1


@pytest.mark.parametrize(
    "path",
    [
        "/webhooks/sandbox/not-the-token/",
        "/webhooks/sandbox/",
        "/webhooks/sandbox",
    ],
    ids=["wrong-token", "no-token", "no-token-no-slash"],
)
def test_failed_authentication_stores_nothing(client, tenant, sent, path):
    response = post(client, path, body())
    assert response.status_code == 401  # the fake receiver's status (TimelinesAI: 404)
    assert not WebhookEvent.objects.exists()
    assert sent == []


def test_unknown_provider_is_404_and_stores_nothing(client, tenant):
    response = post(client, url(tenant, provider="nosuchprovider"), body())
    assert response.status_code == 404
    assert not WebhookEvent.objects.exists()


def test_url_without_trailing_slash_is_accepted_not_redirected(client, tenant, sent):
    response = post(client, url(tenant).rstrip("/"), body())
    assert response.status_code == 200
    assert WebhookEvent.objects.count() == 1


def test_reverse_url_name(tenant):
    path = reverse("webhook-intake", kwargs={"provider": "sandbox", "token": tenant.webhook_token})
    assert path.rstrip("/") == url(tenant).rstrip("/")


@pytest.mark.parametrize(
    ("raw", "detail"),
    [
        (b"{not json", "Expecting property name"),
        (b"", "Expecting value"),
        (b"[1, 2]", "expected an object, got list"),
        (b'"just a string"', "expected an object, got str"),
        (b"\xff\xfe\x00garbage", "malformed JSON: "),
        (b"[" * 200_000 + b"]" * 200_000, "malformed JSON: "),
    ],
    ids=["syntax", "empty", "list", "string", "not-utf8", "too-deep"],
)
def test_malformed_json_is_400_kept_as_malformed_and_never_processed(
    client, tenant, sent, django_capture_on_commit_callbacks, raw, detail
):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = post(client, url(tenant), raw)
    assert response.status_code == 400
    assert response.json()["error"].startswith("malformed JSON: ")
    assert detail in response.json()["error"]
    event = WebhookEvent.objects.get()
    assert event.status == Status.MALFORMED
    assert raw_of(event) == raw
    assert (event.verified, event.provider_event_id, event.tenant) == (True, "", tenant)
    assert callbacks == [] and sent == []
    assert process_event(event.pk) == "skipped"
    assert WebhookEvent.objects.get(pk=event.pk).status == Status.MALFORMED
    assert HANDLED_CALLS == []


def test_identify_error_is_400_and_a_malformed_row(client, tenant, sent):
    response = post(client, url(tenant), json.dumps({"type": "thing.happened"}).encode())
    assert response.status_code == 400
    assert response.json() == {"error": "malformed payload: missing id"}
    event = WebhookEvent.objects.get()
    assert (event.status, event.event_type, event.provider_event_id) == (
        Status.MALFORMED,
        "thing.happened",
        "",
    )
    assert "missing id" in event.error
    assert sent == []


@pytest.mark.parametrize(
    "fields",
    [{"type": "x" * 101}, {"type": "thing.happened", "id": "y" * 256}, {"type": "a\x00b"}],
    ids=["long-type", "long-id", "nul"],
)
def test_oversized_or_nul_identifiers_are_400_not_500(client, tenant, fields):
    response = post(client, url(tenant), json.dumps(fields).encode())
    assert response.status_code == 400
    assert WebhookEvent.objects.get().status == Status.MALFORMED


def test_unknown_event_type_is_stored_ignored_and_answered_200(client, tenant, sent):
    response = post(client, url(tenant), body(type="thing.invented"))
    assert response.status_code == 200
    assert response.json() == {"status": "ignored"}
    event = WebhookEvent.objects.get()
    assert event.status == Status.IGNORED
    assert event.event_type == "thing.invented"
    assert "unknown event type" in event.error
    assert sent == []


def test_known_ignored_event_is_stored_ignored_without_error(client, tenant, sent):
    response = post(client, url(tenant), body(type="thing.ignored"))
    assert response.json() == {"status": "ignored"}
    event = WebhookEvent.objects.get()
    assert (event.status, event.error) == (Status.IGNORED, "")
    assert sent == []


def test_payload_too_large_is_413_and_stores_nothing(client, tenant, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 64
    response = post(client, url(tenant), body(padding="x" * 200))
    assert response.status_code == 413
    assert not WebhookEvent.objects.exists()


def test_get_is_not_allowed(client, tenant):
    assert client.get(url(tenant)).status_code == 405
    assert not WebhookEvent.objects.exists()


def test_odd_accept_header_still_gets_json(client, tenant, sent):
    response = post(client, url(tenant), body(), accept="text/html")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"


def test_csrf_enforcing_client_is_accepted(tenant, superuser, sent):
    csrf_client = Client(enforce_csrf_checks=True)
    # Even with a session cookie (where SessionAuthentication would demand a CSRF token).
    csrf_client.force_login(superuser)
    response = post(csrf_client, url(tenant), body())
    assert response.status_code == 200
    assert response.json()["status"] == "accepted"


def test_csrf_is_enforced_elsewhere(tenant, superuser):
    """Control for the test above: the same client is refused where CSRF applies."""
    csrf_client = Client(enforce_csrf_checks=True)
    csrf_client.force_login(superuser)
    assert csrf_client.post("/admin/logout/").status_code == 403


# --- Processing failures and replay ----------------------------------------------------


def test_handler_exception_marks_failed_and_reraises_then_replay_processes_it(
    client, tenant, sent, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        post(client, url(tenant), body())
    event_id = sent.pop()
    FakeReceiver.fail_with = RuntimeError("inbound store unavailable")
    with pytest.raises(RuntimeError, match="inbound store unavailable"):
        process_event(event_id)
    event = WebhookEvent.objects.get(pk=event_id)
    assert event.status == Status.FAILED
    assert event.error.startswith("RuntimeError: inbound store unavailable")
    assert event.attempts == 1
    assert event.processed_at is None

    FakeReceiver.fail_with = None
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        assert replay(event) is True
    assert len(callbacks) == 1 and sent == [event_id]
    assert WebhookEvent.objects.get(pk=event_id).status == Status.RECEIVED
    assert process_event(event_id) == "processed"
    event.refresh_from_db()
    assert (event.status, event.error, event.attempts) == (Status.PROCESSED, "", 2)


def test_a_dramatiq_retry_reclaims_a_failed_event(
    client, tenant, sent, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        post(client, url(tenant), body())
    FakeReceiver.fail_with = ValueError("transient")
    with pytest.raises(ValueError):
        process_webhook_event.fn(sent[0])
    FakeReceiver.fail_with = None
    process_webhook_event.fn(sent[0])  # what Dramatiq's Retries middleware does next
    assert WebhookEvent.objects.get().status == Status.PROCESSED


def test_a_time_limit_interrupt_leaves_the_event_failed_not_processing(
    client, tenant, sent, django_capture_on_commit_callbacks
):
    from dramatiq.middleware.time_limit import TimeLimitExceeded

    with django_capture_on_commit_callbacks(execute=True):
        post(client, url(tenant), body())
    FakeReceiver.fail_with = TimeLimitExceeded()
    with pytest.raises(TimeLimitExceeded):
        process_event(sent[0])
    assert WebhookEvent.objects.get().status == Status.FAILED  # a retry can claim it


def test_error_text_is_truncated(client, tenant, sent, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        post(client, url(tenant), body())
    FakeReceiver.fail_with = RuntimeError("x" * 50_000)
    with pytest.raises(RuntimeError):
        process_event(sent[0])
    error = WebhookEvent.objects.get().error
    assert len(error) <= webhooks.ERROR_TEXT_LIMIT
    assert error.endswith("(truncated)")


def test_handler_work_is_rolled_back_when_it_fails(
    client, tenant, sent, monkeypatch, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        post(client, url(tenant), body())

    def half_done(self, event, payload):
        make_tenant(slug="written-then-failed")
        raise RuntimeError("after a write")

    monkeypatch.setattr(FakeReceiver, "handle", half_done)
    with pytest.raises(RuntimeError):
        process_event(sent[0])
    from cerniq.models import Tenant

    assert not Tenant.objects.filter(slug="written-then-failed").exists()


def test_ignored_result_marks_ignored(
    client, tenant, sent, monkeypatch, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        post(client, url(tenant), body())
    monkeypatch.setattr(FakeReceiver, "handle", lambda self, event, payload: False)
    assert process_event(sent[0]) == "ignored"
    assert WebhookEvent.objects.get().status == Status.IGNORED


def test_process_event_of_missing_row(db):
    assert process_event(987654) == "missing"


@pytest.mark.parametrize("status", [Status.MALFORMED, Status.PROCESSING])
def test_replay_refuses_malformed_and_running_events(
    tenant, sent, status, django_capture_on_commit_callbacks
):
    event = WebhookEvent.objects.create(
        tenant=tenant, provider="sandbox", raw_body=b"{", verified=True, status=status
    )
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        assert replay(event) is False
    assert callbacks == [] and sent == []
    assert WebhookEvent.objects.get(pk=event.pk).status == status


def test_unverified_rows_are_never_processed(tenant):
    event = WebhookEvent.objects.create(
        tenant=tenant, provider="sandbox", raw_body=body(), verified=False
    )
    assert process_event(event.pk) == "skipped"
    assert HANDLED_CALLS == []


# --- Admin action ----------------------------------------------------------------------


def _changelist() -> str:
    return reverse("admin:cerniq_webhookevent_changelist")


def test_admin_replay_action(admin_client, tenant, sent, django_capture_on_commit_callbacks):
    failed = WebhookEvent.objects.create(
        tenant=tenant,
        provider="sandbox",
        provider_event_id="evt-f",
        raw_body=body(id="evt-f"),
        verified=True,
        status=Status.FAILED,
        error="boom",
    )
    malformed = WebhookEvent.objects.create(
        tenant=tenant, provider="sandbox", raw_body=b"{", verified=True, status=Status.MALFORMED
    )
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(
            _changelist(),
            {"action": "replay_events", "_selected_action": [failed.pk, malformed.pk]},
            follow=True,
        )
    assert response.status_code == 200
    texts = [str(m) for m in response.context["messages"]]
    assert "1 event(s) queued to be processed again." in texts
    assert any("MALFORMED event(s) not replayed" in t and "cannot be replayed" in t for t in texts)
    assert sent == [failed.pk]
    failed.refresh_from_db()
    malformed.refresh_from_db()
    assert (failed.status, malformed.status) == (Status.RECEIVED, Status.MALFORMED)
    assert process_event(failed.pk) == "processed"


def test_admin_replay_action_needs_change_permission(client, tenant):
    viewer = make_user(tenant, is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_webhookevent"))
    client.force_login(viewer)
    response = client.get(_changelist())
    assert response.status_code == 200
    assert "replay_events" not in response.context["cl"].model_admin.get_actions(
        response.wsgi_request
    )

    viewer.user_permissions.add(Permission.objects.get(codename="change_webhookevent"))
    client.force_login(viewer)
    response = client.get(_changelist())
    assert "replay_events" in response.context["cl"].model_admin.get_actions(response.wsgi_request)


# --- Registry and tenant lookup --------------------------------------------------------


def test_every_registered_receiver_matches_its_key():
    for key, path in integrations.receivers().items():
        receiver = import_string(path)()
        assert isinstance(receiver, Receiver)
        assert receiver.provider == key
        assert key in dict(integrations.all_provider_choices())
        assert not (receiver.HANDLED_EVENTS & receiver.IGNORED_EVENTS)


def test_tenant_for_url_token(tenant, other_tenant):
    assert tenant_for_url_token(tenant.webhook_token) == tenant
    assert tenant_for_url_token(other_tenant.webhook_token) == other_tenant
    for wrong in (None, "", tenant.webhook_token[:-1], tenant.webhook_token + "x", "x" * 500):
        assert tenant_for_url_token(wrong) is None
    swapped = tenant.webhook_token.swapcase()
    if swapped != tenant.webhook_token:
        assert tenant_for_url_token(swapped) is None
    tenant.is_active = False
    tenant.save()
    assert tenant_for_url_token(tenant.webhook_token) is None


def test_no_header_with_a_secret_is_stored(client, tenant, sent):
    post(client, url(tenant), body(), authorization="Bearer x", cookie="a=b", x_api_key="k")
    headers = WebhookEvent.objects.get().headers
    assert set(headers) <= set(webhooks.STORED_HEADERS)
    assert not WebhookEvent.objects.filter(
        Q(headers__has_key="Authorization") | Q(headers__has_key="Cookie")
    ).exists()


# --- verify_hmac -----------------------------------------------------------------------

RAW = b'{"event":"message","text":"Bun\xc4\x83 ziua"}'
SECRET = "app-secret-123"


def _hex(raw: bytes = RAW, secret: str = SECRET, algo: str = "sha256") -> str:
    return hmac.new(secret.encode(), raw, algo).hexdigest()


def test_verify_hmac_accepts_a_good_signature():
    assert verify_hmac(RAW, SECRET, _hex())
    assert verify_hmac(RAW, SECRET.encode(), _hex())
    assert verify_hmac(RAW, SECRET, f"sha256={_hex()}")  # Meta's X-Hub-Signature-256 form
    assert verify_hmac(RAW, SECRET, _hex().upper())
    assert verify_hmac(RAW, SECRET, _hex(algo="sha1"), algo="sha1")


def test_verify_hmac_known_vector():
    # RFC 4231 test case 2.
    assert verify_hmac(
        b"what do ya want for nothing?",
        "Jefe",
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
    )


@pytest.mark.parametrize(
    ("raw", "secret", "signature"),
    [
        (RAW + b" ", SECRET, _hex()),  # body modified after signing
        (RAW.replace(b"ziua", b"ziuA"), SECRET, _hex()),
        (RAW, "other-secret", _hex()),
        (RAW, SECRET, _hex()[:-1]),
        (RAW, SECRET, ""),
        (RAW, SECRET, None),
        (RAW, "", hmac.new(b"", RAW, "sha256").hexdigest()),  # empty secret never verifies
        (RAW, SECRET, "sha1=" + _hex()),
        (RAW, SECRET, "ș" * 64),
    ],
    ids=[
        "appended",
        "changed",
        "wrong-secret",
        "short",
        "empty",
        "none",
        "empty-secret",
        "wrong-prefix",
        "non-ascii",
    ],
)
def test_verify_hmac_rejects(raw, secret, signature):
    assert not verify_hmac(raw, secret, signature)


# --- verify_svix -----------------------------------------------------------------------

SVIX_KEY = b"cerniq-test-signing-key-32bytes!"
SVIX_SECRET = "whsec_" + base64.b64encode(SVIX_KEY).decode()
SVIX_BODY = b'{"type":"email.bounced","data":{"email_id":"49a3999c","to":["ion@ferma.ro"]}}'


def svix_headers(
    raw: bytes = SVIX_BODY, *, ts: int | None = None, key: bytes = SVIX_KEY, msg_id="msg_1"
):
    ts = int(time.time()) if ts is None else ts
    signed = f"{msg_id}.{ts}.".encode() + raw
    sig = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    return {"svix-id": msg_id, "svix-timestamp": str(ts), "svix-signature": f"v1,{sig}"}


def test_verify_svix_accepts_a_good_signature():
    assert verify_svix(SVIX_BODY, svix_headers(), SVIX_SECRET)


def test_verify_svix_known_vector():
    """The example from Svix's docs and libraries' tests (docs.svix.com, how-manual)."""
    headers = {
        "svix-id": "msg_p5jXN8AQM9LWM0D4loKWxJek",
        "svix-timestamp": "1614265330",
        "svix-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
    }
    raw = b'{"test": 2432232314}'
    secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    with time_machine.travel(1614265330, tick=False):
        assert verify_svix(raw, headers, secret)
        assert not verify_svix(raw + b" ", headers, secret)
    with time_machine.travel(1614265330 + 301, tick=False):
        assert not verify_svix(raw, headers, secret)


def test_verify_svix_header_names_are_case_insensitive_and_webhook_aliases_work():
    headers = {k.upper(): v for k, v in svix_headers().items()}
    assert verify_svix(SVIX_BODY, headers, SVIX_SECRET)
    aliased = {k.replace("svix-", "webhook-"): v for k, v in svix_headers().items()}
    assert verify_svix(SVIX_BODY, aliased, SVIX_SECRET)


def test_verify_svix_accepts_any_of_several_signatures():
    good = svix_headers()
    bad = svix_headers(key=b"old-key-being-rotated-out-000000")
    good["svix-signature"] = f"{bad['svix-signature']} v2,abc {good['svix-signature']}"
    assert verify_svix(SVIX_BODY, good, SVIX_SECRET)


def test_verify_svix_tolerance_edges():
    now = 1_800_000_000
    with time_machine.travel(now, tick=False):
        assert verify_svix(SVIX_BODY, svix_headers(ts=now - 300), SVIX_SECRET)
        assert verify_svix(SVIX_BODY, svix_headers(ts=now + 300), SVIX_SECRET)
        assert not verify_svix(SVIX_BODY, svix_headers(ts=now - 301), SVIX_SECRET)
        assert not verify_svix(SVIX_BODY, svix_headers(ts=now + 301), SVIX_SECRET)
        # A tolerance can narrow the library's five minutes, never widen them.
        assert not verify_svix(SVIX_BODY, svix_headers(ts=now - 100), SVIX_SECRET, 60)
        assert not verify_svix(SVIX_BODY, svix_headers(ts=now - 1000), SVIX_SECRET, 3600)


def test_verify_svix_skips_malformed_entries_and_refuses_a_body_that_is_not_utf8():
    good = svix_headers()
    good["svix-signature"] = f"v1 v1,!!!  {good['svix-signature']}"
    assert verify_svix(SVIX_BODY, good, SVIX_SECRET)
    raw = b'{"x": "\xff"}'
    assert not verify_svix(raw, svix_headers(raw), SVIX_SECRET)
    for stamp in ("1.8e9", f"{int(time.time())}.0", f" {int(time.time())}"):
        assert not verify_svix(SVIX_BODY, {**svix_headers(), "svix-timestamp": stamp}, SVIX_SECRET)


@pytest.mark.parametrize(
    "tamper",
    [
        lambda raw, h: (raw + b"\n", h),
        lambda raw, h: (raw.replace(b"ion@", b"ana@"), h),
        lambda raw, h: (raw, {**h, "svix-id": "msg_2"}),
        lambda raw, h: (raw, {**h, "svix-timestamp": str(int(h["svix-timestamp"]) + 1)}),
        lambda raw, h: (raw, {**h, "svix-timestamp": "soon"}),
        lambda raw, h: (raw, {**h, "svix-signature": h["svix-signature"].replace("v1,", "v2,")}),
        lambda raw, h: (raw, {k: v for k, v in h.items() if k != "svix-signature"}),
        lambda raw, h: (raw, {k: v for k, v in h.items() if k != "svix-id"}),
        lambda raw, h: (raw, svix_headers(raw, key=b"someone-else-s-key-0000000000000")),
        lambda raw, h: (raw, svix_headers(raw, ts=int(time.time()) - 3600)),
    ],
    ids=[
        "body-appended",
        "body-changed",
        "id-changed",
        "timestamp-changed",
        "timestamp-not-int",
        "wrong-version",
        "no-signature",
        "no-id",
        "wrong-key",
        "expired",
    ],
)
def test_verify_svix_rejects(tamper):
    raw, headers = tamper(SVIX_BODY, svix_headers())
    assert not verify_svix(raw, headers, SVIX_SECRET)


@pytest.mark.parametrize("secret", ["whsec_", "whsec_not base64!!"])
def test_verify_svix_bad_secret_is_a_configuration_error(secret):
    with pytest.raises(ValueError, match="secret"):
        verify_svix(SVIX_BODY, svix_headers(), secret)


# --- Intake cost (issue #10's intake bench: a cached tenant, one INSERT) -----------------


def _statements(client, tenant, raw: bytes) -> tuple[Any, list[str]]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        response = post(client, url(tenant), raw)
    return response, [q["sql"] for q in queries.captured_queries]


def test_an_accepted_event_is_one_insert_once_the_tenant_is_known(client, tenant, sent):
    assert post(client, url(tenant), body(id="warm-up")).status_code == 200
    response, statements = _statements(client, tenant, body(id="evt-2"))
    assert response.json()["status"] == "accepted"
    (insert,) = statements  # no tenant query, no SELECT first, no savepoint
    assert insert.startswith("INSERT INTO") and "ON CONFLICT" in insert
    # A duplicate: the same INSERT, no row back, then one read of whose key it is.
    response, statements = _statements(client, tenant, body(id="evt-2"))
    assert response.json() == {"status": "duplicate"}
    assert [s.split()[0] for s in statements] == ["INSERT", "SELECT"]
    assert WebhookEvent.objects.filter(provider_event_id="evt-2").count() == 1


def test_events_without_a_key_are_each_stored(client, tenant, sent):
    for _ in range(2):
        answer = post(client, url(tenant), json.dumps({"type": "thing.ignored"}).encode())
        assert answer.json() == {"status": "ignored"}
    assert WebhookEvent.objects.filter(event_type="thing.ignored").count() == 2


def test_a_cached_tenant_deactivated_or_given_a_new_token_is_refused_at_once(client, tenant, sent):
    assert post(client, url(tenant), body(id="a")).status_code == 200
    old_url = url(tenant)
    tenant.webhook_token = "rotated-" + tenant.webhook_token[:20]
    tenant.save()
    assert post(client, old_url, body(id="b")).status_code == 401
    assert post(client, url(tenant), body(id="c")).status_code == 200
    tenant.is_active = False
    tenant.save()
    assert post(client, url(tenant), body(id="d")).status_code == 401
    assert sorted(WebhookEvent.objects.values_list("provider_event_id", flat=True)) == ["a", "c"]


def test_the_cache_expires(client, tenant, sent, monkeypatch):
    """A tenant deactivated by another process (no signal here) is refused after the TTL."""
    assert webhooks.tenant_for_url_token(tenant.webhook_token) == tenant
    Tenant.objects.filter(pk=tenant.pk).update(is_active=False)  # no post_save
    assert webhooks.tenant_for_url_token(tenant.webhook_token) == tenant  # within the TTL
    later = webhooks.time.monotonic() + webhooks.TENANT_CACHE_SECONDS + 1
    monkeypatch.setattr(webhooks.time, "monotonic", lambda: later)
    assert webhooks.tenant_for_url_token(tenant.webhook_token) is None


def test_a_cached_tenant_is_a_copy(tenant):
    first = webhooks.tenant_for_url_token(tenant.webhook_token)
    first.name = "changed by a caller"
    assert webhooks.tenant_for_url_token(tenant.webhook_token).name == tenant.name


@pytest.mark.django_db(transaction=True)
def test_concurrent_deliveries_of_one_event_store_one_row(sent):
    """Two requests racing with the same key: the unique index decides, one is accepted."""
    from concurrent.futures import ThreadPoolExecutor

    from django.db import connection
    from django.test import Client

    tenant = make_tenant()
    barrier = __import__("threading").Barrier(4)

    def deliver(_: int) -> str:
        barrier.wait()
        try:
            return post(Client(), url(tenant), body(id="raced")).json()["status"]
        finally:
            connection.close()

    with ThreadPoolExecutor(4) as pool:
        answers = sorted(pool.map(deliver, range(4)))
    assert answers == ["accepted", "duplicate", "duplicate", "duplicate"]
    assert WebhookEvent.objects.filter(provider_event_id="raced").count() == 1


class HeaderKeyedReceiver(FakeReceiver):
    """A provider whose event id travels in a header (Svix's `svix-id`)."""

    def identify(self, payload):
        return payload["type"], self.headers.get("X-Event-Id", "")


def test_a_receiver_reads_its_event_id_from_the_request_headers(client, tenant, sent, monkeypatch):
    monkeypatch.setattr(
        webhooks, "receivers", lambda: {"sandbox": f"{__name__}.HeaderKeyedReceiver"}
    )
    assert post(client, url(tenant), body(), x_event_id="msg-1").json()["status"] == "accepted"
    assert post(client, url(tenant), body(), x_event_id="msg-1").json() == {"status": "duplicate"}
    assert post(client, url(tenant), body(), x_event_id="msg-2").json()["status"] == "accepted"
    assert sorted(WebhookEvent.objects.values_list("provider_event_id", flat=True)) == [
        "msg-1",
        "msg-2",
    ]
