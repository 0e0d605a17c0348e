"""Enrolling a lead nobody may contact is refused with the reason, on the page and in the
API (issue 19 §4): an opted-out lead, a lead whose addresses are suppressed, a closed lead.
And an opt-out ends the lead's open enrollments."""

from __future__ import annotations

import html

import pytest

from cerniq import api_keys
from cerniq.models import TenantAPIKey
from outreach import optout_manual
from outreach.models import Enrollment, Journey, Lead, Message, Stage, Suppression
from outreach.sequences import enroll
from tests.api.conftest import key_client
from tests.factories import make_lead, make_message, make_sequence, make_user

pytestmark = pytest.mark.django_db
REASON = "Called on 24.11 and asked not to be contacted again"


@pytest.fixture
def sequence(tenant):
    return make_sequence(tenant)


@pytest.fixture
def api(tenant):
    admin = make_user(tenant, role="ADMIN")
    _, key = api_keys.create_key(tenant, name="crm", scope=TenantAPIKey.Scope.WRITE, user=admin)
    return key_client(key)


def _opted_out(tenant, operator) -> Lead:
    lead = make_lead(tenant, email="ion@agro.ro")
    optout_manual.record_opt_out(lead, user=operator, channel="all", reason=REASON)
    return lead


def _suppressed(tenant, operator) -> Lead:
    """A lead whose only address went on the list without its journey being flagged (the
    address was listed by another lead's stop, the lead's phone was changed to it later)."""
    lead = make_lead(tenant)
    Suppression.objects.create(tenant=tenant, phone=lead.phone, reason="stop from +4072…")
    return lead


def _closed(tenant, operator) -> Lead:
    lead = make_lead(tenant)
    Journey.objects.filter(lead=lead).update(stage=Stage.CONVERTED)
    return lead


# Each kind of lead, and words the refusal must contain to say why.
CASES = {
    "opted out": (_opted_out, ("opted out",)),
    "suppressed": (_suppressed, ("do-not-contact list",)),
    "closed": (_closed, ("lead is converted",)),  # the stage by its label, never its code
}


def _says_why(text: str, words: tuple[str, ...]) -> bool:
    return all(word.lower() in text.lower() for word in words)


@pytest.mark.parametrize("case", list(CASES))
def test_the_lead_page_refuses_with_the_reason(client, operator, tenant, sequence, case):
    make, words = CASES[case]
    lead = make(tenant, operator)
    client.force_login(operator)
    response = client.post(
        f"/outreach/leads/{lead.pk}/enroll/", {"sequence": sequence.pk}, follow=True
    )
    page = html.unescape(response.content.decode())
    refusal = page.split(f"Cannot enroll {lead.name}:", 1)
    assert len(refusal) == 2, "no refusal shown"
    assert _says_why(refusal[1].split("</", 1)[0], words)
    assert not Enrollment.objects.filter(lead=lead, status=Enrollment.Status.ACTIVE).exists()


@pytest.mark.parametrize("case", list(CASES))
def test_the_api_refuses_with_the_reason(api, operator, tenant, sequence, case):
    make, words = CASES[case]
    lead = make(tenant, operator)
    response = api.post(
        f"/api/v1/leads/{lead.pk}/enroll/", {"sequence": sequence.pk}, format="json"
    )
    assert response.status_code == 409
    error = response.json()["error"]
    assert error["code"] == "enrollment_refused" and _says_why(error["message"], words)
    assert not Enrollment.objects.filter(lead=lead, status=Enrollment.Status.ACTIVE).exists()


@pytest.mark.parametrize("case", list(CASES))
def test_the_bulk_enroll_skips_them_with_the_reason(client, operator, tenant, sequence, case):
    make, words = CASES[case]
    lead, fine = make(tenant, operator), make_lead(tenant)
    client.force_login(operator)
    response = client.post(
        "/outreach/leads/bulk/",
        {"ids": [lead.pk, fine.pk], "action": "enroll", "sequence": sequence.pk},
        follow=True,
    )
    page = html.unescape(response.content.decode())
    assert "1 lead(s) enrolled" in page
    skipped = page.split("Skipped — ", 1)[1].split("</", 1)[0]
    assert _says_why(skipped, words)
    enrolled = Enrollment.objects.filter(status=Enrollment.Status.ACTIVE)
    assert list(enrolled.values_list("lead_id", flat=True)) == [fine.pk]


def test_an_opt_out_ends_active_and_paused_enrollments_and_cancels_queued_messages(
    tenant, operator, sequence
):
    active, paused = make_lead(tenant), make_lead(tenant)
    for lead in (active, paused):
        enroll(lead, sequence)
    Enrollment.objects.filter(lead=paused).update(status=Enrollment.Status.PAUSED)
    queued = [make_message(active), make_message(paused)]
    for lead in (active, paused):
        optout_manual.record_opt_out(lead, user=operator, channel="whatsapp", reason=REASON)
    assert set(Enrollment.objects.values_list("status", flat=True)) == {Enrollment.Status.STOPPED}
    assert {m.status for m in Message.objects.filter(pk__in=[m.pk for m in queued])} == {
        Message.Status.CANCELLED
    }
    # And it stays ended: enrolling again is refused.
    with pytest.raises(Exception, match="opted out"):
        enroll(active, sequence)
