"""The sequences and templates pages: scoping, versions, validation, live preview, CSRF."""

from __future__ import annotations

import pytest
from django.test import Client

from outreach.models import Channel, Enrollment, Sequence, SequenceStep, Template, TemplateVersion
from tests.factories import make_lead, make_sequence, make_template

pytestmark = pytest.mark.django_db

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}


def sequence_post(name: str, steps: list[dict], *, initial: int = 0, **extra: str) -> dict:
    data = {
        "name": name,
        "description": "",
        "is_active": "on",
        "fallback_sequence": "",
        "steps-TOTAL_FORMS": str(len(steps)),
        "steps-INITIAL_FORMS": str(initial),
        "steps-MIN_NUM_FORMS": "0",
        "steps-MAX_NUM_FORMS": "1000",
        **extra,
    }
    for i, step in enumerate(steps):
        for key, value in step.items():
            data[f"steps-{i}-{key}"] = value
    return data


def step(template: Template, channel: str = Channel.WHATSAPP, delay: int = 0) -> dict:
    return {
        "channel": channel,
        "delay_value": str(delay),
        "delay_unit": SequenceStep.DelayUnit.WORKING_DAYS,
        "template": str(template.pk),
    }


def template_post(name: str, versions: list[dict], *, initial: int = 0, **extra: str) -> dict:
    data = {
        "name": name,
        "channel": Channel.WHATSAPP,
        "language": "ro",
        "is_active": "on",
        "versions-TOTAL_FORMS": str(len(versions)),
        "versions-INITIAL_FORMS": str(initial),
        "versions-MIN_NUM_FORMS": "1",
        "versions-MAX_NUM_FORMS": "1000",
        **extra,
    }
    for i, version in enumerate(versions):
        for key, value in version.items():
            data[f"versions-{i}-{key}"] = value
    return data


@pytest.mark.parametrize(
    "url",
    [
        "/outreach/sequences/",
        "/outreach/sequences/new/",
        "/outreach/templates/",
        "/outreach/templates/new/",
    ],
)
def test_anonymous_is_sent_to_login(client, url):
    response = client.get(url)
    assert response.status_code == 302
    assert "login" in response["Location"]


def test_anonymous_preview_is_sent_to_login(client):
    response = client.post("/outreach/templates/preview/", {"body": "Salut"})
    assert response.status_code == 302


def test_lists_show_own_rows_only(client, operator, tenant, other_tenant):
    mine = make_sequence(tenant, name="Secventa mea")
    make_sequence(other_tenant, name="Secventa lor")
    lead = make_lead(tenant)
    Enrollment.objects.create(tenant=tenant, lead=lead, sequence=mine)
    make_template(tenant, name="Sablon meu")
    make_template(other_tenant, name="Sablon lor")
    client.force_login(operator)
    html = client.get("/outreach/sequences/", **EN).content.decode()
    assert "Secventa mea" in html and "Secventa lor" not in html
    row = html[html.index(f'data-sequence="{mine.pk}"') :]
    assert "data-steps>1<" in row and "data-enrollments>1<" in row
    html = client.get("/outreach/templates/", **EN).content.decode()
    assert "Sablon meu" in html and "Sablon lor" not in html


def test_create_sequence_with_two_steps(client, operator, tenant):
    first = make_template(tenant)
    email = make_template(tenant, channel=Channel.EMAIL_COLD)
    client.force_login(operator)
    response = client.post(
        "/outreach/sequences/new/",
        sequence_post("Noua", [step(first), step(email, Channel.EMAIL_COLD, 3)]),
        **EN,
    )
    assert response.status_code == 302, response.content.decode()
    sequence = Sequence.objects.get(tenant=tenant, name="Noua")
    steps = list(sequence.steps.order_by("position"))
    assert [(s.position, s.channel, s.template_id, s.delay_value) for s in steps] == [
        (1, Channel.WHATSAPP, first.pk, 0),
        (2, Channel.EMAIL_COLD, email.pk, 3),
    ]
    page = client.get(response["Location"], **EN).content.decode()
    assert "saved as version 1" in page


def test_editing_with_active_enrollment_makes_version_2(client, operator, tenant):
    sequence = make_sequence(tenant, name="Rulanta")
    old_template = sequence.steps.get().template
    enrollment = Enrollment.objects.create(tenant=tenant, lead=make_lead(tenant), sequence=sequence)
    other = make_template(tenant)
    client.force_login(operator)
    page = client.get(f"/outreach/sequences/{sequence.pk}/", **EN).content.decode()
    assert f'value="{old_template.pk}" selected' in page
    response = client.post(
        f"/outreach/sequences/{sequence.pk}/",
        sequence_post("Rulanta", [step(old_template), step(other, delay=2)], initial=1),
        **EN,
        follow=True,
    )
    assert "saved as version 2" in response.content.decode()
    sequence.refresh_from_db()
    enrollment.refresh_from_db()
    assert sequence.version == 2
    assert enrollment.sequence_version == 1
    assert sequence.steps.filter(sequence_version=1).count() == 1
    assert sequence.steps.filter(sequence_version=2).count() == 2


def test_first_whatsapp_step_with_link_is_refused(client, operator, tenant):
    linked = make_template(tenant)
    TemplateVersion.objects.filter(template=linked).update(body="Salut, vezi www.agro.ro")
    client.force_login(operator)
    response = client.post(
        "/outreach/sequences/new/", sequence_post("Cu link", [step(linked)]), **EN
    )
    assert response.status_code == 200
    assert "links are not allowed in a first WhatsApp message" in response.content.decode()
    assert not Sequence.objects.filter(name="Cu link").exists()


def test_channel_template_mismatch_is_refused(client, operator, tenant):
    email = make_template(tenant, channel=Channel.EMAIL_COLD)
    client.force_login(operator)
    response = client.post("/outreach/sequences/new/", sequence_post("Gresit", [step(email)]), **EN)
    assert response.status_code == 200
    assert "needs a template for that channel" in response.content.decode()
    assert not Sequence.objects.filter(name="Gresit").exists()


def test_steps_cannot_use_another_tenants_template(client, operator, tenant, other_tenant):
    theirs = make_template(other_tenant)
    client.force_login(operator)
    response = client.post("/outreach/sequences/new/", sequence_post("Furt", [step(theirs)]), **EN)
    assert response.status_code == 200
    assert not Sequence.objects.filter(name="Furt").exists()


def test_create_template_with_a_version(client, operator, tenant):
    client.force_login(operator)
    response = client.post(
        "/outreach/templates/new/",
        template_post(
            "Salut",
            [{"body": "{Bună|Salut} {{contact_name}}", "weight": "100", "is_active": "on"}],
        ),
        **EN,
    )
    assert response.status_code == 302, response.content.decode()
    template = Template.objects.get(tenant=tenant, name="Salut")
    assert list(template.versions.values_list("version", "body", "is_active")) == [
        (1, "{Bună|Salut} {{contact_name}}", True)
    ]


def test_adding_a_version_to_a_template(client, operator, tenant):
    template = make_template(tenant, name="Doua")
    v1 = template.versions.get()
    client.force_login(operator)
    page = client.get(f"/outreach/templates/{template.pk}/", **EN).content.decode()
    assert 'hx-post="/outreach/templates/preview/"' in page
    assert 'hx-trigger="input changed delay:400ms"' in page
    assert "Bună ziua Agro Test SRL!" in page and "Salut Agro Test SRL!" in page  # first preview
    response = client.post(
        f"/outreach/templates/{template.pk}/",
        template_post(
            "Doua",
            [
                {"id": str(v1.pk), "body": v1.body, "weight": "70", "is_active": "on"},
                {"body": "Hei {{company_name}}", "weight": "30", "is_active": "on"},
            ],
            initial=1,
        ),
        **EN,
    )
    assert response.status_code == 302, response.content.decode()
    assert list(template.versions.values_list("version", "weight")) == [(1, 70), (2, 30)]


def test_bad_spintax_is_refused_with_the_error(client, operator, tenant):
    client.force_login(operator)
    response = client.post(
        "/outreach/templates/new/",
        template_post("Rupt", [{"body": "{Bună|Salut", "weight": "100"}]),
        **EN,
    )
    assert response.status_code == 200
    html = response.content.decode()
    errors = html[html.index('data-errors="body"') :]
    assert "<li>" in errors[:400]
    assert not Template.objects.filter(name="Rupt").exists()


def test_preview_lists_distinct_variants_and_total(client, operator, tenant):
    client.force_login(operator)
    response = client.post(
        "/outreach/templates/preview/",
        {"versions-0-body": "{Bună|Salut} {{contact_name}}", "channel": Channel.WHATSAPP},
        **EN,
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert 'data-total="2"' in html
    assert html.count("<li data-variant>") == 2
    assert "Bună Ion Popescu" in html and "Salut Ion Popescu" in html
    assert "data-problems" not in html


def test_preview_of_half_typed_spintax_shows_problems_not_500(client, operator, tenant):
    client.force_login(operator)
    for body in ["{Bună|Salut", "{{contact_", "}", "{{{", "Salut {{necunoscut}}"]:
        response = client.post("/outreach/templates/preview/", {"body": body}, **EN)
        assert response.status_code == 200
        assert "data-problems" in response.content.decode()


def test_version_results_are_shown(client, operator, tenant):
    template = make_template(tenant, name="Rezultate")
    TemplateVersion.objects.filter(template=template).update(
        sent_count=200, reply_count=30, positive_reply_count=12
    )
    client.force_login(operator)
    html = client.get("/outreach/templates/", **EN).content.decode()
    assert "data-sent>200<" in html and "data-replies>30<" in html
    assert "data-positive>12<" in html and "15.0%" in html
    html = client.get(f"/outreach/templates/{template.pk}/", **EN).content.decode()
    assert "data-sent>200<" in html and "data-positive>12<" in html


def test_another_tenants_rows_are_404(client, operator, tenant, other_tenant):
    sequence = make_sequence(other_tenant)
    template = make_template(other_tenant)
    client.force_login(operator)
    assert client.get(f"/outreach/sequences/{sequence.pk}/").status_code == 404
    assert client.get(f"/outreach/templates/{template.pk}/").status_code == 404
    response = client.post(
        f"/outreach/templates/{template.pk}/",
        template_post("Preluat", [{"body": "Salut", "weight": "1"}]),
    )
    assert response.status_code == 404
    assert not Template.objects.filter(name="Preluat").exists()


def test_fallback_must_be_own_tenants(client, operator, tenant, other_tenant):
    theirs = make_sequence(other_tenant)
    first = make_template(tenant)
    client.force_login(operator)
    response = client.post(
        "/outreach/sequences/new/",
        sequence_post("Fallback", [step(first)], fallback_sequence=str(theirs.pk)),
    )
    assert response.status_code == 200
    assert not Sequence.objects.filter(name="Fallback").exists()


def test_posts_without_csrf_are_refused(operator, tenant):
    first = make_template(tenant)
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(operator)
    assert (
        strict.post("/outreach/sequences/new/", sequence_post("X", [step(first)])).status_code
        == 403
    )
    assert (
        strict.post(
            "/outreach/templates/new/", template_post("Y", [{"body": "Salut", "weight": "1"}])
        ).status_code
        == 403
    )
    assert strict.post("/outreach/templates/preview/", {"body": "Salut"}).status_code == 403
    assert not Sequence.objects.filter(name="X").exists()
    assert not Template.objects.filter(name="Y").exists()


def test_preview_with_csrf_header_works(operator, tenant):
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(operator)
    strict.get("/outreach/templates/new/")
    token = strict.cookies["csrftoken"].value
    response = strict.post(
        "/outreach/templates/preview/", {"body": "Salut"}, HTTP_X_CSRFTOKEN=token
    )
    assert response.status_code == 200


def test_a_template_that_does_not_say_who_writes_or_how_to_stop_is_flagged_on_save(
    client, operator, tenant
):
    """issue #22 §1: the check is the template_compliance rule (tested with dispatch in
    tests/outreach/test_lawful_basis.py); here the page says it, on save and on the form."""
    client.force_login(operator)
    response = client.post(
        "/outreach/templates/new/",
        template_post(
            "Rece",
            [
                {"body": "Bună ziua, avem semințe.", "weight": "50", "is_active": "on"},
                {
                    "body": "Vă scrie Agro Demo. Răspundeți STOP dacă nu doriți mesaje.",
                    "weight": "50",
                    "is_active": "on",
                },
            ],
        ),
        follow=True,
        **EN,
    )
    page = response.content.decode()
    assert "Template Rece saved." in page
    assert "Who is writing and how to stop, not said in v1: who is writing and how to stop" in page
    assert "v2" not in page.split("not said in")[1].split("</li>")[0]
    assert "Fine for follow-ups" in page
    assert page.count("data-template-lacks") == 1
