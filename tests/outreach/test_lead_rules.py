"""Lead rules (outreach.lead_rules): each condition kind matches and fails, each action
acts, a refusal is recorded (never raised), the first matching rule wins, a lead no rule
took gets no firing, `lead.created` is owed once per lead, and a tenant's rules never touch
another tenant's leads, sequences, phones or operators."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.utils import timezone

from cerniq import reasons
from cerniq.models import WebhookDelivery
from outreach import reasons as outreach_codes
from outreach.lead_rules import editing, lead_created, leads_created
from outreach.lead_rules import reasons as codes
from outreach.lead_rules.editing import RuleData, RuleInvalid
from outreach.lead_rules.matching import Intake, matches
from outreach.models import Enrollment, Journey, Lead, LeadRule, RuleFiring
from tests.factories import (
    make_lead,
    make_phone,
    make_sequence,
    make_user,
    make_webhook_endpoint,
)

# Every test travels to its moment before it makes anything: the clock phase skips them.
pytestmark = pytest.mark.own_moment

BUCHAREST = ZoneInfo("Europe/Bucharest")
TUESDAY_10 = datetime(2026, 11, 24, 10, 0, tzinfo=BUCHAREST)


@pytest.fixture(autouse=True)
def tuesday():
    with time_machine.travel(TUESDAY_10, tick=False):
        yield TUESDAY_10


def rule(tenant, name="Rule", **kw) -> LeadRule:
    position = LeadRule.objects.filter(tenant=tenant).count() + 1
    return LeadRule.objects.create(tenant=tenant, name=name, position=position, **kw)


def codes_of(stored: list[str]) -> list[str]:
    return [reasons.parse(s)[0] for s in stored]


# --- conditions ---------------------------------------------------------------------------


CASES = [
    # (rule's condition, the lead's fields, what the creating path said, matches?)
    ({"source": "lead_ads"}, {}, Intake("lead_ads"), True),
    ({"source": "lead_ads"}, {}, Intake("import"), False),
    ({"form_id": "F-77"}, {}, Intake("lead_ads", "F-77"), True),
    ({"form_id": "F-77"}, {}, Intake("lead_ads", "F-78"), False),
    ({"county": "iasi"}, {"county": "Iași"}, Intake("api"), True),
    ({"county": "Iași"}, {"county": "Vaslui"}, Intake("api"), False),
    ({"tags": ["vip", "porumb"]}, {"tags": ["Porumb"]}, Intake("api"), True),
    ({"tags": ["vip"]}, {"tags": ["porumb"]}, Intake("api"), False),
    ({"has_phone": "yes"}, {"phone": "+40722000001"}, Intake("api"), True),
    ({"has_phone": "yes"}, {"phone": "", "email": "a@ferma.ro"}, Intake("api"), False),
    ({"has_phone": "no"}, {"phone": "", "email": "a@ferma.ro"}, Intake("api"), True),
    ({"has_email": "yes"}, {"email": "a@ferma.ro"}, Intake("api"), True),
    ({"has_email": "yes"}, {"email": ""}, Intake("api"), False),
    ({"has_email": "no"}, {"email": "a@ferma.ro"}, Intake("api"), False),
]


@pytest.mark.parametrize(("condition", "fields", "intake", "expected"), CASES)
def test_each_condition_matches_and_fails(tenant, condition, fields, intake, expected):
    lead = make_lead(tenant, **fields)
    assert matches(rule(tenant, **condition), lead, intake) is expected


def test_every_condition_must_hold(tenant):
    both = rule(tenant, county="Iași", has_email="yes", source="api")
    lead = make_lead(tenant, county="Iași", email="")
    assert not matches(both, lead, Intake("api"))
    lead.email = "office@ferma.ro"
    assert matches(both, lead, Intake("api"))
    assert not matches(both, lead, Intake("page"))


def test_a_rule_with_no_condition_takes_every_lead(tenant):
    assert matches(rule(tenant), make_lead(tenant, county=""), Intake("import"))


# --- actions ------------------------------------------------------------------------------


def test_enroll_assign_and_tag_in_one_firing(tenant):
    sequence, phone = make_sequence(tenant), make_phone(tenant, label="Vânzări 1")
    ana = make_user(tenant, first_name="Ana", last_name="Pop")
    rule(tenant, sequence=sequence, operator=ana, phone=phone, add_tags=["Formular", "vip"])
    lead = make_lead(tenant, tags=["vip"])

    firing = lead_created(lead, source="api")

    journey = Journey.objects.get(lead=lead)
    assert Enrollment.objects.get(lead=lead).sequence == sequence
    assert journey.current_sequence == sequence and journey.next_action_at is not None
    assert journey.operator == ana and journey.assigned_phone == phone
    assert Lead.objects.get(pk=lead.pk).tags == ["vip", "formular"]
    assert codes_of(firing.done) == [codes.TAGGED, codes.OPERATOR, codes.PHONE, codes.ENROLLED]
    assert firing.refused == []
    said = [reasons.render(done) for done in firing.done]
    assert said == [
        "tagged formular, vip",
        "given to Ana Pop",
        "assigned to the number Vânzări 1",
        f"enrolled in the sequence {sequence.name}",
    ]


def test_a_rule_without_actions_takes_the_lead_and_stops_the_rules_after_it(tenant):
    rule(tenant, "Only Vaslui", county="Vaslui")
    rule(tenant, "Stop here")
    later = rule(tenant, "Never reached", add_tags=["x"])
    lead = make_lead(tenant, county="Iași")

    firing = lead_created(lead, source="import")

    assert firing.rule_name == "Stop here" and codes_of(firing.done) == [codes.NOTHING]
    assert Lead.objects.get(pk=lead.pk).tags == []
    assert not RuleFiring.objects.filter(rule=later).exists()


def test_a_lead_no_rule_takes_gets_no_firing(tenant):
    rule(tenant, county="Vaslui", add_tags=["x"])
    lead = make_lead(tenant, county="Iași")
    assert lead_created(lead, source="api") is None
    assert not RuleFiring.objects.filter(lead=lead).exists()


# --- refusals -----------------------------------------------------------------------------


def test_an_opted_out_lead_is_refused_enrollment_and_the_rest_still_happens(tenant):
    sequence = make_sequence(tenant)
    rule(tenant, sequence=sequence, add_tags=["formular"])
    lead = make_lead(tenant)
    Journey.objects.filter(lead=lead).update(whatsapp_opted_out=True)

    firing = lead_created(lead, source="lead_ads")

    assert not Enrollment.objects.filter(lead=lead).exists()
    assert Lead.objects.get(pk=lead.pk).tags == ["formular"]
    assert codes_of(firing.refused) == [codes.NOT_ENROLLED]
    assert reasons.render(firing.refused[0]) == (
        f"not enrolled in the sequence {sequence.name}: opted out"
    )


def test_a_lead_already_enrolled_is_refused_with_the_reason(tenant):
    sequence = make_sequence(tenant)
    rule(tenant, sequence=sequence)
    lead = make_lead(tenant)
    Enrollment.objects.create(tenant=tenant, lead=lead, sequence=make_sequence(tenant))

    firing = lead_created(lead, source="api")

    (refused,) = firing.refused
    assert reasons.parse(refused)[1]["reason"] == reasons.code(outreach_codes.ENROLL_BUSY)
    assert Enrollment.objects.filter(lead=lead).count() == 1


def test_an_erased_person_is_not_enrolled(tenant):
    sequence = make_sequence(tenant)
    rule(tenant, sequence=sequence)
    lead = make_lead(tenant, erased_at=timezone.now(), phone="")
    firing = lead_created(lead, source="api")
    assert codes_of(firing.refused) == [codes.ERASED]
    assert not Enrollment.objects.filter(lead=lead).exists()


def test_an_inactive_sequence_is_a_recorded_refusal_not_an_error(tenant):
    sequence = make_sequence(tenant, is_active=False)
    rule(tenant, sequence=sequence)
    firing = lead_created(make_lead(tenant), source="api")
    assert codes_of(firing.refused) == [codes.SEQUENCE_UNUSABLE]


def test_an_operator_who_left_the_workspace_is_not_assigned(tenant):
    gone = make_user(tenant, username="plecat")
    rule(tenant, operator=gone)
    gone.memberships.all().delete()
    lead = make_lead(tenant)
    firing = lead_created(lead, source="api")
    assert Journey.objects.get(lead=lead).operator is None
    assert codes_of(firing.refused) == [codes.OPERATOR_GONE]


# --- order --------------------------------------------------------------------------------


def test_the_first_matching_enabled_rule_wins_and_the_order_can_change(tenant):
    first = rule(tenant, "Iași", county="Iași", add_tags=["iasi"])
    second = rule(tenant, "Everyone", add_tags=["all"])

    assert lead_created(make_lead(tenant, county="Iași"), source="api").rule == first
    assert lead_created(make_lead(tenant, county="Cluj"), source="api").rule == second

    assert editing.move(second, -1) is True
    assert lead_created(make_lead(tenant, county="Iași"), source="api").rule == second
    assert editing.move(second, -1) is False  # already first

    editing.set_enabled(second, False)
    assert lead_created(make_lead(tenant, county="Iași"), source="api").rule == first


# --- the outgoing webhook -----------------------------------------------------------------


def test_lead_created_is_owed_once_per_lead_with_the_rule_that_fired(
    tenant, django_capture_on_commit_callbacks
):
    make_webhook_endpoint(tenant, events=["lead.created"])
    make_webhook_endpoint(tenant, url="https://other.example.com/in")  # lead.replied only
    taken = rule(tenant, "Lead Ads", source="lead_ads")
    lead, other = make_lead(tenant), make_lead(tenant)

    leads_created(tenant, [lead], source="lead_ads", form_id="F-1", requested_contact=True)
    leads_created(tenant, [other], source="import")

    rows = WebhookDelivery.objects.filter(event_type="lead.created").order_by("pk")
    assert [row.payload["data"] for row in rows] == [
        {
            "lead_id": lead.pk,
            "source": "lead_ads",
            "form_id": "F-1",
            "requested_contact": True,
            "rule_id": taken.pk,
            "rule": "Lead Ads",
        },
        {
            "lead_id": other.pk,
            "source": "import",
            "form_id": "",
            "requested_contact": False,
            "rule_id": None,
            "rule": None,
        },
    ]


# --- tenant isolation ---------------------------------------------------------------------


def test_a_tenants_rules_never_touch_another_tenants_leads(tenant, other_tenant):
    rule(tenant, add_tags=["ours"], sequence=make_sequence(tenant))
    theirs = make_lead(other_tenant)

    assert leads_created(tenant, [theirs], source="api") == []
    assert lead_created(theirs, source="api") is None  # their own tenant has no rule
    assert Lead.objects.get(pk=theirs.pk).tags == []
    assert not Enrollment.objects.filter(lead=theirs).exists()


def test_a_rule_cannot_name_another_tenants_sequence_phone_or_operator(tenant, other_tenant):
    data = RuleData(
        name="Borrowed",
        sequence=make_sequence(other_tenant),
        phone=make_phone(other_tenant),
        operator=make_user(other_tenant),
    )
    with pytest.raises(RuleInvalid) as refused:
        editing.save(tenant, data)
    assert set(refused.value.problems) == {"sequence", "phone", "operator"}
    assert not LeadRule.objects.exists()


def test_bad_values_are_refused_per_field_and_nothing_is_saved(tenant):
    rule(tenant, "Taken")
    data = RuleData(name="Taken", source="api", form_id="F-1", tags=["x"] * 0 + ["a" * 41])
    with pytest.raises(RuleInvalid) as refused:
        editing.save(tenant, data)
    assert set(refused.value.problems) == {"name", "form_id", "tags"}
    assert LeadRule.objects.count() == 1


def test_the_preview_says_which_recent_leads_a_rule_would_take(tenant):
    rule(tenant, "Earlier", county="Cluj")
    iasi, cluj, vaslui = (make_lead(tenant, county=c) for c in ("Iași", "Cluj", "Vaslui"))
    candidate = editing.draft(tenant, RuleData(name="Mine", county="", has_phone="yes"))
    rows = {row.lead.pk: row for row in editing.preview(tenant, candidate)}
    assert rows[iasi.pk].matches and rows[iasi.pk].earlier is None
    assert rows[cluj.pk].matches and rows[cluj.pk].earlier.name == "Earlier"
    assert rows[vaslui.pk].matches


def test_taken_counts_cover_the_last_seven_days(tenant):
    counted = rule(tenant, "Counted")
    lead_created(make_lead(tenant), source="api")
    old = lead_created(make_lead(tenant), source="api")
    RuleFiring.objects.filter(pk=old.pk).update(created_at=datetime(2026, 11, 10, tzinfo=BUCHAREST))
    assert editing.taken_counts(tenant) == {counted.pk: 1}
