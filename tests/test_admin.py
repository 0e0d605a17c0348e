"""The Django admin: every model registered and rendering, search, actions, escaping, queries."""

from __future__ import annotations

from typing import Any

import pytest
from django.apps import apps
from django.contrib import admin
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.db import connection
from django.db.models import Model
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from cerniq.models import Tenant
from outreach.models import Journey, Lead, Message, Stage, StageTransition, Template
from tests.factories import (
    make_lead,
    make_message,
    make_one_of_everything,
    make_phone,
    make_tenant,
)
from whatsapp.models import Phone

OUR_APPS = ("cerniq", "outreach", "whatsapp", "email_channels", "hitl")
REGISTERED = sorted(
    (m for m in admin.site._registry if m._meta.app_label in OUR_APPS),
    key=lambda m: m._meta.label,
)


def url(model: type[Model], view: str, *args: Any) -> str:
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_{view}", args=args)


def row_of(model: type[Model], rows: dict[str, Any]) -> Model:
    return next(row for row in rows.values() if type(row) is model)


@pytest.fixture
def admin_client(superuser) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(superuser)
    return client


def messages_of(response) -> list[tuple[str, str]]:
    return [(m.level_tag, m.message) for m in response.context["messages"]]


# --- Every model: registered, changelist, change page, add page, login required ---------


def test_every_model_of_our_apps_is_registered():
    ours = {m for label in OUR_APPS for m in apps.get_app_config(label).get_models()}
    missing = sorted(m._meta.label for m in ours if m not in admin.site._registry)
    assert not missing, f"models without an admin: {missing}"
    assert set(REGISTERED) == ours


@pytest.mark.parametrize("model", REGISTERED, ids=lambda m: m._meta.label)
def test_changelist_and_change_page_render(admin_client, tenant, model):
    rows = make_one_of_everything(tenant)
    obj = row_of(model, rows)

    changelist = admin_client.get(url(model, "changelist"))
    assert changelist.status_code == 200
    assert changelist.context["cl"].result_count >= 1

    change = admin_client.get(url(model, "change", obj.pk))
    assert change.status_code == 200
    assert change.context["original"] == obj


@pytest.mark.parametrize("model", REGISTERED, ids=lambda m: m._meta.label)
def test_add_page_renders_or_is_forbidden_for_view_only_models(admin_client, db, model):
    model_admin = admin.site._registry[model]
    response = admin_client.get(url(model, "add"))
    can_add = model_admin.has_add_permission(response.wsgi_request)
    assert response.status_code == (200 if can_add else 403)


@pytest.mark.parametrize("model", REGISTERED, ids=lambda m: m._meta.label)
def test_anonymous_is_sent_to_login(client, db, model):
    target = url(model, "changelist")
    response = client.get(target)
    assert response.status_code == 302
    assert response["Location"] == f"{reverse('admin:login')}?next={target}"


@pytest.mark.parametrize("model", REGISTERED, ids=lambda m: m._meta.label)
def test_changelist_queries_do_not_grow_with_rows(admin_client, tenant, model):
    make_one_of_everything(tenant)
    target = url(model, "changelist")
    admin_client.get(target)  # warm up: session, content types
    with CaptureQueriesContext(connection) as one:
        assert admin_client.get(target).status_code == 200
    make_one_of_everything(make_tenant())
    make_one_of_everything(make_tenant())
    with CaptureQueriesContext(connection) as three:
        response = admin_client.get(target)
    assert response.context["cl"].result_count > 1
    assert len(three) == len(one), [q["sql"] for q in three.captured_queries]


def test_message_changelist_queries_are_constant_for_1_and_20_rows(admin_client, tenant):
    def count_queries() -> int:
        with CaptureQueriesContext(connection) as ctx:
            response = admin_client.get(url(Message, "changelist"))
        assert response.status_code == 200
        return len(ctx)

    make_message(make_lead(tenant), phone=make_phone(tenant))
    admin_client.get(url(Message, "changelist"))
    with_one = count_queries()
    for _ in range(19):
        make_message(make_lead(tenant), phone=make_phone(tenant))
    assert Message.objects.count() == 20
    assert count_queries() == with_one


# --- Search ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "term",
    [
        "12345678",
        "RO12345678",
        "ro 12345678",
        "+40721000111",
        "0721000111",
        "lunca",
        "office@lunca.ro",
    ],
)
def test_lead_search_finds_the_lead(admin_client, tenant, term):
    lead = make_lead(
        tenant,
        name="Lunca Verde SRL",
        cui="12345678",
        phone="+40721000111",
        email="office@lunca.ro",
    )
    other = make_lead(tenant, name="Câmpia Mare SA", cui="87654321", phone="+40744000222")
    response = admin_client.get(url(Lead, "changelist"), {"q": term})
    found = list(response.context["cl"].result_list)
    assert found == [lead]
    assert other not in found


def test_lead_search_with_no_match_is_empty(admin_client, tenant):
    make_lead(tenant, cui="12345678")
    response = admin_client.get(url(Lead, "changelist"), {"q": "99999999"})
    assert list(response.context["cl"].result_list) == []


# --- Actions -----------------------------------------------------------------------------


def run_action(client: Client, model: type[Model], action: str, objs: list[Model]):
    return client.post(
        url(model, "changelist"),
        {"action": action, ACTION_CHECKBOX_NAME: [o.pk for o in objs]},
        follow=True,
    )


def test_pause_then_resume_leads(admin_client, superuser, tenant):
    lead = make_lead(tenant)
    assert lead.journey.stage == Stage.COLD

    response = run_action(admin_client, Lead, "pause_leads", [lead])
    lead.journey.refresh_from_db()
    assert lead.journey.stage == Stage.PAUSED
    assert messages_of(response) == [("success", "Paused 1 lead.")]
    transition = StageTransition.objects.get(journey=lead.journey)
    assert (transition.from_stage, transition.to_stage) == (Stage.COLD, Stage.PAUSED)
    assert (transition.reason, transition.by_user) == ("stage.paused_in_admin", superuser)

    response = run_action(admin_client, Lead, "resume_leads", [lead])
    lead.journey.refresh_from_db()
    assert lead.journey.stage == Stage.COLD
    assert messages_of(response) == [("success", "Resumed 1 lead.")]
    latest = StageTransition.objects.filter(journey=lead.journey).latest("pk")
    assert (latest.from_stage, latest.to_stage, latest.reason) == (
        Stage.PAUSED,
        Stage.COLD,
        "stage.resumed_in_admin",
    )


def test_pausing_a_paused_lead_is_skipped_with_the_reason(admin_client, tenant):
    cold = make_lead(tenant, name="Cold Farm SRL")
    paused = make_lead(tenant, name="Paused Farm SRL")
    run_action(admin_client, Lead, "pause_leads", [paused])
    before = StageTransition.objects.count()

    response = run_action(admin_client, Lead, "pause_leads", [cold, paused])

    assert StageTransition.objects.count() == before + 1
    cold.journey.refresh_from_db()
    paused.journey.refresh_from_db()
    assert cold.journey.stage == paused.journey.stage == Stage.PAUSED
    assert paused.journey.previous_stage == Stage.COLD  # untouched by the second pause
    assert messages_of(response) == [
        ("success", "Paused 1 lead."),
        ("warning", "Paused 1, skipped 1 lead: Paused Farm SRL: The lead is already Paused."),
    ]


def test_resume_of_a_lead_that_is_not_paused_changes_nothing(admin_client, tenant):
    lead = make_lead(tenant, name="Active Farm SRL")
    response = run_action(admin_client, Lead, "resume_leads", [lead])
    lead.journey.refresh_from_db()
    assert lead.journey.stage == Stage.COLD
    assert not StageTransition.objects.exists()
    assert messages_of(response) == [
        (
            "warning",
            "Resumed 0, skipped 1 lead: Active Farm SRL: Only a paused lead can be resumed.",
        )
    ]


def test_lead_without_journey_is_skipped(admin_client, tenant):
    lead = make_lead(tenant, name="Lonely SRL", with_journey=False)
    response = run_action(admin_client, Lead, "pause_leads", [lead])
    assert messages_of(response) == [
        ("warning", "Paused 0, skipped 1 lead: Lonely SRL: the lead has no journey.")
    ]


def test_journey_admin_pauses_and_resumes(admin_client, tenant):
    journeys = [make_lead(tenant).journey for _ in range(2)]
    response = run_action(admin_client, Journey, "pause_leads", journeys)
    assert messages_of(response) == [("success", "Paused 2 leads.")]
    assert set(Journey.objects.values_list("stage", flat=True)) == {Stage.PAUSED}

    run_action(admin_client, Journey, "resume_leads", journeys)
    assert set(Journey.objects.values_list("stage", flat=True)) == {Stage.COLD}
    assert StageTransition.objects.count() == 4


def test_enable_and_disable_phones(admin_client, tenant):
    phones = [make_phone(tenant), make_phone(tenant)]
    untouched = make_phone(tenant)

    response = run_action(admin_client, Phone, "disable_phones", phones)
    assert messages_of(response) == [("success", "Disabled 2 phones.")]
    assert list(Phone.objects.filter(is_enabled=False)) == phones
    untouched.refresh_from_db()
    assert untouched.is_enabled

    response = run_action(admin_client, Phone, "enable_phones", phones[:1])
    assert messages_of(response) == [("success", "Enabled 1 phone.")]
    assert list(Phone.objects.filter(is_enabled=False)) == phones[1:]


def test_phone_list_shows_todays_quota(admin_client, tenant):
    make_one_of_everything(tenant)  # phone with used=3 today
    response = admin_client.get(url(Phone, "changelist"))
    assert "3/200" in response.content.decode()


# --- Read-only audit data ------------------------------------------------------------------


def test_stage_transitions_cannot_be_added_changed_or_deleted(admin_client, tenant):
    transition = make_one_of_everything(tenant)["transition"]
    assert admin_client.get(url(StageTransition, "add")).status_code == 403
    assert admin_client.get(url(StageTransition, "delete", transition.pk)).status_code == 403
    response = admin_client.post(
        url(StageTransition, "change", transition.pk), {"reason": "rewritten history"}
    )
    assert response.status_code == 403
    transition.refresh_from_db()
    assert transition.reason == "test"


def test_webhook_event_is_view_only(admin_client, tenant):
    event = make_one_of_everything(tenant)["webhook"]
    response = admin_client.get(url(type(event), "change", event.pk))
    assert response.status_code == 200
    assert not response.context["has_change_permission"]
    assert admin_client.get(url(type(event), "delete", event.pk)).status_code == 403


# --- Raw provider payloads are escaped ---------------------------------------------------


def test_webhook_raw_body_is_pretty_and_escaped(admin_client, tenant):
    event = make_one_of_everything(tenant)["webhook"]
    html = admin_client.get(url(type(event), "change", event.pk)).content.decode()
    assert "<pre>{\n  &quot;event_type&quot;: &quot;message:received:new&quot;," in html
    assert "&lt;b&gt;hi&lt;/b&gt;" in html
    assert "<b>hi</b>" not in html


def test_webhook_with_non_json_non_utf8_body_and_secret_headers(admin_client, tenant):
    event = make_one_of_everything(tenant)["webhook"]
    event.raw_body = b"<script>alert(1)</script>\xff"
    event.headers = {"Authorization": "Bearer s3cret", "X-Trace": "<i>t</i>"}
    event.save()
    html = admin_client.get(url(type(event), "change", event.pk)).content.decode()
    assert "<pre>&lt;script&gt;alert(1)&lt;/script&gt;\ufffd</pre>" in html
    assert "<script>alert(1)</script>" not in html
    assert "s3cret" not in html
    assert "&lt;i&gt;t&lt;/i&gt;" in html


def test_inbound_message_raw_response_is_pretty_and_escaped(admin_client, tenant):
    inbound = make_one_of_everything(tenant)["inbound"]
    html = admin_client.get(url(Message, "change", inbound.pk)).content.decode()
    # The pretty JSON block (quotes escaped too), not just the body's <textarea>.
    assert (
        "<pre>{\n  &quot;text&quot;: &quot;&lt;script&gt;alert(1)&lt;/script&gt;&quot;\n}</pre>"
        in html
    )
    assert "<script>alert(1)</script>" not in html
    assert 'name="raw_response"' not in html
    assert 'name="raw_request"' not in html


# --- Inlines take the parent's tenant ----------------------------------------------------


def test_template_added_with_an_inline_version_gets_the_tenant(admin_client, tenant):
    data = {
        "tenant": tenant.pk,
        "name": "Prima atingere",
        "channel": "WHATSAPP",
        "language": "ro",
        "is_active": "on",
        "versions-TOTAL_FORMS": "1",
        "versions-INITIAL_FORMS": "0",
        "versions-MIN_NUM_FORMS": "0",
        "versions-MAX_NUM_FORMS": "1000",
        "versions-0-version": "1",
        "versions-0-subject": "",
        "versions-0-body": "{Bună ziua|Salut} {{company_name}}!",
        "versions-0-weight": "100",
        "versions-0-is_active": "on",
    }
    response = admin_client.post(url(Template, "add"), data)
    assert response.status_code == 302, response.context["adminform"].form.errors
    template = Template.objects.get(name="Prima atingere")
    version = template.versions.get()
    assert version.tenant == template.tenant == tenant
    assert Tenant.objects.count() == 1


def test_sequence_steps_are_read_only_in_admin_once_leads_run_on_them(client, superuser, tenant):
    from outreach.models import Enrollment
    from tests.factories import make_lead, make_sequence

    sequence = make_sequence(tenant)
    client.force_login(superuser)
    url = f"/admin/outreach/sequence/{sequence.pk}/change/"
    assert 'name="steps-0-position"' in client.get(url).content.decode()
    Enrollment.objects.create(tenant=tenant, lead=make_lead(tenant), sequence=sequence)
    assert 'name="steps-0-position"' not in client.get(url).content.decode()
