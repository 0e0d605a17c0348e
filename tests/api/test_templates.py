"""The Templates endpoints: scoping, keys, versions with their results, the page's spintax
rules per field, validate + preview (with a lead's values), constant queries on the list."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from outreach.models import Channel, Template, TemplateVersion
from tests.factories import make_lead, make_message, make_template

TEMPLATES = "/api/v1/templates/"
PREVIEW = f"{TEMPLATES}preview/"


def url(template: Template, suffix: str = "") -> str:
    return f"{TEMPLATES}{template.pk}/{suffix}"


# --- scoping and keys ---------------------------------------------------------------------


@pytest.mark.parametrize(("method", "suffix"), [("get", ""), ("post", "versions/")])
def test_another_tenants_template_is_404(api, other_tenant, method, suffix):
    theirs = make_template(other_tenant)
    response = getattr(api, method)(url(theirs, suffix), {"body": "Salut"}, format="json")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    assert theirs.versions.count() == 1


def test_list_shows_own_templates_only(api, tenant, other_tenant):
    mine = make_template(tenant)
    make_template(other_tenant)
    assert [row["id"] for row in api.get(TEMPLATES).json()["results"]] == [mine.pk]


@pytest.mark.parametrize(
    ("method", "path"),
    [("get", ""), ("get", "{id}/"), ("post", ""), ("post", "{id}/versions/"), ("post", "preview/")],
)
def test_every_endpoint_needs_a_key(anonymous, tenant, method, path):
    template = make_template(tenant)
    assert getattr(anonymous, method)(TEMPLATES + path.format(id=template.pk)).status_code == 401


@pytest.mark.parametrize("path", ["", "{id}/versions/"])
def test_a_read_only_key_cannot_write_but_may_preview(read_api, tenant, path):
    template = make_template(tenant)
    body = {"name": "New", "channel": "WHATSAPP", "versions": [{"body": "Salut"}], "body": "Hei"}
    response = read_api.post(TEMPLATES + path.format(id=template.pk), body, format="json")
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "permission_denied"
    assert Template.objects.count() == 1 and TemplateVersion.objects.count() == 1
    assert read_api.post(PREVIEW, {"body": "Salut"}, format="json").status_code == 200


# --- read: versions with their results -------------------------------------------------------


def test_retrieve_shows_each_versions_results(api, tenant):
    template = make_template(tenant)
    TemplateVersion.objects.filter(template=template).update(
        sent_count=40, reply_count=6, positive_reply_count=2
    )
    TemplateVersion.objects.create(tenant=tenant, template=template, version=2, body="Hei")
    versions = api.get(url(template)).json()["versions"]
    assert [(v["version"], v["sent_count"], v["reply_count"]) for v in versions] == [
        (1, 40, 6),
        (2, 0, 0),
    ]
    assert versions[0]["reply_rate"] == 15.0 and versions[0]["positive_reply_count"] == 2
    assert versions[1]["reply_rate"] is None


# --- create and new version -----------------------------------------------------------------


def test_create_with_versions(api, tenant):
    body = {
        "name": "Prima atingere",
        "channel": "EMAIL_COLD",
        "versions": [
            {"subject": "Pentru {{company_name}}", "body": "{Bună ziua|Salut}!"},
            {"body": "Hei {{contact_name|}}!", "weight": 30, "is_active": False},
        ],
    }
    response = api.post(TEMPLATES, body, format="json")
    assert response.status_code == 201, response.json()
    data = response.json()
    assert (data["name"], data["channel"], data["language"]) == (
        "Prima atingere",
        "EMAIL_COLD",
        "ro",
    )
    assert [(v["version"], v["weight"], v["is_active"]) for v in data["versions"]] == [
        (1, 100, True),
        (2, 30, False),
    ]
    assert Template.objects.get(pk=data["id"]).tenant == tenant


def test_bad_spintax_is_refused_naming_the_version_field_with_the_position(api, tenant):
    body = {
        "name": "Broken",
        "channel": "EMAIL_COLD",
        "versions": [{"body": "Bun"}, {"subject": "{Salut", "body": "{{nume}}"}],
    }
    response = api.post(TEMPLATES, body, format="json")
    assert response.status_code == 400
    fields = response.json()["error"]["fields"]
    assert set(fields) == {"versions.1.subject", "versions.1.body"}
    assert "line 1, column 1" in fields["versions.1.subject"][0]
    assert "unknown variable {{nume}}" in fields["versions.1.body"][0]
    assert not Template.objects.exists()  # nothing half-saved


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"channel": "WHATSAPP", "versions": [{"body": "Salut"}]}, "name"),
        ({"name": "X", "channel": "FAX", "versions": [{"body": "Salut"}]}, "channel"),
        (
            {"name": "X", "channel": "WHATSAPP", "versions": [{"body": "S", "weight": -1}]},
            "versions.0.weight",
        ),
    ],
)
def test_bad_bodies_name_the_field(api, tenant, body, field):
    response = api.post(TEMPLATES, body, format="json")
    assert response.status_code == 400
    assert field in response.json()["error"]["fields"]
    assert not Template.objects.exists()


def test_a_taken_name_is_refused(api, tenant):
    make_template(tenant, name="Taken")
    body = {"name": "Taken", "channel": "WHATSAPP", "versions": [{"body": "Salut"}]}
    response = api.post(TEMPLATES, body, format="json")
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["name"]


def test_a_new_version_is_numbered_after_the_last_and_leaves_the_used_one(api, tenant):
    template = make_template(tenant)
    first = template.versions.get()
    make_message(make_lead(tenant), template_version=first)
    response = api.post(url(template, "versions/"), {"body": "Hei {{county}}!"}, format="json")
    assert response.status_code == 201, response.json()
    versions = response.json()["versions"]
    assert [(v["version"], v["body"]) for v in versions] == [
        (1, first.body),
        (2, "Hei {{county}}!"),
    ]
    bad = api.post(url(template, "versions/"), {"body": "{Hei"}, format="json")
    assert bad.status_code == 400 and "body" in bad.json()["error"]["fields"]
    assert template.versions.count() == 2


# --- validate + preview ---------------------------------------------------------------------


def test_preview_renders_distinct_variants_with_sample_values(api, tenant):
    response = api.post(
        PREVIEW, {"body": "{Bună ziua|Salut|Hei} {{company_name}}!", "count": 2}, format="json"
    )
    data = response.json()
    assert response.status_code == 200
    assert data["valid"] is True and data["problems"] == {} and data["total"] == 3
    assert len(data["variants"]) == 2 and len(set(data["variants"])) == 2
    assert all(text.endswith(" Agro Test SRL!") for text in data["variants"])


def test_preview_with_a_lead_uses_its_values_and_only_own_leads(api, tenant, other_tenant):
    lead = make_lead(tenant, name="Ferma Bio SRL")
    data = api.post(PREVIEW, {"body": "Salut {{company_name}}", "lead": lead.pk}, format="json")
    assert data.json()["variants"] == ["Salut Ferma Bio SRL"]
    theirs = make_lead(other_tenant)
    refused = api.post(PREVIEW, {"body": "Salut", "lead": theirs.pk}, format="json")
    assert refused.status_code == 400
    assert list(refused.json()["error"]["fields"]) == ["lead"]


def test_preview_lists_problems_with_positions_and_never_fails(api, tenant):
    body = "Salut!\n{Bună|ziua {{Nume}}"
    response = api.post(
        PREVIEW,
        {"body": body, "subject": "{a|}", "channel": "EMAIL_COLD"},
        format="json",
    )
    assert response.status_code == 200
    data = response.json()
    assert data["valid"] is False and data["variants"] == []
    assert any("line 2, column 1" in problem for problem in data["problems"]["body"])
    assert any("line 2, column 12" in problem for problem in data["problems"]["body"])
    assert "empty alternative" in data["problems"]["subject"][0]


def test_preview_of_a_first_whatsapp_message_refuses_links(api, tenant):
    body = {"body": "Vezi agroferma.ro", "first_message": True}
    problems = api.post(PREVIEW, body, format="json").json()["problems"]["body"]
    assert "links are not allowed" in problems[0]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "body"),
        ({"body": "x", "count": 0}, "count"),
        ({"body": "x", "channel": "FAX"}, "channel"),
    ],
)
def test_preview_names_the_bad_field(api, tenant, body, field):
    response = api.post(PREVIEW, body, format="json")
    assert response.status_code == 400
    assert field in response.json()["error"]["fields"]


# --- queries --------------------------------------------------------------------------------


def _list_queries(api, size: int) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = api.get(TEMPLATES, {"page_size": size, "channel": Channel.WHATSAPP})
    assert response.status_code == 200
    assert len(response.json()["results"]) == size
    return len(queries)


def test_list_queries_do_not_grow_with_the_page_size(api, tenant):
    for n in range(12):
        template = make_template(tenant)
        TemplateVersion.objects.create(tenant=tenant, template=template, version=2, body=f"V{n}")
    api.get(TEMPLATES)  # the key's last use is written once a minute: not in the counts
    assert _list_queries(api, 3) == _list_queries(api, 12)
