"""Step conditions in a real browser: an operator gives step 2 of a sequence "only if the lead
has replied" and "not read within 24 hours" (adding the second row with the page's "Add a
condition" button), sees the hours box only for the timed kind, saves, and finds both said
in words on the sequence page; the stored JSON is step_conditions'. No Content-Security-
Policy complaint. Screenshots land in var/screenshots/."""

from __future__ import annotations

import pytest

from outreach.models import Channel, Sequence, SequenceStep
from tests.browser.test_csp_ui import Violations
from tests.browser.test_operator_ui import SHOTS, browser_page, log_in  # noqa: F401 (a fixture)
from tests.factories import make_sequence, make_template, make_tenant, make_user


@pytest.mark.django_db(transaction=True)
def test_an_operator_adds_conditions_to_step_two(
    live_server,
    browser_page,  # noqa: F811 (the fixture)
):
    tenant = make_tenant(name="Agro Browser SRL")
    make_user(tenant, username="ana")
    sequence = make_sequence(tenant, name="Întâi email, apoi WhatsApp")
    SequenceStep.objects.create(
        tenant=tenant,
        sequence=sequence,
        position=2,
        channel=Channel.WHATSAPP,
        template=make_template(tenant, name="Oferta"),
        delay_value=2,
    )
    page = browser_page
    seen = Violations(page)
    base = live_server.url
    log_in(page, base, "ana")
    seen.visit(f"{base}/outreach/sequences/{sequence.pk}/")

    second = page.locator("[data-step-conditions='2']")
    first_row = second.locator("[data-condition-row='0']")
    first_row.get_by_label("Condition").select_option(
        label="Only if the lead has replied (reply-first)"
    )
    assert not first_row.get_by_label("Hours").is_visible()  # not a timed kind
    assert not first_row.get_by_label("Stages").is_visible()
    second.get_by_role("button", name="Add a condition").click()
    page.wait_for_load_state("networkidle")
    seen.check("the form shown again with one more row")

    second = page.locator("[data-step-conditions='2']")
    assert (
        second.locator("[data-condition-row='0'] [data-condition-kind]").input_value() == "replied"
    )
    next_row = second.locator("[data-condition-row='1']")
    next_row.get_by_label("Condition").select_option(
        label="Only if our last WhatsApp message was not read within N hours"
    )
    hours = next_row.get_by_label("Hours")
    assert hours.is_visible()
    hours.fill("24")
    # A step that goes only after a reply needs a sequence that goes on after one.
    page.get_by_label("Nurture: go on after a reply unless it is negative or an opt-out").check()
    page.screenshot(path=str(SHOTS / "sequence_conditions_form.png"), full_page=True)
    page.get_by_role("button", name="Save").click()
    page.wait_for_load_state("networkidle")
    assert "saved as version 1" in page.locator("body").inner_text()

    said = page.locator("[data-saved-step='2'] [data-conditions]").inner_text()
    assert "Only if the lead has replied (reply-first)" in said
    assert "Only if our last WhatsApp message was not read within 24 hours" in said
    assert page.locator("[data-saved-step='1'] [data-conditions]").count() == 0
    page.locator("[data-saved-steps]").screenshot(path=str(SHOTS / "sequence_conditions.png"))
    seen.check("the saved sequence")

    steps = SequenceStep.objects.filter(sequence=sequence).order_by("position")
    assert Sequence.objects.get(pk=sequence.pk).stop_on_reply is False
    assert [step.conditions for step in steps] == [
        {},
        {"all": [{"kind": "replied"}, {"kind": "whatsapp_not_read", "hours": 24}]},
    ]
