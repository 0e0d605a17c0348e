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
        f"/api/v1/sequences/{sequence.pk}/enroll/", {"lead_ids": [ok.pk, lead.pk]}, format="json"
    )
    assert response.status_code == 200, response.content
    rows = {row["lead_id"]: row for row in response.json()["results"]}
    assert rows[ok.pk] == {"lead_id": ok.pk, "enrolled": True, "reason": "", "reason_code": ""}
    assert rows[lead.pk]["reason_code"] == codes.ENROLL_UNREACHABLE
    assert rows[lead.pk]["reason"].startswith("no channel can reach the lead")
    assert Lead.objects.count() == 2


def test_each_lead_carries_its_readiness_and_the_list_filters_on_it(api, tenant):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from outreach.models import Journey

    imported = make_lead(tenant, phone_reachable=None, email="a@ferma.ro")
    gone = make_lead(tenant)
    Journey.objects.filter(lead=gone).update(whatsapp_opted_out=True, email_opted_out=True)
    rows = {row["id"]: row for row in api.get("/api/v1/leads/").json()["results"]}
    assert rows[imported.pk]["readiness"]["whatsapp"] == {
        "state": "unverified",
        "usable": True,
        "reason_code": codes.PHONE_UNCHECKED,
        "reason": "number not checked yet",
        "text": "number not checked yet — the first message checks it",
    }
    assert rows[imported.pk]["phone_reachable"] is None
    assert rows[imported.pk]["readiness"]["contactable"] is True
    assert rows[gone.pk]["readiness"]["contactable"] is False
    assert rows[gone.pk]["readiness"]["email"]["reason_code"] == codes.OPTED_OUT

    ids = [r["id"] for r in api.get("/api/v1/leads/?contactable=false").json()["results"]]
    assert ids == [gone.pk]
    ro = api.get("/api/v1/leads/?contactable=false", HTTP_ACCEPT_LANGUAGE="ro").json()
    assert ro["results"][0]["readiness"]["email"]["reason"] != "opted out"

    # The page costs the same queries for 3 leads as for 30.
    def cost() -> int:
        with CaptureQueriesContext(connection) as queries:
            assert api.get("/api/v1/leads/?page_size=50").status_code == 200
        return len(queries)

    few = cost()
    for i in range(27):
        make_lead(tenant, email=f"x{i}@ferma.ro", phone_reachable=None)
    assert cost() == few


def test_a_stalled_enrollment_shows_with_its_reason_and_filters(api, tenant):
    from django.utils import timezone

    from outreach.models import Enrollment

    stuck = make_lead(tenant)
    make_lead(tenant)
    sequence = make_sequence(tenant)
    Enrollment.objects.create(
        tenant=tenant,
        lead=stuck,
        sequence=sequence,
        stalled_reason="dispatch.template_inactive",
        stalled_since=timezone.now(),
    )
    found = api.get("/api/v1/leads/?stalled=true").json()["results"]
    assert [r["id"] for r in found] == [stuck.pk]
    assert found[0]["readiness"]["stalled"]["reason_code"] == codes.TEMPLATE_INACTIVE
    assert found[0]["readiness"]["stalled"]["reason"] == "the step's template has no active version"
    detail = api.get(f"/api/v1/leads/{stuck.pk}/").json()
    assert detail["readiness"]["stalled"]["reason_code"] == codes.TEMPLATE_INACTIVE
