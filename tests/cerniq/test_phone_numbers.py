"""One rule turns a written phone number into E.164 (cerniq.phone_numbers): the lead import
and adding a sending number agree on every spelling."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from cerniq.phone_numbers import NotAPhoneNumber, to_e164
from outreach.importing.cleaning import phone_in
from whatsapp import numbers


@pytest.mark.parametrize(
    "written",
    ["0740 000 101", "+40 740-000-101", "0040 740 000 101", "(0740) 000.101", "+40740000101"],
)
def test_every_spelling_reads_as_one_number_for_leads_and_sending_numbers(written):
    assert to_e164(written) == "+40740000101"
    assert numbers.to_e164(written) == "+40740000101"
    assert phone_in(written.replace("(", "").replace(")", "")) == "+40740000101"


@pytest.mark.parametrize(
    ("written", "why"),
    [
        ("call me", "not_a_number"),
        ("07", "invalid"),
        ("0740 000 10", "invalid"),
        ("+999 1234", "country_code"),
    ],
)
def test_a_wrong_number_says_why_and_the_phone_form_refuses_it(written, why):
    with pytest.raises(NotAPhoneNumber) as refused:
        to_e164(written)
    assert refused.value.why == why
    with pytest.raises(ValidationError):
        numbers.to_e164(written)
