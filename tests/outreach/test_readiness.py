"""Contact readiness (outreach.readiness): the rules, and the Python and SQL forms agreeing."""

from __future__ import annotations

import pytest
from django.db import transaction
from django.utils import translation
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cerniq import reasons
from outreach import reasons as codes
from outreach.models import Journey, Lead, Stage, Suppression
from outreach.readiness import (
    ContactPolicy,
    State,
    readiness,
    readiness_many,
    tally,
    with_readiness,
)
from tests.factories import make_lead, make_tenant, make_user

ON = ContactPolicy()
OFF = ContactPolicy(whatsapp_unchecked=False, email_unchecked=False)

PHONES = ("", "+40721000001", "+40721000002")
EMAILS = ("", "ana@ferma.ro", "ion@agro.ro", "Dan@Ferma.RO")
DOMAINS = ("ferma.ro", "agro.ro")
CUIS = ("", "22732040", "14399840")

lead_states = st.fixed_dictionaries(
    {
        "phone": st.sampled_from(PHONES),
        "phone_reachable": st.sampled_from([None, True, False]),
        "email": st.sampled_from(EMAILS),
        "email_status": st.sampled_from(Lead.EmailStatus.values),
        "cui": st.sampled_from(CUIS),
        "journey": st.booleans(),
        "whatsapp_opted_out": st.booleans(),
        "email_opted_out": st.booleans(),
        "stage": st.sampled_from(Stage.values),
        "taken_over": st.booleans(),
    }
)


def _make(tenant, state: dict, holder) -> Lead:
    lead = make_lead(
        tenant,
        with_journey=False,
        phone=state["phone"],
        phone_reachable=state["phone_reachable"],
        email=state["email"],
        email_status=state["email_status"],
        # A CUI is one lead's per tenant (until companies hold several contacts).
        cui=""
        if Lead.objects.filter(tenant=tenant, cui=state["cui"]).exclude(cui="").exists()
        else state["cui"],
    )
    if state["journey"]:
        Journey.objects.create(
            tenant=tenant,
            lead=lead,
            stage=state["stage"],
            whatsapp_opted_out=state["whatsapp_opted_out"],
            email_opted_out=state["email_opted_out"],
            taken_over_by=holder if state["taken_over"] else None,
        )
    return lead


@pytest.mark.django_db(transaction=False)
@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    states=st.lists(lead_states, min_size=1, max_size=10),
    policy=st.tuples(st.booleans(), st.booleans()),
    phones_listed=st.sets(st.sampled_from(PHONES[1:])),
    emails_listed=st.sets(st.sampled_from(EMAILS[1:3])),
    domains_listed=st.sets(st.sampled_from(DOMAINS)),
    cuis_listed=st.sets(st.sampled_from(CUIS[1:])),
    listed_elsewhere=st.booleans(),
)
def test_the_python_and_sql_forms_agree(
    states, policy, phones_listed, emails_listed, domains_listed, cuis_listed, listed_elsewhere
):
    with transaction.atomic():
        tenant = make_tenant(
            contact_unverified_whatsapp=policy[0], contact_unverified_email=policy[1]
        )
        holder = make_user(tenant)
        for phone in phones_listed:
            Suppression.objects.create(tenant=tenant, phone=phone, reason="stop")
        for email in emails_listed:
            # Stored lowercased; a lead's address in capitals is still the same address.
            Suppression.objects.create(tenant=tenant, email=email.upper(), reason="stop")
        for domain in domains_listed:
            Suppression.objects.create(tenant=tenant, domain=domain, reason="no one there")
        for cui in cuis_listed:
            Suppression.objects.create(tenant=tenant, cui=cui, reason="the company asked")
        if listed_elsewhere:  # another tenant's list never blocks this tenant's leads
            other = make_tenant()
            for phone in PHONES[1:]:
                Suppression.objects.create(tenant=other, phone=phone, reason="stop")
            for domain in DOMAINS:
                Suppression.objects.create(tenant=other, domain=domain, reason="stop")
            for cui in CUIS[1:]:
                Suppression.objects.create(tenant=other, cui=cui, reason="stop")
        leads = [_make(tenant, state, holder) for state in states]
        python = readiness_many(
            Lead.objects.filter(tenant=tenant).select_related("journey"),
            policy=ContactPolicy.of(tenant),
        )
        sql = {row.pk: row for row in with_readiness(Lead.objects.filter(tenant=tenant))}
        for lead in leads:
            expected, found = python[lead.pk], sql[lead.pk]
            for channel in expected.channels:
                assert getattr(found, f"{channel.channel}_state") == channel.state
                parsed = reasons.parse(channel.reason)
                assert getattr(found, f"{channel.channel}_reason") == (parsed[0] if parsed else "")
            assert found.contactable == expected.contactable
            single = readiness(Lead.objects.get(pk=lead.pk), policy=ContactPolicy.of(tenant))
            assert single == expected
        counted = tally(Lead.objects.filter(tenant=tenant), policy=ContactPolicy.of(tenant))
        assert counted.total == len(leads)
        assert counted.not_contactable == sum(not r.contactable for r in python.values())
        transaction.set_rollback(True)


def _one(tenant, policy=ON, **fields):
    lead = make_lead(tenant, **fields)
    return readiness(lead, policy=policy)


@pytest.mark.django_db
def test_an_imported_lead_nobody_checked_is_unchecked_and_tried_by_default(tenant):
    found = _one(tenant, phone_reachable=None, email="ana@ferma.ro")
    assert (found.whatsapp.state, found.email.state) == (State.UNCHECKED, State.UNCHECKED)
    assert reasons.is_code(found.whatsapp.reason, codes.PHONE_UNCHECKED)
    assert reasons.is_code(found.email.reason, codes.EMAIL_UNCHECKED)
    assert found.contactable
    assert not readiness(Lead.objects.last(), policy=OFF).contactable


@pytest.mark.django_db
def test_a_policy_off_for_one_channel_leaves_the_other(tenant):
    lead = make_lead(tenant, phone_reachable=None, email="ana@ferma.ro", email_status="valid")
    only_email = readiness(lead, policy=ContactPolicy(whatsapp_unchecked=False))
    assert not only_email.whatsapp.usable and only_email.email.usable
    assert only_email.contactable


@pytest.mark.django_db
def test_blocked_reasons_name_the_address_problem(tenant):
    found = _one(tenant, phone="", email="x@y.ro", email_status="complained")
    assert reasons.is_code(found.whatsapp.reason, codes.NO_PHONE)
    assert reasons.is_code(found.email.reason, codes.EMAIL_COMPLAINED)
    assert not found.contactable
    found = _one(tenant, phone_reachable=False, email="", email_status="valid")
    assert reasons.is_code(found.whatsapp.reason, codes.NOT_ON_WHATSAPP)
    assert reasons.is_code(found.email.reason, codes.NO_EMAIL)


@pytest.mark.django_db
def test_a_catch_all_address_is_unchecked_not_ready(tenant):
    found = _one(tenant, phone="", email="office@ferma.ro", email_status="risky")
    assert found.email.state == State.UNCHECKED
    assert reasons.is_code(found.email.reason, codes.EMAIL_RISKY)


@pytest.mark.django_db
def test_a_paused_or_taken_over_lead_is_blocked_on_both_channels(tenant):
    lead = make_lead(tenant, email="a@b.ro", email_status="valid")
    Journey.objects.filter(lead=lead).update(stage=Stage.PAUSED)
    found = readiness(Lead.objects.get(pk=lead.pk), policy=ON)
    assert {c.state for c in found.channels} == {State.BLOCKED}
    with translation.override("en"):
        assert found.whatsapp.reason_text == f"the lead is {Stage.PAUSED.label}"
    Journey.objects.filter(lead=lead).update(
        stage=Stage.CONTACTED_WA, taken_over_by=make_user(tenant)
    )
    found = readiness(Lead.objects.get(pk=lead.pk), policy=ON)
    assert reasons.is_code(found.email.reason, codes.TAKEN_OVER)


@pytest.mark.django_db
def test_an_opt_out_outranks_the_other_reasons(tenant):
    lead = make_lead(tenant, phone_reachable=False)
    Journey.objects.filter(lead=lead).update(whatsapp_opted_out=True, stage=Stage.DEAD)
    found = readiness(Lead.objects.get(pk=lead.pk), policy=ON)
    assert reasons.is_code(found.whatsapp.reason, codes.OPTED_OUT)
    assert reasons.is_code(found.email.reason, codes.STAGE_CLOSED)


@pytest.mark.django_db
def test_the_words_read_in_both_languages(tenant):
    found = _one(tenant, phone_reachable=None)
    with translation.override("en"):
        english = found.whatsapp.text
    with translation.override("ro"):
        romanian = found.whatsapp.text
    assert english == "number not checked yet — the first message checks it"
    assert romanian == "număr neverificat încă — primul mesaj îl verifică"


@pytest.mark.django_db
def test_the_lead_page_detail_does_not_repeat_the_badge(tenant):
    """The badge says the state ("Not checked yet", "Cannot be contacted"): the words
    after it only add what the badge does not say."""
    unchecked = _one(tenant, phone_reachable=None)
    assert unchecked.whatsapp.detail == "the first message checks it"
    held = _one(tenant, policy=OFF, phone_reachable=None)
    assert held.whatsapp.detail == "not contacted (workspace setting)"
    risky = _one(tenant, email="a@ferma.ro", email_status="risky")
    assert risky.email.detail == (
        "address cannot be checked (the server accepts any) — the first message checks it"
    )
    bounced = _one(tenant, email="b@ferma.ro", email_status="bounced")
    assert bounced.email.detail == bounced.email.text == "bounced"


@pytest.mark.django_db
def test_tally_sorts_leads_into_ready_unchecked_and_blocked(tenant):
    make_lead(tenant)  # reachable on WhatsApp
    make_lead(tenant, phone_reachable=None)
    make_lead(tenant, phone_reachable=None)
    opted = make_lead(tenant, phone_reachable=None, email="z@z.ro", email_status="valid")
    Journey.objects.filter(lead=opted).update(whatsapp_opted_out=True, email_opted_out=True)
    found = tally(Lead.objects.filter(tenant=tenant), policy=ON)
    assert found.ready == 1
    assert found.unchecked == {codes.PHONE_UNCHECKED: 2}
    assert found.blocked == {codes.OPTED_OUT: 1}
