"""Enrollment refuses a lead it could never reach, each with its reason code (one rule:
outreach.readiness, read by outreach.sequences.enroll_many), on the page and the API."""

from __future__ import annotations

import pytest
from django.utils import translation

from cerniq import reasons
from cerniq.models import Tenant
from outreach import reasons as codes
from outreach.models import Enrollment, Journey, Stage
from outreach.sequences import EnrollmentError, enroll, enroll_many
from outreach.suppression import suppress
from tests.factories import make_lead, make_sequence, make_user


@pytest.fixture
def sequence(tenant):
    return make_sequence(tenant)


def _code(result, lead):
    parsed = reasons.parse(result.outcomes[lead.pk])
    return parsed[0] if parsed else result.outcomes[lead.pk]


@pytest.mark.django_db
def test_each_unreachable_kind_is_refused_with_its_own_reason(tenant, sequence):
    fine = make_lead(tenant, phone_reachable=None)  # unchecked: tried by default
    opted = make_lead(tenant)
    Journey.objects.filter(lead=opted).update(email_opted_out=True)  # one channel is enough
    converted = make_lead(tenant)
    Journey.objects.filter(lead=converted).update(stage=Stage.CONVERTED)
    held = make_lead(tenant)
    Journey.objects.filter(lead=held).update(taken_over_by=make_user(tenant))
    listed = make_lead(tenant, phone="+40733000001", email="")
    suppress(tenant, phone="+40733000001", reason="stop")
    Journey.objects.filter(lead=listed).update(whatsapp_opted_out=False)  # list alone
    nowhere = make_lead(tenant, phone="", email="x@ferma.ro", email_status="bounced")

    result = enroll_many([fine, opted, converted, held, listed, nowhere], sequence)

    assert result.enrolled == 1 and result.outcomes[fine.pk] == ""
    assert _code(result, opted) == codes.ENROLL_OPTED_OUT
    assert _code(result, converted) == codes.ENROLL_STAGE
    assert _code(result, held) == codes.ENROLL_TAKEN_OVER
    assert _code(result, listed) == codes.ENROLL_SUPPRESSED
    assert _code(result, nowhere) == codes.ENROLL_UNREACHABLE
    with translation.override("en"):
        assert reasons.render(result.outcomes[nowhere.pk]) == (
            "no channel can reach the lead (WhatsApp: no phone number; email: bounced)"
        )
    assert not Enrollment.objects.exclude(lead=fine).exists()


@pytest.mark.django_db
def test_the_tenant_policy_decides_for_leads_nobody_checked(tenant, sequence):
    Tenant.objects.filter(pk=tenant.pk).update(
        contact_unverified_whatsapp=False, contact_unverified_email=False
    )
    sequence.tenant.refresh_from_db()
    lead = make_lead(tenant, phone_reachable=None, email="a@b.ro")
    with translation.override("ro"), pytest.raises(EnrollmentError) as refused:
        enroll(lead, sequence)
    assert reasons.is_code(refused.value.reason, codes.ENROLL_UNREACHABLE)
    assert "WhatsApp" in str(refused.value) and "nobody" not in str(refused.value)


@pytest.mark.django_db
def test_the_lead_page_refuses_with_the_reason_in_the_readers_language(
    client, operator, tenant, sequence
):
    lead = make_lead(tenant)
    Journey.objects.filter(lead=lead).update(whatsapp_opted_out=True, email_opted_out=True)
    client.force_login(operator)
    response = client.post(
        f"/outreach/leads/{lead.pk}/enroll/",
        {"sequence": sequence.pk},
        follow=True,
        HTTP_ACCEPT_LANGUAGE="ro",
    )
    shown = [str(m) for m in response.context["messages"]]
    with translation.override("ro"):
        expected = reasons.render(reasons.code(codes.ENROLL_OPTED_OUT))
    assert any(expected in text for text in shown), shown
    assert not Enrollment.objects.filter(lead=lead).exists()
