"""Each email channel is carried by the integration the deployment names
(settings.EMAIL_CHANNEL_PROVIDERS, through the registry as WhatsApp's phones are), and a
name without an email backend stops the checks with the variable to fix."""

from __future__ import annotations

from cerniq.checks import check_email_channel_providers
from outreach.email_transport import email_alias
from outreach.models import Channel
from outreach.transports import transport_for


def test_the_defaults_and_a_swap_through_the_registry(settings):
    assert email_alias(Channel.EMAIL_COLD) == "email.instantly"
    assert email_alias(Channel.EMAIL_WARM) == "email.resend"
    settings.EMAIL_CHANNEL_PROVIDERS = {**settings.EMAIL_CHANNEL_PROVIDERS, "EMAIL_WARM": "sandbox"}
    transport = transport_for(Channel.EMAIL_WARM)
    assert transport.provider_name(None) == "sandbox"
    assert type(transport.backend()).__name__ == "SandboxEmail"


def test_a_provider_without_an_email_backend_is_an_error(settings):
    settings.EMAIL_CHANNEL_PROVIDERS = {
        **settings.EMAIL_CHANNEL_PROVIDERS,
        "EMAIL_COLD": "timelinesai",
    }
    errors = check_email_channel_providers()
    assert [e.id for e in errors] == [
        "cerniq.E041"
    ] and "EMAIL_COLD is carried by 'timelinesai'" in errors[0].msg
    assert "instantly" in errors[0].hint and "resend" in errors[0].hint
