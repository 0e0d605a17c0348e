"""Settings → Lead rules: admins add, edit, reorder, switch off and delete rules, a bad value
is a form error naming its field (nothing saved, what was typed kept), the preview shows
which recent leads a rule would take without saving; colleagues who are not admins read
only; the choices are the workspace's own."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
import time_machine

from outreach.models import LeadRule
from tests.factories import make_lead, make_phone, make_sequence, make_user

# Every test travels to its moment first (the autouse fixture): the clock phase skips them.
pytestmark = [pytest.mark.django_db, pytest.mark.own_moment]

PAGE = "/outreach/settings/lead-rules/"
TUESDAY_10 = datetime(2026, 11, 24, 10, 0, tzinfo=ZoneInfo("Europe/Bucharest"))


@pytest.fixture(autouse=True)
def tuesday():
    with time_machine.travel(TUESDAY_10, tick=False):
        yield


@pytest.fixture
def admin(client, tenant):
    client.force_login(make_user(tenant, role="ADMIN"))
    return client


def form(**values) -> dict:
    base = {"name": "Formular", "enabled": "on", "save": "1"}
    return {**base, **values}


def test_an_admin_adds_edits_reorders_switches_off_and_deletes(admin, tenant):
    sequence, phone = make_sequence(tenant), make_phone(tenant, label="Vânzări")
    ana = make_user(tenant, username="ana")
    added = admin.post(
        f"{PAGE}new/",
        form(
            source="lead_ads",
            form_id="F-1",
            county="Iași",
            tags="vip, porumb",
            has_phone="yes",
            sequence=sequence.pk,
            operator=ana.pk,
            phone=phone.pk,
            add_tags="formular",
        ),
    )
    assert added.status_code == 302 and added["Location"] == PAGE
    rule = LeadRule.objects.get()
    assert (rule.source, rule.form_id, rule.county, rule.tags) == (
        "lead_ads",
        "F-1",
        "Iași",
        ["vip", "porumb"],
    )
    assert (rule.sequence, rule.operator, rule.phone, rule.add_tags) == (
        sequence,
        ana,
        phone,
        ["formular"],
    )
    second = admin.post(f"{PAGE}new/", form(name="Restul"))
    assert second.status_code == 302
    listed = admin.get(PAGE).content.decode()
    assert "The first rule that matches wins." in listed
    assert listed.index("Formular") < listed.index("Restul")

    rest = LeadRule.objects.get(name="Restul")
    assert admin.post(f"{PAGE}{rest.pk}/up/").status_code == 302
    assert list(LeadRule.objects.values_list("name", flat=True)) == ["Restul", "Formular"]

    changed = admin.post(f"{PAGE}{rule.pk}/", form(name="Formular Iași", county="Vaslui"))
    assert changed.status_code == 302
    rule.refresh_from_db()
    assert (rule.name, rule.county, rule.sequence) == ("Formular Iași", "Vaslui", None)

    admin.post(f"{PAGE}{rule.pk}/disable/")
    rule.refresh_from_db()
    assert not rule.enabled
    admin.post(f"{PAGE}{rule.pk}/delete/")
    assert list(LeadRule.objects.values_list("name", flat=True)) == ["Restul"]


def test_a_bad_value_is_a_form_error_naming_the_field_and_nothing_is_saved(admin, tenant):
    LeadRule.objects.create(tenant=tenant, name="Taken")
    answer = admin.post(
        f"{PAGE}new/", form(name="Taken", source="api", form_id="F-9", tags="x" * 41)
    )
    assert answer.status_code == 400
    errors = answer.context["form"].errors
    assert set(errors) == {"name", "form_id", "tags"}
    assert "Another rule has this name." in errors["name"]
    assert 'data-error="form_id"' in answer.content.decode()
    assert answer.context["form"]["form_id"].value() == "F-9"  # what was typed is kept
    assert LeadRule.objects.count() == 1


def test_another_workspaces_sequence_phone_or_colleague_is_not_a_choice(
    admin, tenant, other_tenant
):
    theirs = {
        "sequence": make_sequence(other_tenant).pk,
        "phone": make_phone(other_tenant).pk,
        "operator": make_user(other_tenant).pk,
    }
    page = admin.get(f"{PAGE}new/")
    choices = page.context["form"]
    assert not choices.fields["sequence"].queryset.filter(pk=theirs["sequence"]).exists()
    assert not choices.fields["phone"].queryset.filter(pk=theirs["phone"]).exists()
    assert not choices.fields["operator"].queryset.filter(pk=theirs["operator"]).exists()
    answer = admin.post(f"{PAGE}new/", form(**theirs))
    assert answer.status_code == 400
    assert set(answer.context["form"].errors) == {"sequence", "phone", "operator"}
    assert not LeadRule.objects.exists()
    other_rule = LeadRule.objects.create(tenant=other_tenant, name="Theirs")
    assert admin.get(f"{PAGE}{other_rule.pk}/").status_code == 404
    assert admin.post(f"{PAGE}{other_rule.pk}/delete/").status_code == 404


def test_the_preview_shows_which_recent_leads_the_rule_would_take_without_saving(
    admin, tenant, other_tenant
):
    LeadRule.objects.create(tenant=tenant, name="Cluj first", county="Cluj")
    iasi = make_lead(tenant, name="Ferma Iași SRL", county="Iași")
    cluj = make_lead(tenant, name="Ferma Cluj SRL", county="Cluj")
    vaslui = make_lead(tenant, name="Ferma Vaslui SRL", county="Vaslui", phone="")
    make_lead(other_tenant, name="Their Farm SRL", county="Iași")
    answer = admin.post(f"{PAGE}new/", form(name="Cu telefon", has_phone="yes", preview="1"))
    assert answer.status_code == 200
    rows = {row.lead.pk: row for row in answer.context["preview"]}
    assert set(rows) == {iasi.pk, cluj.pk, vaslui.pk}
    assert rows[iasi.pk].matches and rows[iasi.pk].earlier is None
    assert rows[cluj.pk].matches and rows[cluj.pk].earlier.name == "Cluj first"
    assert not rows[vaslui.pk].matches
    page = answer.content.decode()
    assert "matches, but Cluj first takes it first" in page and "Their Farm" not in page
    assert LeadRule.objects.count() == 1  # nothing saved


def test_a_colleague_who_is_not_an_admin_reads_but_does_not_change(client, tenant):
    rule = LeadRule.objects.create(tenant=tenant, name="Formular")
    client.force_login(make_user(tenant))
    listed = client.get(PAGE)
    assert listed.status_code == 200 and "Formular" in listed.content.decode()
    assert "data-new-lead-rule" not in listed.content.decode()
    shown = client.get(f"{PAGE}{rule.pk}/")
    assert shown.status_code == 200 and shown.context["form"].fields["name"].disabled
    assert client.post(f"{PAGE}{rule.pk}/", form(name="Changed")).status_code == 403
    assert client.post(f"{PAGE}{rule.pk}/delete/").status_code == 403
    assert client.post(f"{PAGE}new/", form(name="New")).status_code == 403
    assert list(LeadRule.objects.values_list("name", flat=True)) == ["Formular"]
