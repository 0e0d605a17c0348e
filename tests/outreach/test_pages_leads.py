"""The leads list and the lead page: scoping, filters, bulk actions, import, and actions."""

from __future__ import annotations

import html as html_lib
import re
from datetime import timedelta

import pytest
from django.db import connection, models
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from outreach import sequences, stages
from outreach.models import Channel, Enrollment, Journey, Lead, Message, Stage, StageTransition
from tests.factories import make_lead, make_message, make_phone, make_sequence, make_user

pytestmark = pytest.mark.django_db

LIST = "/outreach/leads/"


def _journey(lead: Lead, **fields) -> Journey:
    Journey.objects.filter(lead=lead).update(**fields)
    return Journey.objects.get(lead=lead)


def _rows(client, query: str = "") -> set[int]:
    html = client.get(LIST + query, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    return {int(part.split('"')[0]) for part in html.split('data-lead="')[1:]}


@pytest.fixture
def logged_in(client, operator):
    client.force_login(operator)
    return client


# --- access --------------------------------------------------------------------------


@pytest.mark.parametrize("url", [LIST, "/outreach/leads/1/"])
def test_anonymous_goes_to_login(client, tenant, url):
    response = client.get(url)
    assert response.status_code == 302 and response["Location"].startswith("/login/")


def test_anonymous_actions_go_to_login(client, tenant):
    lead = make_lead(tenant)
    for url in (f"/outreach/leads/{lead.pk}/pause/", "/outreach/leads/bulk/"):
        response = client.post(url, {"ids": [lead.pk], "action": "pause"})
        assert response.status_code == 302 and response["Location"].startswith("/login/")
    assert Journey.objects.get(lead=lead).stage == Stage.COLD


def test_list_shows_own_leads_only(logged_in, tenant, other_tenant):
    mine = make_lead(tenant, name="Ferma Mea SRL", cui="1234567")
    theirs = make_lead(other_tenant, name="Ferma Lor SRL")
    response = logged_in.get(LIST, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200
    html = response.content.decode()
    assert "Ferma Mea SRL" in html and "1234567" in html
    assert "Ferma Lor SRL" not in html
    assert _rows(logged_in) == {mine.pk}
    assert theirs.pk not in _rows(logged_in, "?q=Ferma")


# --- filters, search, sort, pages ----------------------------------------------------


def test_each_filter_narrows(logged_in, tenant):
    phone = make_phone(tenant)
    sequence = make_sequence(tenant)
    plain = make_lead(tenant, county="Cluj")
    warm = make_lead(tenant, county="Iași")
    _journey(warm, stage=Stage.WARM_REPLY, last_channel=Channel.EMAIL_COLD)
    on_phone = make_lead(tenant, county="Iași")
    _journey(on_phone, assigned_phone=phone, current_sequence=sequence)
    review = make_lead(tenant, county="Iași")
    _journey(review, requires_human_review=True, review_priority="HIGH")
    opted = make_lead(tenant, county="Iași")
    _journey(opted, whatsapp_opted_out=True)
    everyone = {plain.pk, warm.pk, on_phone.pk, review.pk, opted.pk}
    assert _rows(logged_in) == everyone
    assert _rows(logged_in, "?stage=WARM_REPLY") == {warm.pk}
    assert _rows(logged_in, "?county=cluj") == {plain.pk}
    assert _rows(logged_in, "?channel=EMAIL_COLD") == {warm.pk}
    assert _rows(logged_in, f"?phone={phone.pk}") == {on_phone.pk}
    assert _rows(logged_in, "?phone=none") == everyone - {on_phone.pk}
    assert _rows(logged_in, f"?sequence={sequence.pk}") == {on_phone.pk}
    assert _rows(logged_in, "?review=1") == {review.pk}
    assert _rows(logged_in, "?opted_out=whatsapp") == {opted.pk}
    assert _rows(logged_in, "?opted_out=any") == {opted.pk}
    assert _rows(logged_in, "?opted_out=email") == set()
    assert _rows(logged_in, "?county=Iași&review=1") == {review.pk}
    # Unknown values are ignored, not errors.
    assert _rows(logged_in, "?stage=NOPE&phone=x&sequence=y") == everyone


def test_filter_and_badge_by_email_status(logged_in, tenant):
    valid = make_lead(tenant, email="a@ferma.ro", email_status="valid")
    bounced = make_lead(tenant, email="b@ferma.ro", email_status="bounced")
    gone = make_lead(tenant, email="c@ferma.ro", email_status="unsubscribed")
    assert _rows(logged_in, "?email_status=bounced") == {bounced.pk}
    assert _rows(logged_in, "?email_status=unsubscribed") == {gone.pk}
    assert _rows(logged_in, "?email_status=nope") == {valid.pk, bounced.pk, gone.pk}
    html = logged_in.get("/outreach/leads/").content.decode()
    assert html.count('class="badge st-bad">Bounced<') == 1
    assert html.count('class="badge st-bad">Unsubscribed<') == 1


def test_search_by_name_cui_phone_email(logged_in, tenant):
    a = make_lead(tenant, name="Cereale Nord SRL", cui="12345678", email="office@cereale.ro")
    b = make_lead(tenant, name="Legume Sud SRL", cui="123456789", phone="+40722999888")
    c = make_lead(tenant, name="Pomi SRL", email="pomi@livada.ro")
    assert _rows(logged_in, "?q=cereale") == {a.pk}
    assert _rows(logged_in, "?q=12345678") == {a.pk}  # a CUI matches exactly, not b's
    assert _rows(logged_in, "?q=722999") == {b.pk}
    assert _rows(logged_in, "?q=LIVADA") == {c.pk}
    assert _rows(logged_in, "?q=nothing-like-this") == set()


# --- a searched phone stays out of URLs ----------------------------------------------

SEARCHED = ("40722999", "722999")  # any part of the searched phone


def _ids(html: str) -> list[int]:
    return [int(part.split('"')[0]) for part in html.split('data-lead="')[1:]]


def _urls(html: str) -> list[str]:
    """Every URL the page links or submits to, and the bulk form's return query."""
    found = re.findall(r'(?:href|action)="([^"]*)"', html)
    found += re.findall(r'name="return_query" value="([^"]*)"', html)
    return [html_lib.unescape(url) for url in found]


def _link(html: str, pattern: str) -> str:
    """The page's own link (?...) matching `pattern`, as a URL to GET."""
    return LIST + next(
        url for url in _urls(html) if url.startswith("?") and re.search(pattern, url)
    )


def test_the_search_form_posts_and_the_phone_stays_out_of_the_url(logged_in, tenant):
    match = make_lead(tenant, name="Legume Sud SRL", phone="+40722999888")
    make_lead(tenant, name="Alt SRL", phone="+40733111222")
    page = logged_in.get(LIST).content.decode()
    assert re.search(r'<form class="block filters" method="post"', page)
    response = logged_in.post(
        LIST, {"q": " +40722999888 ", "stage": "COLD", "county": "", "sort": "-name"}
    )
    assert response.status_code == 302
    location = response["Location"]
    assert location.startswith(LIST + "?") and "s=" in location
    assert "stage=COLD" in location and "sort=-name" in location and "county" not in location
    assert not any(part in location for part in SEARCHED)
    html = logged_in.get(location, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert _ids(html) == [match.pk]
    assert 'value="+40722999888"' in html  # the search box still shows the search
    urls = _urls(html)
    assert not [url for url in urls if any(part in url for part in SEARCHED)]
    assert [url for url in urls if "sort=" in url and "s=" in url]  # sorting keeps it
    # The same search again gives the same address.
    assert (
        logged_in.post(LIST, {"q": "+40722999888", "stage": "COLD", "sort": "-name"})["Location"]
        == location
    )


def test_the_search_form_needs_the_csrf_token(operator, tenant):
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(operator)
    assert strict.post(LIST, {"q": "+40722999888"}).status_code == 403


def test_pages_sorting_and_bulk_actions_keep_the_search(logged_in, tenant, monkeypatch):
    monkeypatch.setattr("console.views.leads.PER_PAGE", 1)
    alfa = make_lead(tenant, name="Alfa SRL", phone="+40722999001")
    beta = make_lead(tenant, name="Beta SRL", phone="+40722999002")
    make_lead(tenant, name="Gama SRL", phone="+40744000000")
    first = logged_in.get(logged_in.post(LIST, {"q": "722999"})["Location"]).content.decode()
    assert _ids(first) == [alfa.pk] and "Page 1 of 2" in first
    second = logged_in.get(_link(first, r"page=2")).content.decode()
    assert _ids(second) == [beta.pk]
    by_name_desc = logged_in.get(_link(first, r"sort=-name")).content.decode()
    assert _ids(by_name_desc) == [beta.pk]
    for html in (second, by_name_desc):
        assert not [url for url in _urls(html) if any(part in url for part in SEARCHED)]
    return_query = re.search(r'name="return_query" value="([^"]*)"', second)[1]
    response = logged_in.post(
        "/outreach/leads/bulk/",
        {"ids": [beta.pk], "action": "pause", "return_query": html_lib.unescape(return_query)},
    )
    assert Journey.objects.get(lead=beta).stage == Stage.PAUSED
    back = response["Location"]
    assert "s=" in back and "page=2" in back and not any(part in back for part in SEARCHED)
    assert _ids(logged_in.get(back).content.decode()) == [beta.pk]


def test_a_q_link_still_searches_and_the_page_links_do_not_repeat_it(
    logged_in, tenant, monkeypatch
):
    monkeypatch.setattr("console.views.leads.PER_PAGE", 1)
    alfa = make_lead(tenant, name="Alfa SRL", phone="+40722999001")
    beta = make_lead(tenant, name="Beta SRL", phone="+40722999002")
    html = logged_in.get(LIST + "?q=722999&sort=name").content.decode()
    assert _ids(html) == [alfa.pk]
    assert not [url for url in _urls(html) if any(part in url for part in SEARCHED)]
    assert _ids(logged_in.get(_link(html, r"page=2")).content.decode()) == [beta.pk]


def test_a_search_address_from_another_session_has_expired(logged_in, operator, tenant):
    match = make_lead(tenant, phone="+40722999888")
    other = make_lead(tenant, phone="+40733111222")
    location = logged_in.post(LIST, {"q": "722999", "stage": "COLD"})["Location"]
    elsewhere = Client()
    elsewhere.force_login(operator)  # the same operator, another browser
    html = elsewhere.get(location, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "This search has expired; search again." in html
    assert set(_ids(html)) == {match.pk, other.pk}  # the other filters still apply
    assert 'name="q" value=""' in html


def test_sorting(logged_in, tenant):
    now = timezone.now()
    b = make_lead(tenant, name="Beta SRL")
    a = make_lead(tenant, name="Alfa SRL")
    c = make_lead(tenant, name="Gama SRL")
    _journey(a, last_contact_at=now - timedelta(days=2))
    _journey(b, last_contact_at=now)
    _journey(c, last_contact_at=now - timedelta(days=1))

    def order(query):
        html = logged_in.get(LIST + query).content.decode()
        return [int(part.split('"')[0]) for part in html.split('data-lead="')[1:]]

    assert order("?sort=name") == [a.pk, b.pk, c.pk]
    assert order("?sort=-name") == [c.pk, b.pk, a.pk]
    assert order("?sort=-last_contact") == [b.pk, c.pk, a.pk]
    assert order("?sort=last_contact") == [a.pk, c.pk, b.pk]
    assert order("?sort=drop table") == [a.pk, b.pk, c.pk]  # not whitelisted: default

    never = make_lead(tenant, name="Delta SRL")  # never contacted: last in both directions
    assert order("?sort=-last_contact") == [b.pk, c.pk, a.pk, never.pk]
    assert order("?sort=last_contact") == [a.pk, c.pk, b.pk, never.pk]


def test_pagination(logged_in, tenant):
    for n in range(55):
        make_lead(tenant, name=f"Lead {n:03d} SRL")
    first, second = _rows(logged_in, "?page=1"), _rows(logged_in, "?page=2")
    assert len(first) == 50 and len(second) == 5 and not first & second
    html = logged_in.get(LIST + "?county=Iași", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Page 1 of 2" in html and "page=2" in html and "county=" in html.split("page=2")[0]


def test_query_count_does_not_grow(logged_in, tenant):
    phone = make_phone(tenant)
    sequence = make_sequence(tenant)

    def add(n):
        for _ in range(n):
            lead = make_lead(tenant)
            _journey(lead, assigned_phone=phone, current_sequence=sequence)

    add(5)
    with CaptureQueriesContext(connection) as small:
        assert logged_in.get(LIST).status_code == 200
    add(35)
    with CaptureQueriesContext(connection) as large:
        html = logged_in.get(LIST).content.decode()
    assert html.count('data-lead="') == 40
    assert len(large) == len(small)


# --- bulk actions --------------------------------------------------------------------


def test_bulk_pause_and_resume_ignore_other_tenants(logged_in, tenant, other_tenant):
    a, b = make_lead(tenant), make_lead(tenant)
    dead = make_lead(tenant)
    _journey(dead, stage=Stage.DEAD)
    theirs = make_lead(other_tenant)
    ids = [a.pk, b.pk, dead.pk, theirs.pk]
    response = logged_in.post("/outreach/leads/bulk/", {"ids": ids, "action": "pause"})
    assert response.status_code == 302
    stage = lambda lead: Journey.objects.get(lead=lead).stage  # noqa: E731
    assert (stage(a), stage(b), stage(dead), stage(theirs)) == (
        Stage.PAUSED,
        Stage.PAUSED,
        Stage.DEAD,
        Stage.COLD,
    )
    page = logged_in.get(LIST, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "2 lead(s) paused." in page and "Skipped" in page
    logged_in.post("/outreach/leads/bulk/", {"ids": ids, "action": "resume"})
    assert (stage(a), stage(b), stage(dead), stage(theirs)) == (
        Stage.COLD,
        Stage.COLD,
        Stage.DEAD,
        Stage.COLD,
    )
    assert not StageTransition.objects.filter(journey__lead=theirs).exists()


def test_bulk_enroll(logged_in, tenant, other_tenant):
    sequence = make_sequence(tenant)
    a, b = make_lead(tenant), make_lead(tenant)
    warm = make_lead(tenant)
    _journey(warm, stage=Stage.WARM_REPLY)
    theirs = make_lead(other_tenant)
    response = logged_in.post(
        "/outreach/leads/bulk/",
        {"ids": [a.pk, b.pk, warm.pk, theirs.pk], "action": "enroll", "sequence": sequence.pk},
        follow=True,
        HTTP_ACCEPT_LANGUAGE="en",
    )
    enrolled = set(Enrollment.objects.values_list("lead_id", flat=True))
    assert enrolled == {a.pk, b.pk}
    html = response.content.decode()
    assert "2 lead(s) enrolled" in html and "the lead is Warm reply: 1" in html


def test_bulk_enroll_in_another_tenants_sequence_is_refused(logged_in, tenant, other_tenant):
    theirs = make_sequence(other_tenant)
    lead = make_lead(tenant)
    logged_in.post(
        "/outreach/leads/bulk/", {"ids": [lead.pk], "action": "enroll", "sequence": theirs.pk}
    )
    assert not Enrollment.objects.exists()


# --- the lead page -------------------------------------------------------------------


def test_detail_shows_timeline_in_order_and_history(logged_in, operator, tenant):
    phone = make_phone(tenant, number="+40740000123")
    lead = make_lead(tenant, name="Livada SRL", contact_name="Ion Pop", email="ion@livada.ro")
    now = timezone.now()
    first = make_message(lead, body="Prima ofertă", phone=phone, status=Message.Status.SENT)
    reply = make_message(
        lead,
        body="Da, sunt interesat",
        direction=Message.Direction.INBOUND,
        status=Message.Status.RECEIVED,
        idempotency_key=None,
        analysis={"decision": "review HIGH", "triage": {"intent": "interested", "sentiment": 2}},
    )
    last = make_message(lead, body="Revenim cu detalii", channel=Channel.EMAIL_WARM)
    for offset, message in enumerate([first, reply, last]):
        Message.objects.filter(pk=message.pk).update(created_at=now + timedelta(minutes=offset))
    journey = Journey.objects.get(lead=lead)
    stages.transition(journey, Stage.WARM_REPLY, reason="they replied", by_system="inbound")
    response = logged_in.get(f"/outreach/leads/{lead.pk}/", HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200
    html = response.content.decode()
    assert "Livada SRL" in html and "Ion Pop" in html and "ion@livada.ro" in html
    positions = [html.index(f'data-message="{m.pk}"') for m in (first, reply, last)]
    assert positions == sorted(positions)
    assert "+40740000123" in html
    assert "review HIGH" in html and "Interested" in html  # an old row's text, as it is
    assert 'data-transition="COLD-WARM_REPLY"' in html and "they replied" in html


def test_change_stage_offers_only_legal_moves(logged_in, tenant):
    lead = make_lead(tenant)
    journey = _journey(lead, stage=Stage.WARM_REPLY)
    html = logged_in.get(f"/outreach/leads/{lead.pk}/").content.decode()
    form = html[html.index("stage-form") :]
    form = form[: form.index("</form>")]
    offered = {part.split('"')[0] for part in form.split('option value="')[1:]}
    assert offered == set(stages.allowed_targets(journey))
    assert Stage.COLD not in offered

    response = logged_in.post(
        f"/outreach/leads/{lead.pk}/stage/",
        {"stage": Stage.COLD},
        follow=True,
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert 'class="msg msg-error"' in response.content.decode()
    assert "Cannot move a lead" in response.content.decode()
    assert Journey.objects.get(lead=lead).stage == Stage.WARM_REPLY
    assert not StageTransition.objects.exists()

    logged_in.post(f"/outreach/leads/{lead.pk}/stage/", {"stage": Stage.NEGOTIATION})
    assert Journey.objects.get(lead=lead).stage == Stage.NEGOTIATION
    assert StageTransition.objects.get().to_stage == Stage.NEGOTIATION


def test_pause_resume_and_enroll_on_the_page(logged_in, tenant):
    lead = make_lead(tenant)
    sequence = make_sequence(tenant)
    logged_in.post(f"/outreach/leads/{lead.pk}/pause/")
    assert Journey.objects.get(lead=lead).stage == Stage.PAUSED
    logged_in.post(f"/outreach/leads/{lead.pk}/resume/")
    assert Journey.objects.get(lead=lead).stage == Stage.COLD
    logged_in.post(f"/outreach/leads/{lead.pk}/enroll/", {"sequence": sequence.pk})
    assert Enrollment.objects.get(lead=lead).sequence == sequence


def test_take_over_then_manual_send_queues_a_manual_message(logged_in, operator, tenant):
    make_phone(tenant)
    lead = make_lead(tenant)
    response = logged_in.post(f"/outreach/leads/{lead.pk}/take-over/")
    assert response.status_code == 302 and response["Location"] == f"/outreach/leads/{lead.pk}/"
    assert Journey.objects.get(lead=lead).taken_over_by == operator
    page = logged_in.get(f"/outreach/leads/{lead.pk}/").content.decode()
    assert "/hand-back/" in page and "/take-over/" not in page
    response = logged_in.post(
        f"/outreach/leads/{lead.pk}/send/", {"text": "Bună ziua, vă sun mâine."}, follow=True
    )
    message = Message.objects.get(lead=lead)
    assert (message.status, message.is_manual, message.sent_by) == (
        Message.Status.QUEUED,
        True,
        operator,
    )
    assert message.body == "Bună ziua, vă sun mâine."
    assert 'class="msg msg-success"' in response.content.decode()
    logged_in.post(f"/outreach/leads/{lead.pk}/hand-back/")
    assert Journey.objects.get(lead=lead).taken_over_by is None


def test_manual_send_to_opted_out_lead_is_refused(logged_in, tenant):
    make_phone(tenant)
    lead = make_lead(tenant)
    _journey(lead, whatsapp_opted_out=True)
    response = logged_in.post(f"/outreach/leads/{lead.pk}/send/", {"text": "Salut"}, follow=True)
    html = response.content.decode()
    assert 'class="msg msg-error"' in html and "opted out of WhatsApp" in html
    assert not Message.objects.exists()


def test_send_to_a_lead_someone_else_took_over_is_refused(logged_in, tenant):
    make_phone(tenant)
    lead = make_lead(tenant)
    colleague = make_user(tenant, username="maria")
    _journey(lead, taken_over_by=colleague, taken_over_at=timezone.now())
    html = logged_in.post(
        f"/outreach/leads/{lead.pk}/send/", {"text": "Salut"}, follow=True
    ).content.decode()
    assert "maria" in html and 'class="msg msg-error"' in html
    assert not Message.objects.exists()


@pytest.mark.parametrize(
    "action", ["pause", "resume", "stage", "take-over", "hand-back", "send", "enroll"]
)
def test_another_tenants_lead_is_404(logged_in, other_tenant, action):
    theirs = make_lead(other_tenant)
    sequence = make_sequence(other_tenant)
    make_phone(other_tenant)
    assert logged_in.get(f"/outreach/leads/{theirs.pk}/").status_code == 404
    response = logged_in.post(
        f"/outreach/leads/{theirs.pk}/{action}/",
        {"stage": Stage.DEAD, "text": "x", "sequence": sequence.pk},
    )
    assert response.status_code == 404
    journey = Journey.objects.get(lead=theirs)
    assert (journey.stage, journey.taken_over_by_id) == (Stage.COLD, None)
    assert not Message.objects.exists() and not Enrollment.objects.exists()


def test_unknown_action_and_get_are_refused(logged_in, tenant):
    lead = make_lead(tenant)
    assert logged_in.post(f"/outreach/leads/{lead.pk}/explode/").status_code == 404
    assert logged_in.get(f"/outreach/leads/{lead.pk}/pause/").status_code == 405
    assert logged_in.get("/outreach/leads/bulk/").status_code == 405


@pytest.mark.parametrize("path", ["{pk}/pause/", "{pk}/send/", "bulk/"])
def test_post_without_csrf_token_is_refused(operator, tenant, path):
    lead = make_lead(tenant)
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(operator)
    url = "/outreach/leads/" + path.format(pk=lead.pk)
    response = strict.post(url, {"ids": [lead.pk], "action": "pause", "text": "x"})
    assert response.status_code == 403
    assert Journey.objects.get(lead=lead).stage == Stage.COLD
    assert not Message.objects.exists()


def test_detail_query_count_does_not_grow_with_messages(logged_in, tenant):
    phone = make_phone(tenant)
    lead = make_lead(tenant)
    journey = Journey.objects.get(lead=lead)
    make_message(lead, phone=phone)
    # The same state both times (the pause cancels the queued message), only more messages.
    stages.pause(journey, reason="x")
    stages.resume(journey, reason="y")
    with CaptureQueriesContext(connection) as small:
        assert logged_in.get(f"/outreach/leads/{lead.pk}/").status_code == 200
    for _ in range(30):
        make_message(lead, phone=phone, status=Message.Status.SENT)
        make_message(
            lead,
            direction=Message.Direction.INBOUND,
            status=Message.Status.RECEIVED,
            idempotency_key=None,
            analysis={"decision": "auto"},
        )
    stages.pause(journey, reason="x")
    stages.resume(journey, reason="y")
    with CaptureQueriesContext(connection) as large:
        html = logged_in.get(f"/outreach/leads/{lead.pk}/").content.decode()
    assert html.count('data-message="') == 50  # the latest 50 of 61
    assert len(large) == len(small)


def test_long_conversation_shows_the_latest_50_and_offers_the_rest(logged_in, tenant):
    lead = make_lead(tenant)
    start = timezone.now() - timedelta(days=10)
    ids = []
    for n in range(53):
        message = make_message(lead, status=Message.Status.SENT, body=f"mesaj {n}")
        Message.objects.filter(pk=message.pk).update(created_at=start + timedelta(hours=n))
        ids.append(message.pk)

    def shown(query: str = "") -> tuple[list[int], str]:
        html = logged_in.get(f"/outreach/leads/{lead.pk}/{query}").content.decode()
        return [int(p.split('"')[0]) for p in html.split('data-message="')[1:]], html

    latest, html = shown()
    assert latest == ids[3:]  # oldest first within the latest 50
    assert 'data-earlier-hidden="3"' in html and "3 earlier messages are not shown." in html
    assert "Conversation <small>(53)</small>" in html
    everything, html = shown("?all=1")
    assert everything == ids and "data-earlier-hidden" not in html


def test_a_lead_without_journey_is_listed_and_shown(logged_in, tenant):
    lead = make_lead(tenant, with_journey=False, name="Fara Jurnal SRL")
    assert _rows(logged_in) == {lead.pk}
    response = logged_in.get(f"/outreach/leads/{lead.pk}/")
    assert response.status_code == 200 and "Fara Jurnal SRL" in response.content.decode()
    assert logged_in.post(f"/outreach/leads/{lead.pk}/pause/").status_code == 404


def test_a_sort_by_a_lead_column_that_is_never_null_is_the_indexs_own_order(logged_in, tenant):
    """ "NULLS LAST" on a descending NOT NULL column does not match its index: PostgreSQL
    then sorts every lead of the tenant for one page. Only columns that can be NULL (a
    joined journey's) say it."""
    leads = [make_lead(tenant, name=f"Ferma {n}") for n in range(3)]
    for n, lead in enumerate(leads):
        Lead.objects.filter(pk=lead.pk).update(created_at=timezone.now() - timedelta(days=n))

    for sort in ("-created", "created", "-name", "-cui", "-county", "-contact"):
        with CaptureQueriesContext(connection) as queries:
            response = logged_in.get(LIST + f"?sort={sort}")
        assert response.status_code == 200
        ordered = [q["sql"] for q in queries.captured_queries if "ORDER BY" in q["sql"]]
        assert ordered and not any("NULLS LAST" in sql for sql in ordered), sort
    html = logged_in.get(LIST + "?sort=-created").content.decode()
    assert [int(part.split('"')[0]) for part in html.split('data-lead="')[1:]] == [
        lead.pk for lead in leads
    ]
    with CaptureQueriesContext(connection) as queries:
        logged_in.get(LIST + "?sort=-last_contact")
    assert any("NULLS LAST" in q["sql"] for q in queries.captured_queries)


@pytest.mark.parametrize("fetch_all_ids", [0, 2000], ids=["sliced", "all-ids"])
def test_sorting_by_a_journey_column_pages_leads_without_one_last(
    logged_in, tenant, monkeypatch, fetch_all_ids
):
    monkeypatch.setattr("console.views.leads.PER_PAGE", 2)
    monkeypatch.setattr("console.views.leads.FETCH_ALL_IDS", fetch_all_ids)
    now = timezone.now()
    old, newest, middle = (make_lead(tenant) for _ in range(3))
    _journey(old, last_contact_at=now - timedelta(days=3))
    _journey(newest, last_contact_at=now)
    _journey(middle, last_contact_at=now - timedelta(days=1))
    lonely = [make_lead(tenant, with_journey=False) for _ in range(2)]

    def page(query: str) -> list[int]:
        html = logged_in.get(LIST + query).content.decode()
        return [int(part.split('"')[0]) for part in html.split('data-lead="')[1:]]

    newest_first = [newest.pk, middle.pk, old.pk, lonely[1].pk, lonely[0].pk]
    pages = [page(f"?sort=-last_contact&page={n}") for n in (1, 2, 3)]
    assert pages == [newest_first[0:2], newest_first[2:4], newest_first[4:]]
    oldest_first = [old.pk, middle.pk, newest.pk, lonely[0].pk, lonely[1].pk]
    pages = [page(f"?sort=last_contact&page={n}") for n in (1, 2, 3)]
    assert pages == [oldest_first[0:2], oldest_first[2:4], oldest_first[4:]]
    assert "5 leads" in logged_in.get(LIST + "?sort=stage").content.decode()


@pytest.mark.parametrize("sort", ["stage", "-stage", "phone", "-phone"])
def test_the_whole_list_sorted_by_stage_or_phone_pages_as_the_joined_order(
    logged_in, tenant, other_tenant, monkeypatch, sort
):
    """Unfiltered, these sorts read journeys alone (console.views.lead_order): the pages
    hold the order of the joined query (column, no phone last, then id), leads without a
    journey after them, another tenant's journeys nowhere; filtered, the joined query."""
    monkeypatch.setattr("console.views.leads.PER_PAGE", 3)
    monkeypatch.setattr("console.views.leads.FETCH_ALL_IDS", 0)  # slice, never read all ids
    late, early = (
        make_phone(tenant, number="+40749000009"),
        make_phone(tenant, number="+40741000001"),
    )
    stages_phones = [
        (Stage.COLD, None), (Stage.CONTACTED_WA, late), (Stage.WARM_REPLY, early),
        (Stage.CONTACTED_WA, early), (Stage.COLD, late), (Stage.DEAD, None),
        (Stage.CONTACTED_WA, late),
    ]  # fmt: skip
    leads = [make_lead(tenant) for _ in stages_phones]
    for lead, (stage, phone) in zip(leads, stages_phones, strict=True):
        _journey(lead, stage=stage, assigned_phone=phone)
    lonely = make_lead(tenant, with_journey=False)
    stranger = make_lead(other_tenant)
    _journey(stranger, stage=Stage.COLD, assigned_phone=make_phone(other_tenant))

    key, descending = sort.removeprefix("-"), sort.startswith("-")
    column = {"stage": "journey__stage", "phone": "journey__assigned_phone__number"}[key]
    field = models.F(column)
    joined = Lead.objects.filter(tenant=tenant, journey__isnull=False).order_by(
        field.desc(nulls_last=True) if descending else field.asc(nulls_last=True),
        "-pk" if descending else "pk",
    )
    expected = [*joined.values_list("pk", flat=True), lonely.pk]

    def page(query: str) -> list[int]:
        html = logged_in.get(LIST + query).content.decode()
        return [int(part.split('"')[0]) for part in html.split('data-lead="')[1:]]

    with CaptureQueriesContext(connection) as queries:
        pages = [page(f"?sort={sort}&page={n}") for n in (1, 2, 3)]
    assert [pk for one in pages for pk in one] == expected
    journeys_alone = [  # the pages' ids: journeys alone, no join
        q["sql"]
        for q in queries.captured_queries
        if q["sql"].startswith('SELECT "outreach_journey"."lead_id"') and "ORDER BY" in q["sql"]
    ]
    assert len(journeys_alone) >= 3 and not any("JOIN" in sql for sql in journeys_alone)
    assert page(f"?sort={sort}&county=Iași&page=1") == expected[:3]  # the joined query


def test_an_operator_writes_an_email_from_the_lead_page(logged_in, tenant, operator):
    lead = make_lead(tenant, phone="", email="ion@agro.ro", email_status="valid")
    page = logged_in.get(f"/outreach/leads/{lead.pk}/").content.decode()
    assert 'name="channel" value="EMAIL_WARM"' in page and 'name="subject"' in page
    response = logged_in.post(
        f"/outreach/leads/{lead.pk}/send/",
        {
            "channel": "EMAIL_WARM",
            "subject": "Ofertă semințe",
            "text": "Bună ziua,\nvă trimit oferta.",
        },
        follow=True,
    )
    assert "Email queued." in response.content.decode()
    message = Message.objects.get()
    assert (message.channel, message.subject, message.counterpart) == (
        Channel.EMAIL_WARM,
        "Ofertă semințe",
        "ion@agro.ro",
    )
    assert message.is_manual and message.sent_by == operator
    assert "Ofertă semințe" in response.content.decode()  # in the conversation


@pytest.mark.parametrize(
    ("fields", "error"),
    [
        ({"email_status": "bounced"}, "Emails to this address bounce"),
        ({"email_status": "valid", "email": ""}, "no email address"),
    ],
)
def test_a_refused_email_keeps_what_the_operator_typed(logged_in, tenant, fields, error):
    lead = make_lead(tenant, **{"email": "ion@agro.ro", **fields})
    typed = {"channel": "EMAIL_WARM", "subject": "Ofertă", "text": "Un text lung scris de mână"}
    response = logged_in.post(f"/outreach/leads/{lead.pk}/send/", typed, follow=True)
    page = response.content.decode()
    assert error in page
    assert "Un text lung scris de mână</textarea>" in page  # the draft is shown again
    assert not Message.objects.exists()
    # Shown once: the next visit starts clean.
    assert (
        "Un text lung scris de mână"
        not in logged_in.get(f"/outreach/leads/{lead.pk}/").content.decode()
    )


def test_an_email_without_a_subject_is_refused(logged_in, tenant):
    lead = make_lead(tenant, email="ion@agro.ro", email_status="valid")
    response = logged_in.post(
        f"/outreach/leads/{lead.pk}/send/", {"channel": "EMAIL_WARM", "text": "x"}, follow=True
    )
    assert "An email needs a subject." in response.content.decode()
    assert not Message.objects.exists()


@pytest.mark.parametrize(
    ("language", "shown", "hidden"),
    [("en", "automatic send", ">send<"), ("ro", "trimitere automată", ">send<")],
)
def test_the_stage_history_names_the_system_in_the_readers_words(
    operator, tenant, language, shown, hidden
):
    """A stage changed by the product, not a person, says who in words, not `send`."""
    lead = make_lead(tenant)
    StageTransition.objects.create(
        tenant=tenant,
        journey=lead.journey,
        from_stage=Stage.COLD,
        to_stage=Stage.CONTACTED_WA,
        reason="x",
        by_system="send",
    )
    client = Client(headers={"accept-language": language})
    client.force_login(operator)
    client.cookies["django_language"] = language
    page = client.get(f"/outreach/leads/{lead.pk}/").content.decode()
    assert f"<td>{shown}</td>" in page
    assert hidden not in page


@pytest.mark.parametrize(
    ("language", "shown"), [("en", "the lead replied"), ("ro", "lead-ul a răspuns")]
)
def test_a_stopped_enrollment_says_why_in_the_readers_language(operator, tenant, language, shown):
    """A reply stops the sequence; the lead page says so in words, not `reply`."""
    lead = make_lead(tenant)
    sequences.enroll(lead, make_sequence(tenant))
    stages.transition(lead.journey, Stage.WARM_REPLY, reason="x", by_system="inbound")
    client = Client()
    client.force_login(operator)
    client.cookies["django_language"] = language
    page = client.get(f"/outreach/leads/{lead.pk}/").content.decode()
    assert f"({shown})" in page


def test_a_stalled_sequence_is_read_with_the_rows(logged_in, tenant):
    """The "Stalled since" line comes with the page's rows, not from a query of its own."""
    stalled, fine = make_lead(tenant, name="Ferma Blocată"), make_lead(tenant, name="Ferma Bună")
    sequence = make_sequence(tenant)
    Enrollment.objects.create(
        tenant=tenant,
        lead=stalled,
        sequence=sequence,
        stalled_reason="dispatch.template_inactive",
        stalled_since=timezone.now() - timedelta(days=1),
    )
    Enrollment.objects.create(tenant=tenant, lead=fine, sequence=sequence)

    with CaptureQueriesContext(connection) as queries:
        html = logged_in.get(LIST).content.decode()

    rows = {
        int(part.split('"')[0]): part.split("</tr>")[0] for part in html.split('data-lead="')[1:]
    }
    assert "data-stalled" in rows[stalled.pk] and "data-stalled" not in rows[fine.pk]
    assert not any(
        q["sql"].startswith('SELECT "outreach_enrollment"') for q in queries.captured_queries
    )


def test_the_filter_form_keeps_what_was_chosen_and_the_headers_sort_both_ways(logged_in, tenant):
    phone = make_phone(tenant, number="+40740000777")
    sequence = make_sequence(tenant, name="<b>Toamnă</b> & iarnă")
    make_lead(tenant, name="Ferma Unu", county="Olt")

    html = logged_in.get(
        LIST + f"?stage=COLD&phone={phone.pk}&sequence=none&review=1&opted_out=email"
        "&email_status=valid&contactable=false&stalled=true&county=Olt&sort=-name",
        HTTP_ACCEPT_LANGUAGE="en",
    ).content.decode()

    form = html.split('<form class="block filters"')[1].split("</form>")[0]
    selects = re.findall(r'<select name="(\w+)"[^>]*>(.*?)</select>', form, re.S)
    chosen = {
        name: found[0]
        for name, options in selects
        if (found := re.findall(r'<option value="([^"]*)" selected', options))
    }
    assert chosen == {
        "stage": "COLD",
        "phone": str(phone.pk),
        "sequence": "none",
        "review": "1",
        "opted_out": "email",
        "email_status": "valid",
        "contactable": "false",
        "stalled": "true",
    }
    assert 'name="county" value="Olt"' in form and 'name="sort" value="-name"' in form
    assert 'name="csrfmiddlewaretoken"' in form
    assert "&lt;b&gt;Toamnă&lt;/b&gt; &amp; iarnă" in form and "<b>Toamnă" not in html
    listed = logged_in.get(LIST + "?county=Olt&sort=-name", HTTP_ACCEPT_LANGUAGE="en")
    head = listed.content.decode().split("<thead>")[1].split("</thead>")[0]
    # Sorted by name descending: the name column reverses it; another column sorts by itself.
    assert re.search(r'href="\?[^"]*sort=name">Company ▼</a>', head)
    assert re.search(r'href="\?[^"]*county=Olt[^"]*&amp;sort=last_contact">Last contact</a>', head)
    assert "sort=-name&amp;sort" not in head  # the current sort is not kept twice
    bulk = html.split('id="bulk"')[1].split("</details>")[0]
    assert f'<option value="{sequence.pk}">&lt;b&gt;Toamnă' in bulk
    assert '<option value="all" selected>' in bulk

    romanian = logged_in.get(LIST, HTTP_ACCEPT_LANGUAGE="ro").content.decode()
    assert ">Orice etapă</option>" in romanian
    assert "Any stage" not in romanian and "With the selected leads" not in romanian
