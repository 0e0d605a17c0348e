"""POST /api/v1/leads/{id}/opt-out/: record an opt-out the lead asked for, as the lead page
does (every channel stops, audited); 400 naming the field, 409 when already out."""

from __future__ import annotations

import pytest

from outreach import optout
from outreach.models import Channel, Enrollment, Journey, Lead, OptOutRecord
from outreach.sequences import enroll
from outreach.suppression import is_suppressed
from tests.factories import make_lead, make_sequence

pytestmark = pytest.mark.django_db
REASON = "Called on 24.11 and asked not to be contacted again"


def url(lead: Lead) -> str:
    return f"/api/v1/leads/{lead.pk}/opt-out/"


def _out(lead: Lead) -> tuple[bool, bool]:
    journey = Journey.objects.get(lead=lead)
    return journey.whatsapp_opted_out, journey.email_opted_out


def test_an_opt_out_is_recorded_and_shown_on_the_lead(api, tenant, tenant_admin):
    lead = make_lead(tenant, email="ion@agro.ro")
    enroll(lead, make_sequence(tenant))
    response = api.post(url(lead), {"channel": "email", "reason": REASON}, format="json")
    assert response.status_code == 200
    body = response.json()
    assert body["opt_outs"]["whatsapp"] is True and body["opt_outs"]["email"] is True
    [record] = body["opt_outs"]["records"]
    assert (record["channel"], record["reason"], record["by_user"]) == (
        "email",
        REASON,
        tenant_admin.pk,  # the key's creator
    )
    assert Enrollment.objects.get(lead=lead).status == Enrollment.Status.STOPPED
    assert is_suppressed(tenant, phone=lead.phone) and is_suppressed(tenant, email="ion@agro.ro")
    assert api.get(f"/api/v1/leads/{lead.pk}/").json()["opt_outs"]["records"] == [record]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"channel": "all", "reason": "ok"}, "reason"),
        ({"channel": "all", "reason": "y" * 1001}, "reason"),
        ({"channel": "all"}, "reason"),
        ({"channel": "phone", "reason": REASON}, "channel"),
        ({"reason": REASON}, "channel"),
    ],
)
def test_bad_input_is_a_400_naming_the_field(api, tenant, body, field):
    lead = make_lead(tenant)
    response = api.post(url(lead), body, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid" and list(error["fields"]) == [field]
    assert _out(lead) == (False, False) and not OptOutRecord.objects.exists()


def test_the_reason_refusal_says_what_to_write(api, tenant):
    response = api.post(url(make_lead(tenant)), {"channel": "all", "reason": "ok"}, format="json")
    [problem] = response.json()["error"]["fields"]["reason"]
    assert "at least 15 characters" in problem


def test_a_lead_already_out_of_every_channel_is_409(api, tenant):
    lead = make_lead(tenant)
    optout.opt_out(lead, Channel.WHATSAPP)
    response = api.post(url(lead), {"channel": "all", "reason": REASON}, format="json")
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "already_opted_out"
    assert not OptOutRecord.objects.exists()


def test_a_read_key_cannot_record_and_another_tenants_lead_is_404(
    api, read_api, tenant, other_tenant
):
    mine, theirs = make_lead(tenant), make_lead(other_tenant)
    body = {"channel": "all", "reason": REASON}
    assert read_api.post(url(mine), body, format="json").status_code == 403
    assert api.post(url(theirs), body, format="json").status_code == 404
    assert _out(mine) == _out(theirs) == (False, False)


def test_the_schema_describes_the_endpoint(api):
    schema = api.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    operation = schema["paths"]["/api/v1/leads/{id}/opt-out/"]["post"]
    assert {"200", "400", "409"} <= set(operation["responses"])
    request = operation["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    shape = schema["components"]["schemas"][request.rsplit("/", 1)[1]]
    assert set(shape["required"]) == {"channel", "reason"}
