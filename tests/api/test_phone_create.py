"""`POST /api/v1/phones/`: a tenant admin (or a write key) adds a WhatsApp number; the
number in E.164, the provider from the registry, duplicates refused with the existing id."""

from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.test import APIClient

from tests.factories import make_phone, make_user
from whatsapp.models import Phone

PHONES = "/api/v1/phones/"
pytestmark = pytest.mark.django_db


def test_a_write_key_adds_a_number_normalised_to_e164(api, tenant):
    response = api.post(
        PHONES,
        {"number": "0740 000 101", "provider": "timelinesai", "label": "Vânzări 1"},
        format="json",
    )
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["number"] == "+40740000101" and body["label"] == "Vânzări 1"
    assert body["status"] == "ACTIVE" and body["usable"] is True
    assert body["quota_today"]["warmup_day"] == 1  # a new number warms up from today
    phone = Phone.objects.get(pk=body["id"])
    assert phone.tenant == tenant
    assert phone.account_id == "40740000101@s.whatsapp.net"  # TimelinesAI's JID, derived


def test_an_account_id_given_is_kept(api):
    response = api.post(
        PHONES,
        {"number": "+40 740-000-102", "provider": "timelinesai", "account_id": "acc-7"},
        format="json",
    )
    assert response.status_code == 201
    assert Phone.objects.get(number="+40740000102").account_id == "acc-7"


def test_a_number_the_workspace_has_is_a_409_with_its_id(api, tenant, other_tenant):
    mine = make_phone(tenant, number="+40740000101")
    make_phone(other_tenant, number="+40740000103")  # another workspace may have it
    response = api.post(PHONES, {"number": "0740000101", "provider": "timelinesai"}, format="json")
    assert response.status_code == 409
    error = response.json()["error"]
    assert error["code"] == "phone_exists" and error["phone_id"] == mine.pk
    assert "+40740000101" in error["message"]
    ok = api.post(PHONES, {"number": "0740000103", "provider": "timelinesai"}, format="json")
    assert ok.status_code == 201
    assert Phone.objects.filter(tenant=tenant).count() == 2


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({"number": "12", "provider": "timelinesai"}, "number", "not a valid phone number"),
        ({"number": "0740 000 1011", "provider": "timelinesai"}, "number", "not a valid"),
        ({"number": "0740000101", "provider": "whatsapp-cloud"}, "provider", "Choose one"),
        ({"number": "0740000101", "provider": "sandbox"}, "provider", "Choose one"),
        ({"provider": "timelinesai"}, "number", "required"),
        ({"number": "0740000101"}, "provider", "required"),
        ({"number": "0740000101", "provider": "timelinesai", "label": "x" * 65}, "label", "64"),
    ],
)
def test_bad_fields_are_400_naming_the_field_and_add_nothing(api, body, field, words):
    response = api.post(PHONES, body, format="json")
    assert response.status_code == 400
    fields = response.json()["error"]["fields"]
    assert list(fields) == [field]
    assert words in " ".join(fields[field])
    assert not Phone.objects.exists()


def test_the_sandbox_is_offered_where_the_deployment_allows_it(api, settings):
    settings.ALLOW_SANDBOX_PROVIDERS = ["whatsapp.sandbox"]
    response = api.post(PHONES, {"number": "0740000101", "provider": "sandbox"}, format="json")
    assert response.status_code == 201


def test_a_read_key_cannot_add_a_number(read_api):
    response = read_api.post(PHONES, {"number": "0740000101", "provider": "timelinesai"})
    assert response.status_code == 403
    assert not Phone.objects.exists()


def test_a_signed_in_operator_cannot_add_a_number_an_admin_can(tenant):
    operator = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    operator.force_login(make_user(tenant))
    body = {"number": "0740000101", "provider": "timelinesai"}
    response = operator.post(PHONES, body, format="json")
    assert response.status_code == 403
    assert "Only an admin of this workspace can add a number" in response.json()["error"]["message"]
    admin = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    admin.force_login(make_user(tenant, role="ADMIN"))
    assert admin.post(PHONES, body, format="json").status_code == 201


def test_the_schema_documents_the_new_operation():
    schema = Client().get("/api/schema/?format=json").json()
    operation = schema["paths"]["/api/v1/phones/"]["post"]
    assert {"201", "400", "403", "409"} <= set(operation["responses"])
    body = operation["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    assert body.endswith("/PhoneCreateRequest")
    assert schema["components"]["schemas"]["PhoneCreateRequest"]["required"] == [
        "number",
        "provider",
    ]
