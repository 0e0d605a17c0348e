"""The quick replies endpoints: CRUD scoped to the key's workspace, the settings page's
rules (a 400 naming the field: an unknown variable, a taken name), read-only keys read."""

from __future__ import annotations

import pytest

from outreach.models import QuickReply

pytestmark = pytest.mark.django_db

URL = "/api/v1/quick-replies/"


def test_create_list_retrieve_update_delete(api, tenant):
    created = api.post(
        URL,
        {"name": "pret", "body": "Bună ziua, {{contact_name|stimate client}}!"},
        format="json",
    )
    assert created.status_code == 201, created.content
    pk = created.json()["id"]
    assert created.json()["channel"] == "" and created.json()["language"] == "ro"
    assert [row["name"] for row in api.get(URL).json()["results"]] == ["pret"]
    assert api.get(f"{URL}{pk}/").json()["body"].startswith("Bună ziua")
    changed = api.patch(f"{URL}{pk}/", {"channel": "EMAIL_WARM", "subject": "Preț"}, format="json")
    assert changed.status_code == 200
    reply = QuickReply.objects.get(pk=pk)
    assert (reply.channel, reply.subject, reply.name) == ("EMAIL_WARM", "Preț", "pret")
    replaced = api.put(f"{URL}{pk}/", {"name": "pret2", "body": "Alt text"}, format="json")
    assert replaced.status_code == 200 and replaced.json()["channel"] == ""
    assert api.delete(f"{URL}{pk}/").status_code == 204
    assert not QuickReply.objects.exists()


def test_an_unknown_variable_is_a_400_naming_the_body(api):
    response = api.post(URL, {"name": "x", "body": "Salut {{fermier}}"}, format="json")
    assert response.status_code == 400
    fields = response.json()["error"]["fields"]
    assert list(fields) == ["body"] and "{{fermier}}" in fields["body"][0]
    assert not QuickReply.objects.exists()


def test_a_taken_name_and_a_bad_channel_are_400s(api, tenant):
    QuickReply.objects.create(tenant=tenant, name="pret", body="Salut")
    taken = api.post(URL, {"name": "Pret", "body": "Salut"}, format="json")
    assert taken.status_code == 400 and list(taken.json()["error"]["fields"]) == ["name"]
    bad = api.post(URL, {"name": "nou", "body": "Salut", "channel": "SMS"}, format="json")
    assert bad.status_code == 400 and list(bad.json()["error"]["fields"]) == ["channel"]
    assert QuickReply.objects.count() == 1


def test_another_workspaces_reply_is_404(api, other_tenant):
    theirs = QuickReply.objects.create(tenant=other_tenant, name="al lor", body="Salut")
    assert api.get(f"{URL}{theirs.pk}/").status_code == 404
    assert api.patch(f"{URL}{theirs.pk}/", {"body": "x"}, format="json").status_code == 404
    assert api.delete(f"{URL}{theirs.pk}/").status_code == 404
    assert api.get(URL).json()["results"] == []
    theirs.refresh_from_db()
    assert theirs.body == "Salut"


def test_a_read_only_key_reads_but_cannot_write(read_api, tenant):
    QuickReply.objects.create(tenant=tenant, name="pret", body="Salut")
    assert read_api.get(URL).status_code == 200
    assert read_api.post(URL, {"name": "x", "body": "y"}, format="json").status_code == 403


@pytest.mark.parametrize(
    ("path", "method", "codes"),
    [
        (URL, "get", {"400", "401", "429"}),
        (URL, "post", {"400", "401", "403", "404", "429"}),
        (f"{URL}{{id}}/", "get", {"401", "404", "429"}),
        (f"{URL}{{id}}/", "put", {"400", "401", "403", "404", "429"}),
        (f"{URL}{{id}}/", "patch", {"400", "401", "403", "404", "429"}),
        (f"{URL}{{id}}/", "delete", {"401", "404", "429"}),
    ],
)
def test_documented_in_the_schema_with_its_errors(anonymous, path, method, codes):
    responses = anonymous.get("/api/schema/?format=json").json()["paths"][path][method]["responses"]
    assert any(code.startswith("2") for code in responses)
    assert codes <= set(responses)
