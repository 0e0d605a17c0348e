"""One request, bounded work, on the pages: a form with too many fields or too large a body
is a small 400/413 page naming the limit; formsets build at most their maximum of forms
whatever TOTAL_FORMS says, and more is a form error; a template body over the size limit is
refused on save and shown as a problem in the live preview. Nothing is saved."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from outreach import spintax
from outreach.models import ImportJob, Sequence, Template
from outreach.sequences import MAX_STEPS
from outreach.template_versions import MAX_VERSIONS
from tests.factories import make_lead, make_message, make_template
from tests.outreach.test_pages_sequences import EN, sequence_post, step, template_post

pytestmark = pytest.mark.django_db


@pytest.fixture
def signed_in(client, operator):
    client.force_login(operator)
    client.raise_request_exception = False  # a 5xx shows as a status, to be asserted
    return client


def test_a_form_with_too_many_fields_is_a_400_page_naming_the_limit(signed_in):
    data = {f"field{n}": "x" for n in range(1_500)}
    response = signed_in.post("/outreach/sequences/new/", data, **EN)
    assert response.status_code == 400
    page = response.content.decode()
    assert '<html lang="en">' in page
    assert "The request has more than 1,000 fields, the most a request may have." in page
    assert not Sequence.objects.exists()


def test_a_form_body_over_the_size_limit_is_a_413_page(signed_in, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 4096
    response = signed_in.post("/outreach/sequences/new/", {"name": "x" * 5000}, **EN)
    assert response.status_code == 413
    assert "larger than 4.0 KB" in response.content.decode()
    assert not Sequence.objects.exists()


def test_an_upload_over_the_limit_is_a_413_page_and_nothing_is_stored(signed_in, settings):
    settings.UPLOAD_MAX_REQUEST_BYTES = 64 * 1024
    upload = SimpleUploadedFile("leads.csv", b"name\n" + b"Agro SRL\n" * 10_000)
    response = signed_in.post("/outreach/leads/import/", {"file": upload}, **EN)
    assert response.status_code == 413
    page = response.content.decode()
    assert "The request is larger than 64.0 KB, the most this address takes." in page
    assert not ImportJob.objects.exists()


def test_an_upload_under_the_limit_still_imports(signed_in, settings):
    settings.UPLOAD_MAX_REQUEST_BYTES = 64 * 1024
    upload = SimpleUploadedFile("leads.csv", b"name,phone\nAgro SRL,0722123456\n")
    response = signed_in.post("/outreach/leads/import/", {"file": upload}, **EN)
    assert response.status_code == 302
    assert ImportJob.objects.count() == 1


def test_a_sequence_post_claiming_2000_steps_builds_only_the_maximum(signed_in, tenant):
    template = make_template(tenant)
    data = sequence_post("Lunga", [step(template)] * 3)
    data["steps-TOTAL_FORMS"] = "2000"
    response = signed_in.post("/outreach/sequences/new/", data, **EN)
    assert response.status_code == 200
    page = response.content.decode()
    assert f"Please submit at most {MAX_STEPS} forms." in page
    # Rows built, not 2,000: each step's 6 fields and its one empty condition row's 3.
    assert page.count('name="steps-') <= (MAX_STEPS + 1) * (6 + 3)
    assert not Sequence.objects.exists()


def test_a_sequence_keeps_at_most_max_steps(signed_in, tenant):
    template = make_template(tenant)
    refused = signed_in.post(
        "/outreach/sequences/new/", sequence_post("Prea", [step(template)] * (MAX_STEPS + 1)), **EN
    )
    assert f"Please submit at most {MAX_STEPS} forms." in refused.content.decode()
    saved = signed_in.post(
        "/outreach/sequences/new/", sequence_post("Destul", [step(template)] * MAX_STEPS), **EN
    )
    assert saved.status_code == 302
    assert Sequence.objects.get(name="Destul").steps.count() == MAX_STEPS


def test_a_template_post_claiming_2000_versions_is_a_form_error(signed_in):
    data = template_post("Multe", [{"body": "Salut", "weight": "100", "is_active": "on"}])
    data["versions-TOTAL_FORMS"] = "2000"
    response = signed_in.post("/outreach/templates/new/", data, **EN)
    assert response.status_code == 200
    assert f"Please submit at most {MAX_VERSIONS} forms." in response.content.decode()
    assert not Template.objects.exists()


def test_a_template_past_max_versions_refuses_a_new_one_on_the_page(signed_in, tenant):
    template = make_template(tenant)
    for n in range(MAX_VERSIONS - 1):
        template.versions.create(tenant=tenant, version=n + 2, body=f"Varianta {n}")
    page = signed_in.get(f"/outreach/templates/{template.pk}/", **EN).content.decode()
    assert page.count('name="versions-') > MAX_VERSIONS  # every version is editable
    versions = [
        {"id": str(v.pk), "body": v.body, "weight": "100", "is_active": "on"}
        for v in template.versions.order_by("version")
    ]
    extra = {"body": "Una nouă", "weight": "100", "is_active": "on"}
    data = template_post(template.name, [*versions, extra], initial=len(versions))
    response = signed_in.post(f"/outreach/templates/{template.pk}/", data, **EN)
    assert response.status_code == 200
    assert "at most 50" in response.content.decode()
    assert template.versions.count() == MAX_VERSIONS
    unchanged = template_post(template.name, versions, initial=len(versions))
    assert signed_in.post(f"/outreach/templates/{template.pk}/", unchanged, **EN).status_code == 302


def test_new_text_for_a_used_version_past_max_versions_is_a_form_error(signed_in, tenant):
    """A sent version's new text would be a new version (its results stay its own)."""
    template = make_template(tenant)
    for n in range(MAX_VERSIONS - 1):
        template.versions.create(tenant=tenant, version=n + 2, body=f"Varianta {n}")
    used = template.versions.get(version=1)
    make_message(make_lead(tenant), template_version=used)
    versions = [
        {"id": str(v.pk), "body": v.body, "weight": "100", "is_active": "on"}
        for v in template.versions.order_by("version")
    ]
    versions[0]["body"] = "Text nou"
    data = template_post(template.name, versions, initial=len(versions))
    response = signed_in.post(f"/outreach/templates/{template.pk}/", data, **EN)
    assert response.status_code == 200
    assert "A template keeps at most 50 versions" in response.content.decode()
    assert template.versions.count() == MAX_VERSIONS
    assert template.versions.get(pk=used.pk).body != "Text nou"


def test_a_template_body_over_the_size_limit_is_refused_on_save(signed_in):
    body = "{a|b}" * 15_000  # 75,000 characters
    data = template_post("Mare", [{"body": body, "weight": "100", "is_active": "on"}])
    response = signed_in.post("/outreach/templates/new/", data, **EN)
    assert response.status_code == 200
    assert (
        f"Ensure this value has at most {spintax.MAX_SOURCE_CHARS} characters (it has 75000)."
        in response.content.decode()
    )
    assert not Template.objects.exists()


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ("{a|b}" * 15_000, "at most 60,000 characters (this text has 75,000)"),
        ("{a|b}" * 420_000, "at most 60,000 characters (this text has 2,100,000)"),
        ("{a|b}" * 600, "more than 1,000 spintax alternatives (from line 1, column 2502)"),
    ],
)
def test_the_live_preview_shows_the_limit_instead_of_working_on(signed_in, settings, body, problem):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 4 * 1024 * 1024
    response = signed_in.post("/outreach/templates/preview/", {"body": body}, **EN)
    assert response.status_code == 200
    assert problem in response.content.decode()


def test_the_live_preview_says_more_than_the_cap(signed_in):
    response = signed_in.post("/outreach/templates/preview/", {"body": "{a|b}" * 40}, **EN)
    assert "more than 1,000,000,000 variants" in response.content.decode()


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"name=Agro%1B&description=", "name contains a control character (U+001B)"),
        (b"name=Agro%FF%FE", "The request body is not UTF-8 text."),
    ],
)
def test_a_form_with_unprintable_text_is_a_400_page_naming_the_field(signed_in, body, message):
    response = signed_in.generic(
        "POST",
        "/outreach/sequences/new/",
        body,
        content_type="application/x-www-form-urlencoded",
        **EN,
    )
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not Sequence.objects.exists()
