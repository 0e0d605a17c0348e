"""The do-not-contact list's page (/outreach/settings/do-not-contact/): the tenant's entries
only, searched and filtered, with what each blocks now; admins add, import and take entries
off (outreach.suppression_list's rules, its refusals shown on the form); everyone downloads
it as CSV; another tenant's entry is not found."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest
import time_machine
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from cerniq import reasons
from outreach import suppression_list as dnc
from outreach.models import Suppression, SuppressionRemoval
from outreach.readiness import for_tenant
from outreach.reasons import SUPPRESSED_OPT_OUT
from tests.factories import make_lead, make_message, make_user

pytestmark = pytest.mark.django_db

URL = "/outreach/settings/do-not-contact/"
Source = Suppression.Source


@pytest.fixture
def admin_user(tenant):
    return make_user(tenant, role="ADMIN", first_name="Ana", last_name="Pop")


@pytest.fixture
def admin_web(admin_user) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(admin_user)
    return client


@pytest.fixture
def operator_web(operator) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(operator)
    return client


def listed(html: str) -> list[str]:
    """The values of the list's rows, in order."""
    before = html.split('id="dnc-removals-title"')[0]
    return re.findall(r'<td class="dnc-value">([^<]*)</td>', before)


def email_state(lead) -> str:
    lead.refresh_from_db()
    return for_tenant(lead).email.state


def add(client: Client, **fields: str):
    return client.post(f"{URL}add/", fields)


# --- the list -----------------------------------------------------------------------------


def test_the_list_shows_this_tenants_entries_newest_first_with_who_and_why(
    admin_web, tenant, other_tenant, admin_user
):
    with time_machine.travel("2026-11-24T09:05:00+02:00", tick=False):
        dnc.add_entry(tenant, kind="phone", value="0722 000 003", reason="asked on a call")
    with time_machine.travel("2026-11-25T10:00:00+02:00", tick=False):
        dnc.add_entry(
            tenant, kind="domain", value="@concurent.ro", reason="a competitor", user=admin_user
        )
    dnc.add_entry(other_tenant, kind="email", value="secret@theirs.ro", reason="theirs")
    html = admin_web.get(URL).content.decode()
    assert listed(html) == ["concurent.ro", "+40722000003"]
    assert "secret@theirs.ro" not in html
    row = html[html.index('data-kind="domain"') :].split("</tr>")[0]
    assert "Email domain" in row and "a competitor" in row and "Added by a person" in row
    assert "25/11/2026, 10:00" in row and "Ana Pop" in row
    assert "2 entries" in html


def test_a_stored_reason_code_is_shown_in_the_readers_language(admin_web, tenant):
    stored = reasons.code(SUPPRESSED_OPT_OUT, lead="Ferma Verde SRL", channel="WHATSAPP")
    Suppression.objects.create(tenant=tenant, phone="+40722000003", reason=stored)
    html = admin_web.get(URL).content.decode()
    assert "suppression.opt_out" not in html
    assert "Ferma Verde SRL opted out on WhatsApp" in html


def test_kind_filter_and_search_keep_the_searched_value_out_of_the_url(admin_web, tenant):
    for kind, value in (
        ("phone", "+40722000003"),
        ("email", "ion@ferma.ro"),
        ("domain", "ferma.ro"),
        ("cui", "22732040"),
    ):
        dnc.add_entry(tenant, kind=kind, value=value, reason="listed for the test")
    assert listed(admin_web.get(f"{URL}?kind=domain").content.decode()) == ["ferma.ro"]

    searched = admin_web.post(URL, {"q": "ferma", "kind": ""})
    assert searched.status_code == 302 and "ferma" not in searched.url
    assert sorted(listed(admin_web.get(searched.url).content.decode())) == [
        "ferma.ro",
        "ion@ferma.ro",
    ]
    both = admin_web.post(URL, {"q": "0722 000 003", "kind": "phone"})
    query = urlsplit(both.url).query
    assert "kind=phone" in query and "0722" not in query
    html = admin_web.get(both.url).content.decode()
    assert listed(html) == ["+40722000003"] and 'value="0722 000 003"' in html


def test_an_empty_list_says_what_entries_do(admin_web):
    html = admin_web.get(URL).content.decode()
    assert "Nothing on the list yet." in html and "a domain stops email" in html
    assert "Nothing has been taken off the list yet." in html


def test_the_list_is_paged_fifty_at_a_time(admin_web, tenant):
    for n in range(51):
        dnc.add_entry(tenant, kind="email", value=f"a{n}@ferma.ro", reason="listed for the test")
    first = admin_web.get(URL).content.decode()
    assert len(listed(first)) == 50 and "Page 1 of 2" in first
    assert listed(admin_web.get(f"{URL}?page=2").content.decode()) == ["a0@ferma.ro"]


def test_blocked_leads_are_counted_and_found_on_the_leads_list(admin_web, tenant):
    make_lead(tenant, name="Ferma Verde SRL", email="ion@ferma.ro")
    make_lead(tenant, name="Ferma Verde Doi SRL", email="ana@ferma.ro")
    make_lead(tenant, name="Alta Firma SRL", email="dan@alta.ro")
    dnc.add_entry(tenant, kind="domain", value="ferma.ro", reason="the company asked")
    dnc.add_entry(tenant, kind="email", value="nobody@nowhere.ro", reason="a stranger")
    html = admin_web.get(URL).content.decode()
    row = html[html.index('data-kind="domain"') :].split("</tr>")[0]
    assert 'data-blocked="2"' in row and "Blocks 2 leads" in row
    # The link posts the search to the leads list (no address in any URL).
    assert 'action="/outreach/leads/"' in row and 'name="q" value="@ferma.ro"' in row
    other = html[html.index('data-kind="email"') :].split("</tr>")[0]
    assert (
        'data-blocked="0"' in other and "No lead now" in other and "data-blocked-leads" not in other
    )
    found = admin_web.post("/outreach/leads/", {"q": "@ferma.ro"}, follow=True)
    page = found.content.decode()
    assert "Ferma Verde SRL" in page and "Ferma Verde Doi SRL" in page
    assert "Alta Firma SRL" not in page


def test_the_blocked_counts_cost_the_same_queries_for_many_rows(
    admin_web, tenant, django_assert_num_queries
):
    def count_queries() -> int:
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        with CaptureQueriesContext(connection) as queries:
            assert admin_web.get(URL).status_code == 200
        return len(queries)

    dnc.add_entry(tenant, kind="domain", value="ferma.ro", reason="x")
    dnc.add_entry(tenant, kind="phone", value="+40722000003", reason="x")
    few = count_queries()
    for n in range(10):
        dnc.add_entry(tenant, kind="domain", value=f"ferma{n}.ro", reason="x")
        dnc.add_entry(tenant, kind="phone", value=f"+4072200010{n}", reason="x")
    assert count_queries() == few


# --- adding -------------------------------------------------------------------------------


def test_a_value_that_is_not_one_is_shown_on_its_field_and_nothing_is_stored(admin_web):
    response = add(admin_web, kind="domain", value="ferma", reason="a competitor")
    assert response.status_code == 400
    html = response.content.decode()
    error = re.search(r'data-error="value">([^<]*)<', html)
    assert error and "is not an email domain" in error[1]
    assert 'value="ferma"' in html and 'value="a competitor"' in html
    assert '<option value="domain" selected>' in html
    assert not Suppression.objects.exists()

    no_reason = add(admin_web, kind="domain", value="ferma.ro", reason=" ")
    assert no_reason.status_code == 400
    assert 'data-error="reason"' in no_reason.content.decode()
    assert not Suppression.objects.exists()


def test_adding_a_domain_stops_email_to_a_lead_at_it(admin_web, tenant, admin_user):
    lead = make_lead(tenant, email="ion@ferma.ro")
    assert email_state(lead) != "blocked"
    response = add(admin_web, kind="domain", value="@Ferma.ro", reason="the company asked")
    assert response.status_code == 302 and response.url == URL
    entry = Suppression.objects.get(tenant=tenant)
    assert (entry.domain, entry.source, entry.created_by) == ("ferma.ro", Source.MANUAL, admin_user)
    assert email_state(lead) == "blocked"
    page = admin_web.get(URL).content.decode()
    assert "ferma.ro is on the do-not-contact list: no email goes to any address" in page


def test_adding_what_is_already_listed_says_so_and_keeps_the_first_reason(admin_web, tenant):
    with time_machine.travel("2026-11-24T09:05:00+02:00", tick=False):
        dnc.add_entry(tenant, kind="email", value="ion@ferma.ro", reason="first reason")
    response = add(admin_web, kind="email", value="ION@ferma.ro", reason="second reason")
    assert response.status_code == 302
    page = admin_web.get(URL).content.decode()
    assert "ion@ferma.ro was already on the list (since 24/11/2026); nothing changed." in page
    assert Suppression.objects.get().reason == "first reason"


# --- taking entries off -------------------------------------------------------------------


def test_taking_a_manual_entry_off_is_audited_and_the_lead_is_contactable_again(
    admin_web, tenant, admin_user
):
    lead = make_lead(tenant, email="ion@ferma.ro")
    entry, _ = dnc.add_entry(tenant, kind="domain", value="ferma.ro", reason="by mistake")
    assert email_state(lead) == "blocked"
    response = admin_web.post(
        f"{URL}{entry.pk}/remove/",
        {"reason": "Added to the wrong workspace", "return_query": "kind=domain&evil=1"},
    )
    assert response.status_code == 302 and response.url == f"{URL}?kind=domain"
    assert not Suppression.objects.exists()
    removal = SuppressionRemoval.objects.get()
    assert (removal.kind, removal.value, removal.by_user) == ("domain", "ferma.ro", admin_user)
    assert removal.reason == "Added to the wrong workspace"
    assert email_state(lead) != "blocked"
    html = admin_web.get(URL).content.decode()
    recent = html.split('id="dnc-removals-title"')[1]
    assert "ferma.ro" in recent and "Added to the wrong workspace" in recent and "Ana Pop" in recent


def test_a_reason_too_short_is_shown_on_the_row_and_nothing_is_taken_off(admin_web, tenant):
    entry, _ = dnc.add_entry(tenant, kind="email", value="ion@ferma.ro", reason="asked")
    response = admin_web.post(f"{URL}{entry.pk}/remove/", {"reason": "oops"})
    assert response.status_code == 400
    row = response.content.decode().split(f'data-suppression="{entry.pk}"')[1].split("</tr>")[0]
    assert '<details class="dnc-remove" open>' in row
    assert 'data-error="reason"' in row and 'value="oops"' in row
    assert Suppression.objects.filter(pk=entry.pk).exists()
    assert not SuppressionRemoval.objects.exists()


def test_an_entry_the_recipient_caused_is_lifted_on_the_leads_page_only(admin_web, tenant):
    lead = make_lead(tenant, email="ion@ferma.ro")
    entry = Suppression.objects.create(
        tenant=tenant,
        email="ion@ferma.ro",
        reason="unsubscribed",
        source=Source.UNSUBSCRIBE,
        source_message=make_message(lead, direction="IN", status="RECEIVED", idempotency_key=None),
    )
    html = admin_web.get(URL).content.decode()
    row = html.split(f'data-suppression="{entry.pk}"')[1].split("</tr>")[0]
    assert "data-remove-suppression" not in row and "Not removable here:" in row
    assert f'<a href="/outreach/leads/{lead.pk}/">lift it on the lead\'s page</a>' in row
    response = admin_web.post(f"{URL}{entry.pk}/remove/", {"reason": "He called and asked again"})
    assert response.status_code == 302
    assert Suppression.objects.filter(pk=entry.pk).exists()
    assert not SuppressionRemoval.objects.exists()
    assert "This entry records what the recipient did (Unsubscribe)" in (
        admin_web.get(URL).content.decode()
    )
    assert email_state(lead) == "blocked"


# --- CSV ----------------------------------------------------------------------------------


def upload(client: Client, text: str | bytes, name: str = "lista.csv"):
    data = text.encode() if isinstance(text, str) else text
    return client.post(
        f"{URL}import/", {"file": SimpleUploadedFile(name, data, content_type="text/csv")}
    )


def test_both_csv_layouts_import(admin_web, tenant, admin_user):
    dnc.add_entry(tenant, kind="email", value="ion@ferma.ro", reason="already here")
    one = upload(admin_web, "kind,value,reason\nphone,0722 000 003,a call\nemail,ion@ferma.ro,x\n")
    assert one.status_code == 302
    assert "lista.csv imported: 1 entry added, 1 was already on the list." in (
        admin_web.get(URL).content.decode()
    )
    upload(admin_web, "email;domain;cui\nana@alta.ro;alta.ro;RO 22732040\n")
    stored = {
        (e.kind, e.value, e.source) for e in Suppression.objects.exclude(email="ion@ferma.ro")
    }
    assert stored == {
        ("phone", "+40722000003", Source.IMPORT),
        ("email", "ana@alta.ro", Source.IMPORT),
        ("domain", "alta.ro", Source.IMPORT),
        ("cui", "22732040", Source.IMPORT),
    }
    assert set(
        Suppression.objects.filter(source=Source.IMPORT).values_list("created_by", flat=True)
    ) == {admin_user.pk}


def test_a_file_with_a_wrong_line_names_it_and_adds_nothing(admin_web):
    response = upload(admin_web, "kind,value,reason\nemail,ana@alta.ro,ok\nphone,12,bad number\n")
    assert response.status_code == 400
    html = response.content.decode()
    assert 'data-line="3"' in html and "Line 3: “12” is not a phone number." in html
    assert '<details class="block dnc-import" open' in html
    assert not Suppression.objects.exists()

    headerless = upload(admin_web, "ana@alta.ro\n")
    assert "Line 1: The first line must name the columns" in headerless.content.decode()
    assert not Suppression.objects.exists()


def test_a_file_over_the_limit_is_refused_with_a_clear_error(admin_web, monkeypatch):
    monkeypatch.setattr(dnc, "MAX_CSV_BYTES", 1024 * 1024)
    big = "email\n" + "".join(f"a{n}@ferma.ro\n" for n in range(100_000))
    response = upload(admin_web, big)
    assert response.status_code == 400
    assert "The file is over 1 MB." in response.content.decode()
    assert not Suppression.objects.exists()


def test_the_export_downloads_every_entry_named_by_the_tenants_day(operator_web, tenant):
    dnc.add_entry(tenant, kind="domain", value="ferma.ro", reason="=HYPERLINK()")
    dnc.add_entry(tenant, kind="phone", value="0722 000 003", reason="a call")
    # 23:30 UTC on 30 November is already 1 December in Bucharest.
    with time_machine.travel("2026-11-30T23:30:00+00:00", tick=False):
        response = operator_web.get(f"{URL}export/")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == (
        'attachment; filename="do-not-contact-agro-demo-2026-12-01.csv"'
    )
    lines = response.content.decode().splitlines()
    assert lines[0] == "kind,value,reason,source,created_at,created_by"
    assert [line.split(",")[:3] for line in lines[1:]] == [
        ["phone", "+40722000003", "a call"],
        ["domain", "ferma.ro", "'=HYPERLINK()"],
    ]


# --- who may -------------------------------------------------------------------------------


def test_another_tenants_entry_is_not_found(admin_web, other_tenant):
    theirs, _ = dnc.add_entry(other_tenant, kind="email", value="x@theirs.ro", reason="theirs")
    response = admin_web.post(f"{URL}{theirs.pk}/remove/", {"reason": "Not ours to keep at all"})
    assert response.status_code == 404
    assert Suppression.objects.filter(pk=theirs.pk).exists()


def test_anonymous_visitors_are_sent_to_log_in(tenant):
    entry, _ = dnc.add_entry(tenant, kind="email", value="x@ferma.ro", reason="listed")
    anonymous = Client()
    for response in (
        anonymous.get(URL),
        anonymous.get(f"{URL}export/"),
        anonymous.post(f"{URL}add/", {"kind": "domain", "value": "a.ro", "reason": "x"}),
        anonymous.post(f"{URL}{entry.pk}/remove/", {"reason": "Taken off by a stranger"}),
    ):
        assert response.status_code == 302 and response.url.startswith("/login/")
    assert Suppression.objects.count() == 1


def test_members_who_are_not_admins_read_and_download_but_change_nothing(operator_web, tenant):
    entry, _ = dnc.add_entry(tenant, kind="email", value="x@ferma.ro", reason="listed")
    leads = operator_web.get("/outreach/leads/").content.decode()
    assert f'href="{URL}" data-do-not-contact-link' in leads  # found without Settings
    page = operator_web.get(URL)
    html = page.content.decode()
    assert page.status_code == 200 and "x@ferma.ro" in html
    assert "data-read-only" in html
    assert "data-add-suppression" not in html and "data-remove-suppression" not in html
    assert "data-import-suppressions" not in html
    assert operator_web.get(f"{URL}export/").status_code == 200
    assert add(operator_web, kind="domain", value="a.ro", reason="x").status_code == 403
    removed = operator_web.post(f"{URL}{entry.pk}/remove/", {"reason": "Taken off by an operator"})
    assert removed.status_code == 403
    assert upload(operator_web, "domain\nb.ro\n").status_code == 403
    assert list(Suppression.objects.values_list("email", flat=True)) == ["x@ferma.ro"]
    assert not SuppressionRemoval.objects.exists()


def test_the_page_reads_in_romanian(tenant, admin_user):
    client = Client(HTTP_ACCEPT_LANGUAGE="ro")
    client.force_login(admin_user)
    dnc.add_entry(tenant, kind="cui", value="RO22732040", reason="firma a cerut")
    html = client.get(URL).content.decode()
    assert "Lista „nu contactați”" in html and "Companie (CUI)" in html
    assert "Adăugat de o persoană" in html
