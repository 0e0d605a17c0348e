"""Channel selection follows the seed rules and always says why."""

from __future__ import annotations

import pytest

from cerniq import reasons
from outreach.channels import choose_channel
from outreach.models import Journey, Lead
from outreach.readiness import ContactPolicy, readiness
from outreach.suppression import LeadListed

VALID = Lead.EmailStatus.VALID


def lead(**kw):
    base = {
        "phone": "+40722000111",
        "phone_reachable": True,
        "email": "a@b.ro",
        "email_status": VALID,
    }
    return Lead(**{**base, **kw})


NOT_WA = "instead of the step's channel: "


@pytest.mark.parametrize(
    ("lead_kw", "journey_kw", "step", "channel", "reason", "fallback"),
    [
        ({}, {}, "WHATSAPP", "WHATSAPP", "the step's channel (WhatsApp)", False),
        (
            {"phone_reachable": False},
            {},
            "WHATSAPP",
            "EMAIL_COLD",
            "Cold email " + NOT_WA + "number not on WhatsApp",
            True,
        ),
        (
            {"phone": ""},
            {},
            "WHATSAPP",
            "EMAIL_COLD",
            "Cold email " + NOT_WA + "no phone number",
            True,
        ),
        (
            {},
            {"whatsapp_opted_out": True},
            "WHATSAPP",
            "EMAIL_COLD",
            "Cold email " + NOT_WA + "opted out",
            True,
        ),
        (
            {"phone": ""},
            {"stage": "CONTACTED_WA"},
            "WHATSAPP",
            "EMAIL_WARM",
            "Warm email " + NOT_WA + "no phone number",
            True,
        ),
        (
            {"phone": "", "email_status": "risky"},
            {},
            "WHATSAPP",
            None,
            "no channel can reach the lead (WhatsApp: no phone number; email: address cannot "
            "be checked (the server accepts any))",
            False,
        ),
        ({}, {}, "EMAIL_COLD", "EMAIL_COLD", "the step's channel (Cold email)", False),
        (
            {},
            {"stage": "CONTACTED_EMAIL"},
            "EMAIL_COLD",
            "EMAIL_WARM",
            "the step's channel (Warm email)",
            False,
        ),
        (
            {"email": ""},
            {},
            "EMAIL_COLD",
            "WHATSAPP",
            "WhatsApp " + NOT_WA + "no email address",
            True,
        ),
        (
            {},
            {"email_opted_out": True, "whatsapp_opted_out": True},
            "EMAIL_COLD",
            None,
            "no channel can reach the lead (WhatsApp: opted out; email: opted out)",
            False,
        ),
    ],
)
def test_seed_rules(lead_kw, journey_kw, step, channel, reason, fallback):
    journey = Journey(**{"stage": "COLD", **journey_kw})
    ready = readiness(
        lead(**lead_kw), journey, policy=ContactPolicy(email_unchecked=False), listed=LeadListed()
    )
    choice = choose_channel(ready, journey, step)
    assert (choice.channel, reasons.render(choice.reason), choice.fallback) == (
        channel,
        reason,
        fallback,
    )


@pytest.mark.parametrize(
    ("policy", "step", "channel"),
    [
        (ContactPolicy(), "WHATSAPP", "WHATSAPP"),
        (ContactPolicy(whatsapp_unchecked=False), "WHATSAPP", "EMAIL_COLD"),
        (ContactPolicy(whatsapp_unchecked=False, email_unchecked=False), "WHATSAPP", None),
        (ContactPolicy(), "EMAIL_COLD", "EMAIL_COLD"),
        (ContactPolicy(email_unchecked=False), "EMAIL_COLD", "WHATSAPP"),
    ],
)
def test_unchecked_numbers_and_addresses_follow_the_tenant_policy(policy, step, channel):
    """An imported lead nobody checked: tried when the policy says so, else the other
    channel, else none (with both reasons)."""
    journey = Journey(stage="COLD")
    unchecked = lead(phone_reachable=None, email_status="unknown")
    ready = readiness(unchecked, journey, policy=policy, listed=LeadListed())
    choice = choose_channel(ready, journey, step)
    assert choice.channel == channel
    if channel is None:
        assert "not checked yet" in reasons.render(choice.reason)


def test_an_email_without_a_template_subject_takes_the_bodys_first_line():
    from outreach.channels import SUBJECT_FROM_BODY_MAX, email_subject

    assert email_subject("  Ofertă   irigații ", "x") == "Ofertă irigații"
    assert email_subject("", "Bună ziua, Ion!\nVă scriem despre irigații.") == "Bună ziua, Ion!"
    long = "Bună ziua, " + "vă scriem despre sisteme de irigații prin picurare, " * 3
    subject = email_subject("", long)
    assert len(subject) <= SUBJECT_FROM_BODY_MAX + 1 and subject.endswith("…")
    assert long.startswith(subject[:-1])
