"""The inbox's pages (/outreach/inbox/): the list and the thread, notes, read/close actions,
the polls' "nothing changed" answer, constant queries, and tenant isolation on every URL."""

from __future__ import annotations

import re
from datetime import timedelta
from urllib.parse import urlencode

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext

from hitl import inbox, inbox_state, reply_intent
from hitl.models import ConversationState, Note
from outreach import stages
from outreach.models import Channel, Journey, Lead, Message, MessageAttachment, Stage
from tests.factories import make_lead, make_message, make_phone, make_user
from tests.outreach.inbox_setup import INBOX, NOW

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("inbox_moment")]


def inbound(lead, body="Da, trimiteți oferta.", **kw):
    message = make_message(
        lead,
        direction=Message.Direction.INBOUND,
        status=Message.Status.RECEIVED,
        idempotency_key=None,
        body=body,
        **kw,
    )
    Journey.objects.filter(lead=lead).update(last_reply_at=message.created_at)
    intent = ((message.analysis or {}).get("triage") or {}).get("intent")
    if intent:
        reply_intent.triaged(message, intent)  # as the reply path keeps it
    return message


def conversation(tenant, **lead):
    found = make_lead(tenant, **lead)
    make_message(found, status=Message.Status.SENT, body="Bună ziua, vă scriem de la Cerniq.")
    Journey.objects.filter(lead=found).update(last_contact_at=NOW - timedelta(hours=2))
    return found


def rows(html: str) -> list[int]:
    return [int(part.split('"')[0]) for part in html.split('data-conversation="')[1:]]


# --- the list -----------------------------------------------------------------------


def test_the_list_shows_conversations_with_their_marks(logged_in, tenant):
    hot = conversation(tenant, name="Ferma Hot", contact_name="Ion Pop")
    inbound(hot, "Cât costă?", analysis={"triage": {"intent": "price_request"}})
    quiet = conversation(tenant, name="Ferma Liniștită")
    Journey.objects.filter(lead=quiet).update(requires_human_review=True, review_priority="HIGH")

    html = logged_in.get(INBOX).content.decode()

    assert rows(html) == [hot.pk, quiet.pk]
    first = html.split('data-conversation="')[1].split("</li>")[0]
    assert "data-unread" in first and "data-hot" in first and "Cât costă?" in first
    assert "Ion Pop" in first and "WhatsApp" in first
    second = html.split('data-conversation="')[2].split("</li>")[0]
    assert 'data-mark="review"' in second and "data-unread" not in second
    assert re.search(r'data-count="all"[^>]*>1<', html)  # one unread in the open view
    assert 'data-inbox-unread="1"' in html  # the navigation's badge
    hot_only = logged_in.get(INBOX + "?view=hot").content.decode()
    assert rows(hot_only) == [hot.pk]


def test_more_than_three_phones_fold_into_one_facet_that_names_the_chosen_one(logged_in, tenant):
    phones = [make_phone(tenant, number=f"+4074000020{n}", label=f"Nr {n}") for n in range(4)]
    lead = conversation(tenant, name="Ferma Patru")
    Journey.objects.filter(lead=lead).update(assigned_phone=phones[2])
    inbound(lead, "Da")

    folded = logged_in.get(INBOX).content.decode()
    assert '<details class="facet-phones">' in folded and "☎ By phone</summary>" in folded
    chip = folded.split(f'data-phone="{phones[2].pk}"')[1].split("</a>")[0]
    assert '<span class="unread-count">1</span>' in chip

    chosen = logged_in.get(INBOX, {"phone": phones[2].pk}).content.decode()
    assert '<details class="facet-phones" open>' in chosen
    assert '<summary class="facet is-active">☎ Nr 2</summary>' in chosen
    assert rows(chosen) == [lead.pk]


def test_a_deep_page_costs_what_the_first_does(logged_in, tenant, operator):
    for n in range(inbox.PAGE_SIZE * 2 + 3):
        lead = make_lead(tenant, name=f"Ferma {n:03d}")
        make_message(lead)
        Journey.objects.filter(lead=lead).update(last_contact_at=NOW - timedelta(minutes=n))
    first = inbox.page(tenant, operator, inbox.InboxQuery())
    second = inbox.page(tenant, operator, inbox.InboxQuery(cursor=first.next_cursor))
    counts = []
    for cursor in (None, first.next_cursor, second.next_cursor):
        url = "/outreach/inbox/list/" + (
            f"?{urlencode({'after': cursor.encode()})}" if cursor else ""
        )
        with CaptureQueriesContext(connection) as queries:
            response = logged_in.get(url)
        assert response.status_code == 200
        counts.append(len(queries))
    # A deeper page is the rows alone ("Show more": no counts, phones or stamp), the same
    # queries at any depth.
    assert counts[1] == counts[2] < counts[0]
    last = logged_in.get("/outreach/inbox/list/", {"after": second.next_cursor.encode()})
    assert len(rows(last.content.decode())) == 3
    assert "Show more" not in last.content.decode()


def test_the_list_poll_answers_204_until_something_changes(logged_in, tenant, operator):
    lead = conversation(tenant)
    stamp = inbox_state.list_stamp(tenant, operator)
    assert logged_in.get(f"/outreach/inbox/list/?v={stamp}").status_code == 204
    with time_machine.travel(NOW + timedelta(minutes=1), tick=False):
        inbound(lead)
    response = logged_in.get(f"/outreach/inbox/list/?v={stamp}")
    assert response.status_code == 200
    assert rows(response.content.decode()) == [lead.pk]


# --- the thread ---------------------------------------------------------------------


PANE_HEADERS = {"HX-Request": "true", "HX-Target": "inbox-main"}


def test_a_page_opened_on_a_thread_leaves_the_list_to_the_browser(logged_in, tenant, operator):
    lead = conversation(tenant, name="Ferma Deschisă")
    other = conversation(tenant, name="Ferma Alta")
    inbound(lead)

    with CaptureQueriesContext(connection) as queries:
        html = logged_in.get(f"{INBOX}{lead.pk}/?view=hot&q=ferma").content.decode()

    # The thread is there; the list is not (none of its rows, counts or stamp).
    assert 'class="thread-head" data-lead="' in html and "Ferma Deschisă" in html
    assert rows(html) == [] and "data-count=" not in html
    listing = ("my_state", "SUM(CASE")  # the list's page and its unread counts
    assert not any(part in q["sql"] for q in queries.captured_queries for part in listing)
    loader = html.split('id="inbox-list"')[1].split(">")[0]
    assert 'hx-trigger="load"' in loader and f'"sel": "{lead.pk}"' in loader
    assert "/outreach/inbox/list/?view=hot&amp;q=ferma" in loader
    assert "could not be loaded" in html  # what the loader says when the list fails
    # What the loader asks for: the list with the same filters, the open one selected (and
    # read: the page read it before the list was asked for).
    listed = logged_in.get("/outreach/inbox/list/", {"sel": lead.pk}).content.decode()
    assert rows(listed) == [lead.pk, other.pk]
    first = listed.split('data-conversation="')[1].split("</li>")[0]
    assert 'aria-current="true"' in first and "data-unread" not in first
    assert f'"sel": "{lead.pk}"' in listed  # the poll keeps the selection


def test_a_conversation_opened_from_the_list_is_the_pane_alone(logged_in, tenant, operator):
    lead = conversation(tenant, name="Ferma <Pane>")
    inbound(lead, "Da, vă rog")

    with CaptureQueriesContext(connection) as pane_queries:
        pane = logged_in.get(f"{INBOX}{lead.pk}/", headers=PANE_HEADERS)
    html = pane.content.decode()

    assert pane.status_code == 200
    assert html.startswith("<title>Ferma &lt;Pane&gt; · Inbox · Cerniq</title>")
    assert "Da, vă rog" in html and 'id="composer-text"' in html and "inbox-note" in html
    assert "<html" not in html and 'id="inbox-list"' not in html and "data-nav=" not in html
    assert ConversationState.objects.get(user=operator, lead=lead).last_read_at == NOW
    with CaptureQueriesContext(connection) as page_queries:
        logged_in.get(f"{INBOX}{lead.pk}/")
    assert len(pane_queries) < len(page_queries)  # no top bar badges
    # Going back in the browser's history asks for the whole page.
    restore = logged_in.get(
        f"{INBOX}{lead.pk}/", headers={**PANE_HEADERS, "HX-History-Restore-Request": "true"}
    ).content.decode()
    assert "<html" in restore and 'id="inbox-list"' in restore
    # Another target (or none) is the whole page too.
    whole = logged_in.get(f"{INBOX}{lead.pk}/", headers={"HX-Request": "true"}).content.decode()
    assert "<html" in whole


def test_the_list_poll_brings_the_bars_badge_along(logged_in, tenant, operator):
    """A conversation opened beside the list is read without reloading the page: the list's
    next poll replaces the bar's badge (out of band) with the count it shows."""
    first, second = conversation(tenant, name="Ferma 1"), conversation(tenant, name="Ferma 2")
    inbound(first)
    inbound(second)
    page = logged_in.get(INBOX).content.decode()
    assert page.count('id="nav-inbox-badge"') == 1  # the bar's, not a second one in the list
    assert 'data-inbox-unread="2"' in page

    logged_in.get(f"{INBOX}{first.pk}/", headers=PANE_HEADERS)  # read beside the list
    polled = logged_in.get("/outreach/inbox/list/", {"v": "stale", "sel": first.pk})
    badge = (
        polled.content.decode().split('<span id="nav-inbox-badge"')[1].split("</span></span>")[0]
    )
    assert 'hx-swap-oob="true"' in badge and 'data-inbox-unread="1"' in badge

    logged_in.get(f"{INBOX}{second.pk}/", headers=PANE_HEADERS)
    polled = logged_in.get("/outreach/inbox/list/", {"v": "stale"}).content.decode()
    assert '<span id="nav-inbox-badge" hx-swap-oob="true"></span>' in polled  # none left


def test_the_list_links_open_in_the_pane_and_the_poll_does_not_ride_along(logged_in, tenant):
    conversation(tenant)
    html = logged_in.get(INBOX).content.decode()
    listing = html.split('id="inbox-list"')[1]
    conv_list = listing.split('<ol class="conv-list"')[1].split(">")[0]
    assert 'hx-boost="true"' in conv_list and 'hx-target="#inbox-main"' in conv_list
    # The poll's values sit on its own element, outside the rows: a row's link carries
    # none of them into the conversation's URL.
    poll = listing.split("data-list-poll")[1].split(">")[0]
    assert 'hx-trigger="every 10s"' in poll and '"v": "' in poll
    assert "hx-vals" not in listing.split("data-list-poll")[0]
    assert 'id="inbox-main"' in html


def test_the_thread_is_a_chat_with_stages_and_notes_in_time_order(logged_in, tenant, operator):
    phone = make_phone(tenant, label="Vânzări 1")
    lead = make_lead(tenant, name="Ferma Chat")
    journey = Journey.objects.get(lead=lead)
    with time_machine.travel(NOW - timedelta(hours=3), tick=False):
        out = make_message(lead, phone=phone, status=Message.Status.READ, body="Ofertă nouă")
        stages.transition(journey, Stage.CONTACTED_WA, reason="sent", by_system="send")
    with time_machine.travel(NOW - timedelta(hours=2), tick=False):
        reply = inbound(
            lead,
            "Cât costă?",
            analysis={
                "triage": {"intent": "price_request", "sentiment": 70, "confidence": 0.9},
            },
        )
    with time_machine.travel(NOW - timedelta(hours=1), tick=False):
        Note.objects.create(tenant=tenant, lead=lead, author=operator, body="Sună-l mâine")
    with time_machine.travel(NOW - timedelta(minutes=30), tick=False):
        failed = make_message(
            lead,
            status=Message.Status.FAILED,
            body="Revenim",
            error="not on WhatsApp",
            channel=Channel.WHATSAPP,
        )
        MessageAttachment.objects.create(
            message=failed,
            file="x.pdf",
            filename="oferta.pdf",
            content_type="application/pdf",
            size=2048,
        )

    html = logged_in.get(f"{INBOX}{lead.pk}/").content.decode()

    order = [
        html.index(f'data-message="{out.pk}"'),
        html.index("data-transition="),
        html.index(f'data-message="{reply.pk}"'),
        html.index("data-note="),
        html.index(f'data-message="{failed.pk}"'),
    ]
    assert order == sorted(order)
    out_bubble = html.split(f'data-message="{out.pk}"')[1].split("data-transition")[0]
    assert 'data-direction="OUT"' in html and "✓✓" in out_bubble and "tick-read" in out_bubble
    assert "Vânzări 1" in out_bubble and phone.number in out_bubble
    reply_bubble = html.split(f'data-message="{reply.pk}"')[1].split("data-note=")[0]
    assert "Asks for a price" in reply_bubble and "positive tone" in reply_bubble
    assert "sure (90%)" in reply_bubble
    failed_bubble = html.split(f'data-message="{failed.pk}"')[1]
    assert "not on WhatsApp" in failed_bubble and "Failed" in failed_bubble
    assert "oferta.pdf" in failed_bubble
    assert "Sună-l mâine" in html
    assert 'id="composer-text"' in html  # the composer's place
    assert 'hx-trigger="every 10s, cerniq:sent from:body"' in html
    # Opening the thread read it.
    assert ConversationState.objects.get(user=operator, lead=lead).last_read_at == NOW


def _thread_queries(client, tenant, n: int) -> tuple[int, str]:
    lead = conversation(tenant, name=f"Ferma {n}")
    Message.objects.bulk_create(
        Message(
            tenant=tenant,
            lead=lead,
            channel=Channel.WHATSAPP,
            direction=Message.Direction.INBOUND if i % 2 else Message.Direction.OUTBOUND,
            status=Message.Status.RECEIVED if i % 2 else Message.Status.DELIVERED,
            body=f"mesaj {i}",
            idempotency_key=None if i % 2 else f"k-{n}-{i}",
            is_manual=not i % 2,
            analysis={"triage": {"intent": "question"}} if i % 2 else None,
        )
        for i in range(n)
    )
    with CaptureQueriesContext(connection) as queries:
        html = client.get(f"{INBOX}{lead.pk}/").content.decode()
    return len(queries), html


def test_the_thread_escapes_what_a_message_holds(logged_in, tenant, operator):
    lead = conversation(tenant)
    inbound(lead, body='<script>alert("x")</script>\nA doua linie', subject="<b>Ofertă</b>")
    Note.objects.create(tenant=tenant, lead=lead, author=operator, body="<i>notă</i>")

    html = logged_in.get(f"{INBOX}{lead.pk}/").content.decode()

    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;<br>A doua linie" in html
    assert "&lt;b&gt;Ofertă&lt;/b&gt;" in html and "&lt;i&gt;notă&lt;/i&gt;" in html
    assert "<script>alert" not in html and "<b>Ofertă" not in html


def test_a_long_thread_costs_the_same_queries_and_shows_the_latest(logged_in, tenant):
    short, _html = _thread_queries(logged_in, tenant, 20)
    long, html = _thread_queries(logged_in, tenant, 200)
    assert short == long
    assert html.count("data-message=") == 50
    assert "mesaj 199" in html and "mesaj 149" not in html
    earlier = html.split('class="thread-earlier"')[1].split('hx-get="')[1].split('"')[0]
    older = logged_in.get(earlier.replace("&amp;", "&")).content.decode()
    assert older.count("data-message=") == 50 and "mesaj 149" in older


def test_a_poll_after_show_earlier_keeps_what_was_loaded(logged_in, tenant):
    """The 10-second poll re-renders the thread when something changed: after "show
    earlier" it must keep the older messages the operator loaded, not fall back to the
    latest 50 under their eyes."""
    _thread_queries(logged_in, tenant, 120)
    lead = Lead.objects.get(name="Ferma 120")
    html = logged_in.get(f"{INBOX}{lead.pk}/").content.decode()
    assert '"since": ""}' in html  # the poll asks for the latest messages
    earlier = html.split('class="thread-earlier"')[1].split('hx-get="')[1].split('"')[0]
    older = logged_in.get(earlier.replace("&amp;", "&")).content.decode()
    assert older.count("data-message=") == 50 and "mesaj 20<" in older
    since = re.search(r'<i hidden data-thread-since="([^"]+)"></i>', older)
    assert since, "the older page moves the poll's starting point back"

    stamp = inbox_state.thread_stamp(lead)
    with time_machine.travel(NOW + timedelta(seconds=5), tick=False):
        inbound(lead, "Mesaj nou")
    url = f"{INBOX}{lead.pk}/timeline/"
    polled = logged_in.get(url, {"v": stamp, "since": since.group(1)}).content.decode()
    assert polled.count("data-message=") == 101  # 100 loaded, and the new one
    assert "mesaj 20<" in polled and "Mesaj nou" in polled and "mesaj 19<" not in polled
    assert f'"since": "{since.group(1)}"}}' in polled  # kept for the next poll
    assert 'class="thread-earlier"' in polled  # messages 0-19 are still one click away
    # Without it, the poll shows the latest 50, as before.
    plain = logged_in.get(url, {"v": stamp}).content.decode()
    assert plain.count("data-message=") == 50


def test_the_thread_poll_answers_204_until_something_changes(logged_in, tenant):
    lead = conversation(tenant)
    url = f"{INBOX}{lead.pk}/timeline/"
    stamp = inbox_state.thread_stamp(lead)
    assert logged_in.get(url, {"v": stamp}).status_code == 204
    with time_machine.travel(NOW + timedelta(seconds=5), tick=False):
        inbound(lead, "Am primit")
    response = logged_in.get(url, {"v": stamp})
    assert response.status_code == 200 and "Am primit" in response.content.decode()
    # A receipt written by an UPDATE that leaves updated_at alone still shows.
    stamp = inbox_state.thread_stamp(lead)
    Message.objects.filter(lead=lead, direction="OUT").update(
        status=Message.Status.READ, read_at=NOW + timedelta(seconds=9)
    )
    response = logged_in.get(url, {"v": stamp})
    assert response.status_code == 200 and "tick-read" in response.content.decode()


# --- notes and actions --------------------------------------------------------------


def test_a_note_is_kept_for_the_team_and_never_sent(logged_in, tenant, operator):
    lead = conversation(tenant)
    messages_before = Message.objects.count()
    response = logged_in.post(f"{INBOX}{lead.pk}/notes/", {"body": "  Vrea ofertă pe 50 ha  "})
    assert response.status_code == 302
    note = Note.objects.get(lead=lead)
    assert (note.body, note.author, note.tenant) == ("Vrea ofertă pe 50 ha", operator, tenant)
    assert Message.objects.count() == messages_before  # nothing to send was made of it
    html = logged_in.get(f"{INBOX}{lead.pk}/").content.decode()
    assert "Vrea ofertă pe 50 ha" in html.split(f'data-note="{note.pk}"')[1]


def test_an_empty_note_is_a_form_error(logged_in, tenant):
    lead = conversation(tenant)
    response = logged_in.post(f"{INBOX}{lead.pk}/notes/", {"body": "   "})
    assert response.status_code == 400
    assert "Write the note first." in response.content.decode()
    too_long = logged_in.post(f"{INBOX}{lead.pk}/notes/", {"body": "x" * 5001})
    assert too_long.status_code == 400
    assert Note.objects.count() == 0


def test_mark_unread_close_and_reopen(logged_in, tenant, operator):
    lead = conversation(tenant, name="Ferma A")
    other = conversation(tenant, name="Ferma B")
    inbound(lead)
    logged_in.get(f"{INBOX}{lead.pk}/")
    assert inbox.unread_total(tenant, operator) == 0

    response = logged_in.post(f"{INBOX}{lead.pk}/unread/")
    assert response.status_code == 302 and response.url == INBOX
    assert inbox.unread_total(tenant, operator) == 1

    nxt = f"{INBOX}{other.pk}/"
    response = logged_in.post(f"{INBOX}{lead.pk}/close/", {"next": nxt})
    assert response.url == nxt
    assert rows(logged_in.get(INBOX).content.decode()) == [other.pk]
    assert rows(logged_in.get(INBOX + "?view=closed").content.decode()) == [lead.pk]
    # An outside `next` is ignored.
    response = logged_in.post(f"{INBOX}{lead.pk}/reopen/", {"next": "https://evil.example/"})
    assert response.url == f"{INBOX}{lead.pk}/"
    assert lead.pk in rows(logged_in.get(INBOX).content.decode())
    assert logged_in.post(f"{INBOX}{lead.pk}/explode/").status_code == 404
    assert logged_in.get(f"{INBOX}{lead.pk}/close/").status_code == 405


# --- links, access, isolation -------------------------------------------------------


def test_every_lead_link_can_open_the_thread(logged_in, tenant):
    lead = conversation(tenant, name="Ferma Link")
    target = f'href="{INBOX}{lead.pk}/"'
    assert target in logged_in.get(f"/outreach/leads/{lead.pk}/").content.decode()
    assert target in logged_in.get("/outreach/leads/").content.decode()
    assert target in logged_in.get("/outreach/dashboard/").content.decode()
    assert 'data-nav="inbox"' in logged_in.get("/outreach/dashboard/").content.decode()


def test_the_inbox_needs_a_login(client, tenant):
    lead = conversation(tenant)
    assert client.get(INBOX).status_code == 302
    assert client.get(f"{INBOX}{lead.pk}/").status_code == 302
    poll = client.get(f"{INBOX}{lead.pk}/timeline/", HTTP_HX_REQUEST="true")
    assert poll.status_code == 204 and poll["HX-Redirect"].startswith("/")
    assert client.post(f"{INBOX}{lead.pk}/notes/", {"body": "x"}).status_code == 302
    assert Note.objects.count() == 0


def test_another_tenants_conversation_is_not_found_on_any_inbox_url(
    logged_in, tenant, other_tenant
):
    theirs = conversation(other_tenant, name="Charlie's farm")
    inbound(theirs, "secret")
    charlie = make_user(other_tenant)
    inbox_state.mark_read(theirs, charlie)
    assert logged_in.get(f"{INBOX}{theirs.pk}/").status_code == 404
    assert logged_in.get(f"{INBOX}{theirs.pk}/timeline/").status_code == 404
    assert logged_in.get(f"{INBOX}{theirs.pk}/timeline/?before=x_1").status_code == 404
    assert logged_in.post(f"{INBOX}{theirs.pk}/notes/", {"body": "hi"}).status_code == 404
    for action in ("unread", "close", "reopen"):
        assert logged_in.post(f"{INBOX}{theirs.pk}/{action}/").status_code == 404
    assert Note.objects.count() == 0
    assert ConversationState.objects.filter(lead=theirs).count() == 1  # Charlie's own
    for url in (INBOX, INBOX + "list/", INBOX + "?view=closed", INBOX + "?q=Charlie"):
        html = logged_in.get(url).content.decode()
        assert rows(html) == []
        assert "Charlie&#x27;s farm" not in html and "secret" not in html


def test_the_list_prints_its_rows_from_the_compiled_rows_template():
    """The rows are worked out in the view and printed by _rows.jinja
    (docs/page-rendering.md): no loop over them in Django's engine."""
    from tests.outreach.test_pages_rendering import _loops

    assert _loops("outreach/inbox/_rows.html", "rows") == []


def test_the_list_escapes_what_a_conversation_holds(logged_in, tenant):
    lead = conversation(tenant, name="<b>Ferma</b> & fiii", contact_name="<i>Ion</i>")
    inbound(lead, "<script>x()</script>")

    html = logged_in.get(INBOX).content.decode()

    assert "&lt;b&gt;Ferma&lt;/b&gt; &amp; fiii" in html and "&lt;i&gt;Ion&lt;/i&gt;" in html
    assert "&lt;script&gt;x()&lt;/script&gt;" in html
    assert "<b>Ferma" not in html and "<script>x()" not in html
