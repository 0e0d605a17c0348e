"""Templates and sequences through the API, bounded as on the pages: a body over the size
limit is a 400 naming the field and the limit (a read key's preview included), before any
spintax work; more versions or steps than a template or sequence keeps is refused; a
preview counts variants up to the cap and says there are more."""

from __future__ import annotations

import pytest

from outreach.models import Channel, Sequence, Template, TemplateVersion
from outreach.sequences import MAX_STEPS
from outreach.spintax import MAX_SOURCE_CHARS, VARIANT_COUNT_CAP
from outreach.template_versions import MAX_VERSIONS
from tests.factories import make_template

PREVIEW = "/api/v1/templates/preview/"
TOO_LONG = f"Ensure this field has no more than {MAX_SOURCE_CHARS} characters."

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("body", ["{a|b|c|d|e|f|g|h|i|j}" * 3_600, "{a|b}" * 420_000])
def test_a_preview_body_over_the_limit_is_a_400_naming_it(read_api, body):
    """75 KB and 2.1 MB of spintax: once a 500 (a variant count too long to print) and 11 s."""
    response = read_api.post(PREVIEW, {"body": body}, format="json")
    assert response.status_code == 400
    assert response.json()["error"] == {
        "code": "invalid",
        "message": "Invalid input: body.",
        "fields": {"body": [TOO_LONG]},
    }


def test_a_preview_subject_is_bounded_too(read_api):
    response = read_api.post(PREVIEW, {"body": "Salut", "subject": "x" * 256}, format="json")
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["subject"]


def test_a_preview_over_a_structural_limit_lists_it_as_the_problem(read_api):
    response = read_api.post(PREVIEW, {"body": "{a|b}" * 501}, format="json")
    assert response.status_code == 200
    assert response.json() == {
        "valid": False,
        "problems": {"body": ["more than 1,000 spintax alternatives (from line 1, column 2502)"]},
        "variants": [],
        "total": 0,
        "more": False,
    }


def test_a_preview_counts_up_to_the_cap_and_says_more(read_api):
    data = read_api.post(PREVIEW, {"body": "{a|b|c}" * 100, "count": 2}, format="json").json()
    assert (data["valid"], data["total"], data["more"], len(data["variants"])) == (
        True,
        VARIANT_COUNT_CAP,
        True,
        2,
    )


def test_creating_a_template_with_a_body_over_the_limit_is_refused(api):
    body = {"name": "Mare", "channel": "WHATSAPP", "versions": [{"body": "x" * 75_000}]}
    response = api.post("/api/v1/templates/", body, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["fields"] == {"versions.0.body": [TOO_LONG]}
    assert not Template.objects.exists()


def test_a_template_takes_at_most_max_versions(api, tenant):
    body = {
        "name": "Multe",
        "channel": "WHATSAPP",
        "versions": [{"body": f"Salut {n}"} for n in range(MAX_VERSIONS + 1)],
    }
    response = api.post("/api/v1/templates/", body, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["fields"] == {  # a list's own error, as DRF names it
        "versions.non_field_errors": [
            f"Ensure this field has no more than {MAX_VERSIONS} elements."
        ]
    }
    template = make_template(tenant)
    TemplateVersion.objects.bulk_create(
        TemplateVersion(tenant=tenant, template=template, version=n, body=f"Salut {n}")
        for n in range(2, MAX_VERSIONS + 1)
    )
    added = api.post(f"/api/v1/templates/{template.pk}/versions/", {"body": "Hei"}, format="json")
    assert added.status_code == 409
    assert added.json()["error"]["code"] == "too_many_versions"
    assert "at most 50 versions" in added.json()["error"]["message"]
    assert template.versions.count() == MAX_VERSIONS


def test_a_sequence_takes_at_most_max_steps(api, tenant):
    template = make_template(tenant)
    step = {"channel": Channel.WHATSAPP, "template": template.pk}
    body = {"name": "Lunga", "steps": [step] * (MAX_STEPS + 1)}
    response = api.post("/api/v1/sequences/", body, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["fields"] == {
        "steps.non_field_errors": [f"Ensure this field has no more than {MAX_STEPS} elements."]
    }
    assert not Sequence.objects.exists()
    body["steps"] = [step] * MAX_STEPS
    assert api.post("/api/v1/sequences/", body, format="json").status_code == 201
