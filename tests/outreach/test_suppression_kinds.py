"""Domain and company (CUI) entries of the do-not-contact list, honoured where phones and
addresses are: readiness and so dispatch, the import's readiness count, manual sends and the
send path; a person's entry removed makes its leads reachable again; what each entry blocks."""

from __future__ import annotations

import io

import pytest
import time_machine

from cerniq import reasons
from outreach import readiness
from outreach import reasons as codes
from outreach.dispatch import dispatch_due
from outreach.importing import import_csv
from outreach.manual import SendRefused, send_manual
from outreach.models import Channel, Journey, Lead, Message, Suppression
from outreach.readiness import State, tally_ids
from outreach.sending import send_message
from outreach.suppression import suppress
from outreach.suppression_list import (
    CsvInvalid,
    EntryInvalid,
    RemovalRefused,
    add_entry,
    blocked_counts,
    remove_entry,
)
from outreach.suppression_list import (
    import_csv as import_entries,
)
from tests.factories import make_lead, make_outreach_world, make_user
from tests.whatsapp.conftest import MONDAY_10

pytestmark = pytest.mark.django_db

WHY = "The company asked on the phone on 2 Dec."


def _code(channel_readiness) -> str:
    return reasons.parse(channel_readiness.reason)[0]


def test_a_domain_entry_closes_email_for_every_address_at_it_and_nothing_else(tenant):
    ana = make_lead(tenant, email="Ana@Concurent.ro", email_status="valid")
    near = make_lead(tenant, email="ion@sub.concurent.ro", email_status="valid")
    add_entry(tenant, kind="domain", value="concurent.ro", reason="a competitor")
    ready = readiness.for_tenant(ana)
    assert ready.email.state == State.BLOCKED
    assert _code(ready.email) == codes.DOMAIN_SUPPRESSED
    assert ready.whatsapp.state == State.READY  # the phone is not the domain's
    # A subdomain is another domain: listed on its own when meant.
    assert readiness.for_tenant(near).email.state == State.READY


def test_a_company_entry_closes_both_channels_of_its_lead(tenant):
    lead = make_lead(tenant, cui="22732040", email="a@ferma.ro", email_status="valid")
    add_entry(tenant, kind="cui", value="RO22732040", reason=WHY)
    ready = readiness.for_tenant(lead)
    assert [c.state for c in ready.channels] == [State.BLOCKED, State.BLOCKED]
    assert {_code(c) for c in ready.channels} == {codes.COMPANY_SUPPRESSED}
    assert not readiness.contactable(Lead.objects.filter(pk=lead.pk)).exists()


@pytest.mark.parametrize(
    ("kind", "value", "channel"),
    [
        ("domain", "ferma0.ro", Channel.EMAIL_COLD),
        ("cui", "22732040", Channel.WHATSAPP),
        ("cui", "22732040", Channel.EMAIL_COLD),
    ],
)
def test_dispatch_sends_nothing_to_a_listed_domain_or_company_and_says_why(
    tenant, kind, value, channel, settings
):
    settings.PROVIDERS = {
        **settings.PROVIDERS,
        "email.instantly": {"BACKEND": "tests.fakes.FakeEmail"},
    }
    with time_machine.travel(MONDAY_10, tick=False):
        world = make_outreach_world(tenant, leads=2, phones=1, channel=channel)
        Lead.objects.update(email_status="valid")
        listed, free = world["leads"]
        Lead.objects.filter(pk=listed.pk).update(cui="22732040")
        add_entry(tenant, kind=kind, value=value, reason="asked")
        dispatch_due(tenant)
    assert list(Message.objects.values_list("lead_id", flat=True)) == [free.pk]
    listed.refresh_from_db()
    stalled = listed.enrollments.get()
    assert stalled.stalled_since is not None  # and the lead's page says why:
    expected = codes.DOMAIN_SUPPRESSED if kind == "domain" else codes.COMPANY_SUPPRESSED
    channel_ready = readiness.for_tenant(listed).email
    if channel == Channel.WHATSAPP:
        channel_ready = readiness.for_tenant(listed).whatsapp
    assert _code(channel_ready) == expected
    if kind == "cui":  # both channels closed: the stall names the company's entry
        assert codes.COMPANY_SUPPRESSED in stalled.stalled_reason


def test_an_import_counts_the_new_leads_a_listed_company_or_domain_blocks(tenant):
    add_entry(tenant, kind="cui", value="22732040", reason=WHY)
    add_entry(tenant, kind="domain", value="concurent.ro", reason="a competitor")
    rows = (
        "name,cui,phone,email,phone_reachable,email_status\n"
        "Ferma Listata SRL,RO22732040,0722000001,,true,\n"
        "Concurent SRL,,,office@concurent.ro,,valid\n"
        "Ferma Libera SRL,,0722000003,,true,\n"
    )
    report = import_csv(tenant, io.StringIO(rows))
    assert report.created == 3
    counted = tally_ids(tenant, report.created_ids)
    assert counted.ready == 1
    # Blocked on both channels, a lead is counted under its WhatsApp reason (no phone, for
    # the competitor); its email's own reason is the domain's entry.
    assert counted.blocked == {codes.COMPANY_SUPPRESSED: 1, codes.NO_PHONE: 1}
    competitor = Lead.objects.get(email="office@concurent.ro")
    assert _code(readiness.for_tenant(competitor).email) == codes.DOMAIN_SUPPRESSED
    # A person's entry is read live: it does not mark the journeys as opted out.
    assert not Journey.objects.filter(whatsapp_opted_out=True).exists()
    assert not Journey.objects.filter(email_opted_out=True).exists()


def test_an_import_still_opts_out_a_number_that_asked_us_to_stop_but_not_one_a_person_listed(
    tenant,
):
    suppress(tenant, phone="+40722000001", reason="stop")
    add_entry(tenant, kind="phone", value="+40722000002", reason="listed by hand")
    import_csv(tenant, io.StringIO("name,phone\nA SRL,0722000001\nB SRL,0722000002\n"))
    flags = dict(Journey.objects.values_list("lead__phone", "whatsapp_opted_out"))
    assert flags == {"+40722000001": True, "+40722000002": False}
    listed = Lead.objects.get(phone="+40722000002")
    assert _code(readiness.for_tenant(listed).whatsapp) == codes.SUPPRESSED  # still blocked


def test_manual_sends_say_which_entry_refuses_them(tenant):
    make_outreach_world(tenant, leads=0, phones=1)
    lead = make_lead(tenant, cui="22732040", email="ana@concurent.ro", email_status="valid")
    add_entry(tenant, kind="domain", value="concurent.ro", reason="a competitor")
    with pytest.raises(SendRefused, match="domain is on the do-not-contact list"):
        send_manual(lead, "Bună ziua", channel=Channel.EMAIL_WARM, subject="Ofertă")
    add_entry(tenant, kind="cui", value="22732040", reason=WHY)
    with pytest.raises(SendRefused, match=r"company \(CUI\) is on the do-not-contact list"):
        send_manual(lead, "Bună ziua")


def test_the_send_path_drops_a_message_whose_company_was_listed_after_queueing(tenant):
    with time_machine.travel(MONDAY_10, tick=False):
        world = make_outreach_world(tenant, leads=1, phones=1)
        Lead.objects.update(cui="22732040")
        dispatch_due(tenant)
        message = Message.objects.get()
        add_entry(tenant, kind="cui", value="22732040", reason=WHY)
        outcome = send_message(message.pk)
    assert outcome.kind == "cancelled"
    assert reasons.render(outcome.detail) == (
        "The lead's company (CUI) is on the do-not-contact list"
    )
    assert message.lead_id == world["leads"][0].pk


def test_removing_a_persons_entry_is_audited_and_reopens_the_channel(tenant):
    admin = make_user(tenant, role="ADMIN")
    lead = make_lead(tenant, email="ana@concurent.ro", email_status="valid")
    entry, created = add_entry(tenant, kind="domain", value="concurent.ro", reason="x", user=admin)
    assert created and entry.created_by == admin and entry.source == "manual"
    with pytest.raises(RemovalRefused) as short:
        remove_entry(entry, user=admin, reason="ok")
    assert short.value.field == "reason"
    removal = remove_entry(entry, user=admin, reason="They became a customer in December.")
    assert (removal.kind, removal.value, removal.entry_reason) == ("domain", "concurent.ro", "x")
    assert not Suppression.objects.exists()
    assert readiness.for_tenant(lead).email.state == State.READY


def test_an_entry_the_recipient_caused_is_not_removed_here(tenant):
    admin = make_user(tenant, role="ADMIN")
    suppress(tenant, email="ana@ferma.ro", reason="unsubscribed", source="unsubscribe")
    with pytest.raises(RemovalRefused) as refused:
        remove_entry(Suppression.objects.get(), user=admin, reason="A long enough reason here.")
    assert refused.value.field == "" and "lead's page" in str(refused.value)
    assert Suppression.objects.count() == 1


@pytest.mark.parametrize(
    ("kind", "value", "field"),
    [
        ("domain", "nu are punct", "value"),
        ("domain", "ferma", "value"),
        ("cui", "12345678", "value"),  # the checksum does not match
        ("phone", "+1 202", "value"),
        ("address", "a@b.ro", "kind"),
    ],
)
def test_a_value_that_is_not_of_its_kind_is_refused_naming_the_field(tenant, kind, value, field):
    with pytest.raises(EntryInvalid) as invalid:
        add_entry(tenant, kind=kind, value=value, reason="x")
    assert invalid.value.field == field
    assert not Suppression.objects.exists()


def test_blocked_counts_name_the_leads_of_each_entry_in_a_query_per_kind(
    tenant, other_tenant, django_assert_max_num_queries
):
    make_lead(tenant, email="A@Agro.ro")
    make_lead(tenant, email="b@agro.ro", phone="+40722000009")
    make_lead(tenant, cui="22732040")
    make_lead(other_tenant, email="c@agro.ro")
    entries = [
        add_entry(tenant, kind="domain", value="agro.ro", reason="x")[0],
        add_entry(tenant, kind="email", value="a@agro.ro", reason="x")[0],
        add_entry(tenant, kind="phone", value="+40722000009", reason="x")[0],
        add_entry(tenant, kind="cui", value="22732040", reason="x")[0],
        add_entry(tenant, kind="domain", value="nimeni.ro", reason="x")[0],
    ]
    with django_assert_max_num_queries(4):
        counts = blocked_counts(tenant, entries)
    assert [counts[e.pk] for e in entries] == [2, 1, 1, 1, 0]


def test_a_csv_with_one_bad_line_lists_it_and_adds_nothing(tenant):
    text = "kind,value,reason\ndomain,agro.ro,ok\ncui,123,bad\nphone,0722 000 001,stop\n"
    with pytest.raises(CsvInvalid) as invalid:
        import_entries(tenant, text)
    assert [line for line, _ in invalid.value.errors] == [3]
    assert not Suppression.objects.exists()
    assert import_entries(tenant, text.replace("cui,123,bad\n", "")).added == 2
