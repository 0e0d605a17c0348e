"""The API shows each lead's contact readiness, filters on it, and enrollment refusals carry
a reason code and words in the request's language."""

from __future__ import annotations

import pytest

from outreach import reasons as codes
from outreach.models import Lead
from tests.factories import make_lead, make_sequence

pytestmark = pytest.mark.django_db


def test_the_api_gives_each_refusal_its_code_and_words(api, tenant):
    lead = make_lead(tenant, phone="", email="")
    ok = make_lead(tenant)
    sequence = make_sequence(tenant)
    response = api.post(
        f"/api/v1/sequences/{sequence.pk}/enroll/",
        {"lead_ids": [ok.pk, lead.pk]},
        format="json"
    )
    assert response.status_code == 200, response.content
    rows = {row["lead_id"]: row for row in response.json()["results"]}
    assert rows[ok.pk] == {"lead_id": ok.pk, "enrolled": True, "reason": "", "reason_code": ""}
    assert rows[lead.pk]["reason_code"] == codes.ENROLL_UNREACHABLE
    assert rows[lead.pk]["reason"].startswith("no channel can reach the lead")
    assert Lead.objects.count() == 2
