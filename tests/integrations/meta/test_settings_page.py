"""Settings → WhatsApp Cloud API (Meta): admins map template versions to approved templates,
set the messaging limit and the Lead Ads forms; a bad value is a form error naming the
field and changes nothing; operators and other workspaces are refused. Adding a Cloud API
number needs its phone number ID."""

from __future__ import annotations

import pytest

from integrations.meta.models import ApprovedTemplate, LeadForm, MessagingLimit
from tests.factories import make_template, make_user
from whatsapp.models import Phone

URL = "/outreach/settings/meta/"


@pytest.fixture
def admin(client, tenant):
    client.force_login(make_user(tenant, role="ADMIN", username="sefa"))
    return client


@pytest.fixture
def version(tenant):
    return make_template(tenant).versions.get()


def test_the_page_shows_what_a_version_lacks(admin, tenant, version):
    page = admin.get(URL)
    assert page.status_code == 200
    assert b"data-unmapped" in page.content


def test_an_admin_maps_a_version_to_its_approved_template(admin, tenant, version):
    response = admin.post(
        URL + "templates/",
        {
            "version": version.pk,
            "name": "intro_ferma_ro",
            "language": "ro",
            "parameters": "contact_name, company_name",
            "text": "Bună ziua {{1}}, despre {{2}}: răspundeți STOP pentru dezabonare.",
        },
    )
    assert response.status_code == 302
    approved = ApprovedTemplate.objects.get(template_version=version)
    assert approved.parameters == ["contact_name", "company_name"]
    assert b"data-unmapped" not in admin.get(URL).content


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        ("name", "Intro Ferma", "lowercase"),
        ("language", "romana", "language code"),
        ("parameters", "contact_name, cui_firma_x", "Not a variable"),
        ("text", "Bună ziua {{1}}", "placeholders"),
    ],
)
def test_a_bad_mapping_is_a_form_error_and_nothing_is_saved(admin, version, field, value, said):
    data = {
        "version": version.pk,
        "name": "intro",
        "language": "ro",
        "parameters": "contact_name, company_name",
        "text": "Bună ziua {{1}} de la {{2}}",
        field: value,
    }
    response = admin.post(URL + "templates/", data)
    assert response.status_code == 400
    assert said in response.content.decode()
    assert not ApprovedTemplate.objects.exists()


def test_another_workspaces_version_cannot_be_mapped(admin, other_tenant):
    theirs = make_template(other_tenant).versions.get()
    response = admin.post(
        URL + "templates/",
        {"version": theirs.pk, "name": "x", "language": "ro", "parameters": "", "text": "Salut"},
    )
    assert response.status_code == 400
    assert not ApprovedTemplate.objects.exists()


def test_the_limit_is_set_or_unlimited(admin, tenant):
    assert admin.post(URL + "limit/", {"limit": "2.000"}).status_code == 302
    assert MessagingLimit.objects.get(tenant=tenant).unique_users_per_day == 2000
    admin.post(URL + "limit/", {"limit": "unlimited"})
    assert MessagingLimit.objects.get(tenant=tenant).unique_users_per_day is None
    assert admin.post(URL + "limit/", {"limit": "multe"}).status_code == 400


def test_a_lead_form_with_its_field_map(admin, tenant):
    response = admin.post(
        URL + "forms/",
        {
            "page_id": "153125381133",
            "form_id": "12312312312",
            "field_map": "phone = phone_number\nname = company_name",
            "asks_for_contact": "on",
        },
    )
    assert response.status_code == 302
    form = LeadForm.objects.get(tenant=tenant)
    assert form.field_map == {"phone": "phone_number", "name": "company_name"}
    bad = admin.post(
        URL + "forms/", {"page_id": "x1", "form_id": "9", "field_map": "telefon = phone"}
    )
    assert bad.status_code == 400 and LeadForm.objects.count() == 1


def test_operators_are_refused(client, tenant):
    client.force_login(make_user(tenant, role="OPERATOR", username="op"))
    assert client.get(URL).status_code == 403
    assert client.post(URL + "limit/", {"limit": "10"}).status_code == 403


def test_a_cloud_api_number_needs_its_phone_number_id(admin, tenant):
    missing = admin.post(
        "/outreach/phones/add/", {"number": "0740 000 201", "provider": "meta", "account_id": ""}
    )
    assert missing.status_code == 200 and "Phone number ID" in missing.content.decode()
    assert not Phone.objects.exists()
    admin.post(
        "/outreach/phones/add/",
        {"number": "0740 000 201", "provider": "meta", "account_id": "106540352242922"},
    )
    phone = Phone.objects.get()
    assert (phone.provider, phone.account_id) == ("meta", "106540352242922")


def test_a_media_header_must_be_the_kind_of_the_versions_file(
    admin, tenant, version, settings, tmp_path
):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from outreach import media
    from outreach.models import TemplateVersion

    settings.MEDIA_ROOT = str(tmp_path)
    data = {
        "version": version.pk,
        "name": "lista_preturi",
        "language": "ro",
        "parameters": "contact_name",
        "text": "Bună ziua {{1}}, lista de prețuri e atașată.",
        "header": "document",
    }
    refused = admin.post(URL + "templates/", data)  # the version has no file yet
    assert refused.status_code == 400
    assert "This version carries no image or PDF." in refused.content.decode()
    pdf = SimpleUploadedFile("lista.pdf", b"%PDF-1.7\n%%EOF\n", "application/pdf")
    TemplateVersion.objects.filter(pk=version.pk).update(media=media.store(tenant.pk, pdf))
    wrong = admin.post(URL + "templates/", {**data, "header": "image"})
    assert wrong.status_code == 400 and "the header must be the same kind" in wrong.content.decode()
    assert not ApprovedTemplate.objects.exists()
    assert admin.post(URL + "templates/", data).status_code == 302
    assert ApprovedTemplate.objects.get().header == "document"
    assert b'data-header="document"' in admin.get(URL).content
