"""Channel selection follows the seed rules and always says why."""

from __future__ import annotations

import pytest

from outreach.channels import choose_channel
from outreach.models import Journey, Lead

VALID = Lead.EmailStatus.VALID


def lead(**kw):
    base = {
        "phone": "+40722000111",
        "phone_reachable": True,
        "email": "a@b.ro",
        "email_status": VALID,
    }
    return Lead(**{**base, **kw})


@pytest.mark.parametrize(
    ("lead_kw", "journey_kw", "step", "channel", "reason", "fallback"),
    [
        ({}, {}, "WHATSAPP", "WHATSAPP", "WhatsApp step; phone reachable", False),
        (
            {"phone_reachable": False},
            {},
            "WHATSAPP",
            "EMAIL_COLD",
            "phone not reachable on WhatsApp; email is valid",
            True,
        ),
        ({"phone": ""}, {}, "WHATSAPP", "EMAIL_COLD", "no phone number; email is valid", True),
        (
            {},
            {"whatsapp_opted_out": True},
            "WHATSAPP",
            "EMAIL_COLD",
            "opted out of WhatsApp; email is valid",
            True,
        ),
        (
            {"phone": ""},
            {"stage": "CONTACTED_WA"},
            "WHATSAPP",
            "EMAIL_WARM",
            "no phone number; email is valid",
            True,
        ),
        (
            {"phone": "", "email_status": "risky"},
            {},
            "WHATSAPP",
            None,
            "no usable channel: no phone number; email status risky",
            False,
        ),
        ({}, {}, "EMAIL_COLD", "EMAIL_COLD", "email step; cold email for stage COLD", False),
        (
            {},
            {"stage": "CONTACTED_EMAIL"},
            "EMAIL_COLD",
            "EMAIL_WARM",
            "email step; warm email for stage CONTACTED_EMAIL",
            False,
        ),
        ({"email": ""}, {}, "EMAIL_COLD", "WHATSAPP", "no email address; phone reachable", True),
        (
            {},
            {"email_opted_out": True, "whatsapp_opted_out": True},
            "EMAIL_COLD",
            None,
            "no usable channel: opted out of email; opted out of WhatsApp",
            False,
        ),
    ],
)
def test_seed_rules(lead_kw, journey_kw, step, channel, reason, fallback):
    choice = choose_channel(lead(**lead_kw), Journey(**{"stage": "COLD", **journey_kw}), step)
    assert (choice.channel, choice.reason, choice.fallback) == (channel, reason, fallback)


def test_an_email_without_a_template_subject_takes_the_bodys_first_line():
    from outreach.channels import SUBJECT_FROM_BODY_MAX, email_subject

    assert email_subject("  Ofertă   irigații ", "x") == "Ofertă irigații"
    assert email_subject("", "Bună ziua, Ion!\nVă scriem despre irigații.") == "Bună ziua, Ion!"
    long = "Bună ziua, " + "vă scriem despre sisteme de irigații prin picurare, " * 3
    subject = email_subject("", long)
    assert len(subject) <= SUBJECT_FROM_BODY_MAX + 1 and subject.endswith("…")
    assert long.startswith(subject[:-1])
