"""The do-not-contact endpoints: add (normalised, idempotent), list with what each entry
blocks, remove a person's entry (audited; a recipient's opt-out is a 409), CSV both ways (all
or nothing), scoped to the key's workspace; a read-only key reads."""

from __future__ import annotations

import csv
import io

import pytest
import time_machine
from rest_framework.test import APIClient

from outreach import readiness
from outreach.models import Suppression, SuppressionRemoval
from outreach.suppression import suppress
from tests.factories import make_lead, make_user

pytestmark = pytest.mark.django_db

URL = "/api/v1/suppressions/"


def test_a_domain_added_over_the_api_blocks_email_to_its_leads_and_says_so(api, tenant):
    at_domain = make_lead(tenant, email="ana@concurent.ro", email_status="valid")
    elsewhere = make_lead(tenant, email="ion@ferma.ro", email_status="valid")
    created = api.post(
        URL, {"kind": "domain", "value": "@Concurent.RO", "reason": "A competitor"}, format="json"
    )
    assert created.status_code == 201, created.content
    body = created.json()
    assert (body["kind"], body["value"], body["source"]) == ("domain", "concurent.ro", "api")
    assert body["blocked_leads"] == 1 and body["removable"] is True
    assert body["created_by"]  # the key's owner
    assert readiness.for_tenant(at_domain).email.state == readiness.State.BLOCKED
    assert readiness.for_tenant(elsewhere).email.state == readiness.State.READY
    # The same domain again: the entry already listed, not a second row.
    again = api.post(URL, {"kind": "domain", "value": "concurent.ro", "reason": "x"}, format="json")
    assert again.status_code == 200 and again.json()["id"] == body["id"]
    assert Suppression.objects.count() == 1


@pytest.mark.parametrize(
    ("kind", "value", "stored"),
    [
        ("phone", "0722 123 456", "+40722123456"),
        ("email", "Office@Ferma.RO", "office@ferma.ro"),
        ("cui", "RO 22732040", "22732040"),
    ],
)
def test_values_are_stored_as_the_rules_compare_them(api, kind, value, stored):
    response = api.post(URL, {"kind": kind, "value": value, "reason": "asked"}, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["value"] == stored
    assert Suppression.objects.get().value == stored


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"kind": "phone", "value": "123", "reason": "x"}, "value"),
        ({"kind": "cui", "value": "RO22732041", "reason": "x"}, "value"),  # bad checksum
        ({"kind": "domain", "value": "localhost", "reason": "x"}, "value"),
        ({"kind": "email", "value": "nu-e-adresa", "reason": "x"}, "value"),
        ({"kind": "fax", "value": "123", "reason": "x"}, "kind"),
        ({"kind": "email", "value": "a@b.ro", "reason": "   "}, "reason"),
        ({"kind": "email", "value": "a@b.ro"}, "reason"),
    ],
)
def test_a_bad_entry_is_a_400_naming_the_field_and_stores_nothing(api, payload, field):
    response = api.post(URL, payload, format="json")
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == [field]
    assert not Suppression.objects.exists()


def test_the_list_filters_by_kind_and_text_and_counts_the_leads_each_entry_names(
    api, tenant, other_tenant
):
    make_lead(tenant, phone="+40722000111")
    make_lead(tenant, cui="22732040", email="a@agro.ro")
    make_lead(other_tenant, phone="+40722000111")  # not this workspace's lead
    suppress(tenant, phone="+40722000111", reason="stop")
    api.post(URL, {"kind": "cui", "value": "22732040", "reason": "called us"}, format="json")
    api.post(URL, {"kind": "domain", "value": "nimeni.ro", "reason": "nobody"}, format="json")
    Suppression.objects.create(tenant=other_tenant, domain="agro.ro", reason="theirs")
    rows = api.get(URL).json()["results"]
    assert {row["value"]: row["blocked_leads"] for row in rows} == {
        "+40722000111": 1,
        "22732040": 1,
        "nimeni.ro": 0,
    }
    assert [r["value"] for r in api.get(URL, {"kind": "cui"}).json()["results"]] == ["22732040"]
    assert [r["value"] for r in api.get(URL, {"q": "nimeni"}).json()["results"]] == ["nimeni.ro"]
    bad = api.get(URL, {"kind": "fax"})
    assert bad.status_code == 400 and list(bad.json()["error"]["fields"]) == ["kind"]


def test_removing_a_persons_entry_is_audited_and_unblocks_the_lead(api, tenant):
    lead = make_lead(tenant, cui="22732040")
    pk = api.post(URL, {"kind": "cui", "value": "22732040", "reason": "x"}, format="json").json()[
        "id"
    ]
    assert readiness.for_tenant(lead).whatsapp.state == readiness.State.BLOCKED
    short = api.post(f"{URL}{pk}/remove/", {"reason": "ok"}, format="json")
    assert short.status_code == 400 and list(short.json()["error"]["fields"]) == ["reason"]
    assert Suppression.objects.filter(pk=pk).exists()
    why = "The company signed a contract with us on 3 Dec."
    assert api.post(f"{URL}{pk}/remove/", {"reason": why}, format="json").status_code == 204
    audit = SuppressionRemoval.objects.get()
    assert (audit.kind, audit.value, audit.reason, audit.entry_source) == (
        "cui",
        "22732040",
        why,
        "api",
    )
    assert readiness.for_tenant(lead).whatsapp.state != readiness.State.BLOCKED


def test_an_opt_out_cannot_be_removed_here(api, tenant):
    suppress(tenant, phone="+40722000111", reason="stop")
    entry = Suppression.objects.get()
    response = api.post(
        f"{URL}{entry.pk}/remove/", {"reason": "We think they did not mean it."}, format="json"
    )
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "not_removable"
    assert "lead" in response.json()["error"]["message"]
    assert Suppression.objects.filter(pk=entry.pk).exists()
    assert not SuppressionRemoval.objects.exists()


def test_an_operator_who_is_not_admin_reads_but_cannot_change_the_list_over_a_session(tenant):
    entry = Suppression.objects.create(tenant=tenant, domain="x.ro", reason="r", source="manual")
    client = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(make_user(tenant))
    assert client.get(URL).status_code == 200
    response = client.post(
        f"{URL}{entry.pk}/remove/", {"reason": "A reason long enough."}, format="json"
    )
    assert response.status_code == 403
    added = client.post(URL, {"kind": "domain", "value": "y.ro", "reason": "r"}, format="json")
    assert added.status_code == 403
    imported = client.generic("POST", f"{URL}import/", b"domain\nz.ro\n", content_type="text/csv")
    assert imported.status_code == 403
    assert list(Suppression.objects.values_list("domain", flat=True)) == ["x.ro"]
    client.force_login(make_user(tenant, role="ADMIN"))
    assert client.post(URL, {"kind": "domain", "value": "y.ro", "reason": "r"}).status_code == 201


def test_another_workspaces_entry_is_404_and_a_read_key_only_reads(api, read_api, other_tenant):
    theirs = Suppression.objects.create(tenant=other_tenant, domain="x.ro", reason="r")
    assert api.get(f"{URL}{theirs.pk}/").status_code == 404
    remove = api.post(f"{URL}{theirs.pk}/remove/", {"reason": "A reason long enough."})
    assert remove.status_code == 404
    assert read_api.get(URL).status_code == 200
    write = read_api.post(URL, {"kind": "domain", "value": "y.ro", "reason": "r"}, format="json")
    assert write.status_code == 403
    assert Suppression.objects.count() == 1


def test_csv_import_is_all_or_nothing_and_the_export_reads_back(api, tenant):
    bad = "kind,value,reason\nphone,0722123456,stop\nemail,nu-e-adresa,x\ncui,RO22732041,y\n"
    refused = api.generic("POST", f"{URL}import/", bad, content_type="text/csv")
    assert refused.status_code == 400
    fields = refused.json()["error"]["fields"]
    assert sorted(fields) == ["line 3", "line 4"] and "nu-e-adresa" in fields["line 3"][0]
    assert not Suppression.objects.exists()

    by_column = "email;domain;reason\nA@Ferma.ro;;unsubscribed by phone\n;@agro.ro;a competitor\n"
    done = api.generic("POST", f"{URL}import/", by_column.encode(), content_type="text/csv")
    assert done.status_code == 200, done.content
    assert done.json() == {"added": 2, "already": 0, "lines": 2, "kinds": {"email": 1, "domain": 1}}
    with time_machine.travel("2026-12-02T10:00:00+02:00", tick=False):
        exported = api.get(f"{URL}export/")
    assert exported.status_code == 200 and exported["Content-Type"].startswith("text/csv")
    assert f"do-not-contact-{tenant.slug}-2026-12-02.csv" in exported["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(exported.content.decode())))
    assert {(r["kind"], r["value"], r["source"]) for r in rows} == {
        ("email", "a@ferma.ro", "api"),
        ("domain", "agro.ro", "api"),
    }
    # The export imports back: everything already listed, nothing added.
    again = api.generic("POST", f"{URL}import/", exported.content, content_type="text/csv")
    assert again.json()["added"] == 0 and again.json()["already"] == 2


def test_a_file_without_a_header_naming_columns_is_refused(api):
    response = api.generic("POST", f"{URL}import/", b"0722123456\n", content_type="text/csv")
    assert response.status_code == 400
    assert "line 1" in response.json()["error"]["fields"]
    assert not Suppression.objects.exists()
