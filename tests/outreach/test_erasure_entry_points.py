"""Erasing a person from the lead page, over the API and with the command: admins only,
with a reason (and, on the page, a confirmation); refusals change nothing; the page then
shows the audit row and the receipts."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from cerniq import api_keys
from outreach.models import Erasure, Lead
from tests.factories import make_lead, make_user

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sandbox_cold_email")]
REASON = "Emailed on 20.11 asking to delete all her data"


@pytest.fixture
def sandbox_cold_email(settings):
    """No provider to tell (the provider side: tests/integrations/instantly/test_erasure.py)."""
    settings.PROVIDERS = {
        **settings.PROVIDERS,
        "email.instantly": {"BACKEND": "integrations.sandbox.email.SandboxEmail"},
    }


def ana(tenant) -> Lead:
    return make_lead(tenant, name="Ferma Ana", phone="+40722111222", email="ana@ferma.ro")


def test_an_admin_erases_from_the_lead_page_and_sees_the_audit_row(client, tenant):
    lead = ana(tenant)
    admin = make_user(tenant, role="ADMIN", username="dpo")
    client.force_login(admin)
    page = client.get(f"/outreach/leads/{lead.pk}/").content.decode()
    assert 'id="erase-person"' in page

    refused = client.post(f"/outreach/leads/{lead.pk}/erase/", {"reason": REASON})
    assert refused.status_code == 400
    assert "cannot be undone" in refused.content.decode()
    short = client.post(f"/outreach/leads/{lead.pk}/erase/", {"reason": "asked", "confirm": "yes"})
    assert short.status_code == 400 and "at least 15 characters" in short.content.decode()
    assert Lead.objects.get(pk=lead.pk).phone == "+40722111222"

    done = client.post(
        f"/outreach/leads/{lead.pk}/erase/", {"reason": REASON, "confirm": "yes"}, follow=True
    )
    page = done.content.decode()
    assert done.status_code == 200 and "data-erased" in page
    assert REASON in page and "dpo" in page
    assert "Ferma Ana" not in page and "+40722111222" not in page
    assert 'data-receipt="done"' in page  # our queues, applied at once
    assert 'id="erase-person"' not in page and "lift-opt-out" not in page


def test_an_operator_cannot_erase_and_does_not_see_the_form(client, tenant, other_tenant):
    lead = ana(tenant)
    client.force_login(make_user(tenant))
    assert 'id="erase-person"' not in client.get(f"/outreach/leads/{lead.pk}/").content.decode()
    answer = client.post(f"/outreach/leads/{lead.pk}/erase/", {"reason": REASON, "confirm": "yes"})
    assert answer.status_code == 403
    theirs = make_lead(other_tenant)
    client.force_login(make_user(tenant, role="ADMIN"))
    answer = client.post(
        f"/outreach/leads/{theirs.pk}/erase/", {"reason": REASON, "confirm": "yes"}
    )
    assert answer.status_code == 404
    assert not Erasure.objects.exists()


def test_the_api_erases_once_names_the_field_at_fault_and_shows_the_record(tenant):
    lead = ana(tenant)
    admin = make_user(tenant, role="ADMIN", username="dpo")
    _, key = api_keys.create_key(tenant, name="dpo", scope="write", user=admin)
    api = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    api.credentials(HTTP_AUTHORIZATION=f"Api-Key {key}")
    url = f"/api/v1/leads/{lead.pk}/erase/"
    assert api.get(url).status_code == 404
    bad = api.post(url, {"reason": "x"}, format="json")
    assert bad.status_code == 400 and "reason" in bad.json()["error"]["fields"]
    assert api.post(url, {}, format="json").status_code == 400
    created = api.post(url, {"reason": REASON}, format="json")
    assert created.status_code == 201
    body = created.json()
    assert (body["lead_id"], body["requested_by"], body["via"]) == (lead.pk, "dpo", "api")
    assert [r["provider"] for r in body["receipts"]] == ["cerniq"]
    assert api.get(url).json()["id"] == body["id"]
    shown = api.get(f"/api/v1/leads/{lead.pk}/").json()
    assert shown["erased_at"] is not None and shown["phone"] == "" and shown["name"] == "[erased]"
    again = api.post(url, {"reason": REASON}, format="json")
    assert again.status_code == 409
    # A read key cannot erase.
    _, read_key = api_keys.create_key(tenant, name="ro", scope="read", user=admin)
    reader = APIClient()
    reader.credentials(HTTP_AUTHORIZATION=f"Api-Key {read_key}")
    other = make_lead(tenant, phone="+40733444555")
    answer = reader.post(f"/api/v1/leads/{other.pk}/erase/", {"reason": REASON}, format="json")
    assert answer.status_code == 403


def test_the_command_erases_by_number_and_says_what_is_wrong(tenant, capsys):
    lead = ana(tenant)
    make_user(tenant, role="ADMIN", username="dpo")
    with pytest.raises(CommandError, match="no such user"):
        call_command("erase_person", "--tenant", tenant.slug, "--lead", str(lead.pk),
                     "--by", "nobody", "--reason", REASON)  # fmt: skip
    with pytest.raises(CommandError, match="at least 15 characters"):
        call_command("erase_person", "--tenant", tenant.slug, "--phone", "0722 111 222",
                     "--by", "dpo", "--reason", "asked")  # fmt: skip
    call_command("erase_person", "--tenant", tenant.slug, "--phone", "0722 111 222",
                 "--by", "dpo", "--reason", REASON)  # fmt: skip
    assert f"lead {lead.pk} erased" in capsys.readouterr().out
    assert Erasure.objects.get().via == "command"
    with pytest.raises(CommandError, match="no lead of this tenant matches"):
        call_command("erase_person", "--tenant", tenant.slug, "--phone", "0722111222",
                     "--by", "dpo", "--reason", REASON)  # fmt: skip
