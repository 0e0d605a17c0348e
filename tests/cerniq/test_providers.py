from __future__ import annotations

import pytest
from django.conf import settings

from cerniq.provider_errors import PermanentProviderError
from cerniq.providers import get_backend
from email_channels.backends import OutgoingEmail


@pytest.mark.parametrize("alias", sorted(settings.PROVIDERS))
def test_every_configured_backend_loads(alias):
    backend = get_backend(alias)
    assert backend is get_backend(alias)  # one instance per alias


def test_override_settings_swaps_the_backend(settings):
    first = get_backend("email.resend")
    settings.PROVIDERS = {
        **settings.PROVIDERS,
        "email.resend": {"BACKEND": "integrations.sandbox.email.SandboxEmail"},
    }
    assert get_backend("email.resend") is not first


def test_sandbox_whatsapp_records_sends_and_reuses_the_chat():
    wa = get_backend("whatsapp.sandbox")
    first = wa.send_to_phone(account_phone="+40740000101", to="+40722000111", text="Bună ziua!")
    follow = wa.send_to_chat(chat_id=first.thread_id, text="Revin cu o ofertă.")
    assert (
        first.raw["status"] == "ok"
        and first.raw["data"]["message_uid"] == first.provider_message_id
    )
    assert follow.thread_id == first.thread_id
    assert [s.text for s in wa.outbox[-2:]] == ["Bună ziua!", "Revin cu o ofertă."]
    with pytest.raises(PermanentProviderError):
        wa.send_to_chat(chat_id="999", text="x")
    with pytest.raises(PermanentProviderError):
        wa.send_to_phone(account_phone="+40740000101", to="+40722000111", text="x" * 2001)


def test_sandbox_email_honours_idempotency_key():
    email = get_backend("email.sandbox")
    offer = OutgoingEmail(to="office@agro.ro", subject="Ofertă", text="…")
    a = email.send(offer, idempotency_key="k1")
    b = email.send(offer, idempotency_key="k1")
    assert a == b and len([s for s in email.outbox if s.email_id == a.provider_message_id]) == 1
    with pytest.raises(PermanentProviderError):
        email.send(OutgoingEmail(to="not-an-email", subject="x", text="x"), idempotency_key="k2")
