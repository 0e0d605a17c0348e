"""The review queue helps an operator decide fast: each item shows its thread, the lead's
facts and the AI's reading in words; actions answer htmx with the next item; teammates and
bulk actions (hitl.review_queue, console.views.review, console.views.review_bulk)."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone, translation

from hitl import review
from hitl import review_queue as queue
from hitl.models import ReviewItem
from outreach.models import Journey, Message, Priority, SequenceStep, Stage
from tests.factories import (
    make_lead,
    make_message,
    make_outreach_world,
    make_sequence,
    make_template,
    make_user,
)
from tests.hitl.test_pages_review import MONDAY_10, URL, inbound, open_reply, raw_item, status_of

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def web(client, operator, clock):
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"
    client.force_login(operator)
    return client


def conversation(lead, count: int) -> list[Message]:
    """`count` messages, alternating out and in, a minute apart, oldest first."""
    sent = []
    for n in range(count):
        if n % 2 == 0:
            message = make_message(lead, status=Message.Status.SENT, body=f"mesajul {n}")
        else:
            message = make_message(
                lead,
                direction=Message.Direction.INBOUND,
                status=Message.Status.RECEIVED,
                idempotency_key=None,
                body=f"mesajul {n}",
            )
        Message.objects.filter(pk=message.pk).update(
            created_at=MONDAY_10 - timedelta(hours=2) + timedelta(minutes=n)
        )
        sent.append(message)
    return sent


# --- what an item shows ----------------------------------------------------------------


def test_an_item_shows_its_last_six_messages_oldest_first_the_reply_highlighted(web, lead):
    older = conversation(lead, 8)
    item = review.open_item(
        lead, reason="reply", priority=Priority.HIGH, message=older[-1], intent="question"
    )
    html = web.get(URL).content.decode()
    shown = [f"mesajul {n}" for n in range(8) if f"mesajul {n}<" in html]
    assert shown == [f"mesajul {n}" for n in range(2, 8)]  # the last six
    assert html.index("mesajul 2<") < html.index("mesajul 7<")  # oldest first
    trigger = html.split("data-trigger")[1]
    assert trigger.split("</li>")[0].count("mesajul 7") == 1  # the reply is the highlighted one
    assert "review-thread__msg--trigger" in html and "review-thread__msg--out" in html
    assert f'href="{reverse("outreach:lead", args=[lead.pk])}"' in html
    assert f'href="{reverse("outreach:inbox_thread", args=[lead.pk])}"' in html
    assert f'id="item-{item.pk}"' in html


def test_the_lead_facts_stage_sequence_step_and_readiness(web, tenant, lead):
    sequence = make_sequence(tenant, name="Grain buyers")
    for position in (2, 3, 4):
        SequenceStep.objects.create(
            tenant=tenant,
            sequence=sequence,
            position=position,
            channel="WHATSAPP",
            template=make_template(tenant),
        )
    Journey.objects.filter(lead=lead).update(
        current_sequence=sequence, sequence_step=2, stage=Stage.WARM_REPLY
    )
    open_reply(lead)
    html = web.get(URL).content.decode()
    assert "Step 2 of 4 · Grain buyers" in html
    assert 'data-stage="WARM_REPLY">Warm reply<' in html
    assert 'data-channel="whatsapp"' in html and 'class="readiness-line"' in html


def test_the_ai_reading_in_words_intent_sentiment_and_why_this_priority(web, lead, world):
    review.open_item(
        lead,
        reason="hitl.route.price",
        priority=Priority.HIGH,
        message=inbound(lead),
        sentiment=-30,
        intent="price_request",
    )
    html = web.get(URL).content.decode()
    assert ">Asks for a price<" in html  # the intent's label, not "price_request"
    assert "price_request<" not in html
    assert "−30" in html and "(negative)" in html and "sentiment--negative" in html
    assert 'x="-30"' in html and 'width="30"' in html  # the bar, drawn without style=
    reason = html.split("data-priority-reason>")[1].split("</dd>")[0]
    assert reason == "Asks for a price"  # why HIGH, from the reason routing stored


def test_sentiment_bands_and_bar():
    assert queue.sentiment(None) is None
    negative, neutral, positive = queue.sentiment(-30), queue.sentiment(5), queue.sentiment(70)
    with translation.override("en"):
        assert (negative.tone, negative.text) == ("negative", "−30 (negative)")
        assert (neutral.tone, positive.tone) == ("neutral", "positive")
    assert (negative.bar_x, negative.bar_width) == (-30, 30)
    assert (positive.bar_x, positive.bar_width) == (0, 70)


@translation.override("en")
def test_the_priority_reason_says_when_a_missed_deadline_raised_it(lead):
    item = raw_item(lead, priority=Priority.HIGH, reason="hitl.route.referral")
    assert queue.priority_reason(item) == "Points to another person"
    item.sla_breached_at = MONDAY_10
    assert queue.priority_reason(item) == (
        "Points to another person — raised after a missed deadline"
    )


def test_five_or_twenty_five_items_cost_the_same_queries(web, tenant, operator, clock):
    sequence = make_sequence(tenant)

    def page_queries() -> int:
        with CaptureQueriesContext(connection) as queries:
            assert web.get(URL, {"tab": "MEDIUM"}).status_code == 200
        return len(queries)

    def add(n: int) -> None:
        for i in range(n):
            lead = make_lead(tenant)
            conversation(lead, 3 + i % 5)
            raw_item(lead, sentiment_score=i * 7 - 80, intent="question")
            if i % 2:
                Journey.objects.filter(lead=lead).update(current_sequence=sequence)

    add(5)
    few = page_queries()
    add(20)
    many = page_queries()
    assert len(web.get(URL, {"tab": "MEDIUM"}).context["entries"]) == 25
    assert many == few


def test_recent_messages_keeps_the_last_n_per_lead_in_one_query(tenant, clock):
    first, second = make_lead(tenant), make_lead(tenant)
    conversation(first, 9)
    conversation(second, 2)
    with CaptureQueriesContext(connection) as queries:
        found = queue.recent_messages([first.pk, second.pk], size=4)
    assert len(queries) == 1
    assert [m.body for m in found[first.pk]] == [f"mesajul {n}" for n in (5, 6, 7, 8)]
    assert [m.body for m in found[second.pk]] == ["mesajul 0", "mesajul 1"]


def test_the_thread_query_reads_the_same_rows_as_the_window_function(tenant, clock):
    """On PostgreSQL the thread is read by a LATERAL join; it must pick the same messages in
    the same order as the window function, ties on the time included (newest id first)."""
    leads = [make_lead(tenant) for _ in range(3)]
    conversation(leads[0], 9)
    conversation(leads[1], 2)
    tied = [make_message(leads[2], body=f"la fel {n}") for n in range(8)]
    Message.objects.filter(pk__in=[m.pk for m in tied]).update(created_at=MONDAY_10)
    ids = [lead.pk for lead in leads] + [leads[0].pk]
    for size in (1, 4, 6):
        expected = {}
        for row in queue._latest(sorted(set(ids)), size):
            expected.setdefault(row[1], []).append(queue.ThreadMessage(*row))
        assert queue.recent_messages(ids, size=size) == expected
    assert [m.body for m in queue.recent_messages(ids, size=2)[leads[2].pk]] == [
        "la fel 6",
        "la fel 7",
    ]


# --- htmx: the next item comes in without a reload -----------------------------------------


def test_an_htmx_approve_answers_with_the_next_item_and_the_counts_not_a_redirect(
    web, tenant, operator
):
    leads = make_outreach_world(tenant, leads=3, phones=1)["leads"]
    first, second, third = (
        raw_item(lead, priority=Priority.HIGH, due=MONDAY_10 + timedelta(minutes=n), ai_draft="Da!")
        for n, lead in enumerate(leads)
    )
    response = web.post(
        reverse("hitl:approve", args=[first.pk]),
        {"tab": "HIGH", "shown": [first.pk, second.pk]},
        **HTMX,
    )
    assert response.status_code == 200  # a fragment, not a redirect
    html = response.content.decode()
    assert status_of(first) == ReviewItem.Status.RESOLVED
    assert f'id="item-{third.pk}"' in html  # the next item, appended to the list
    assert f'id="item-{second.pk}"' not in html  # already on the page
    assert f'id="item-{first.pk}"' not in html  # nothing in the closed item's place
    assert 'hx-swap-oob="beforeend:#review-items"' in html
    assert 'id="review-tabs"' in html and 'data-count="2"' in html  # the counts, out of band
    assert "is queued" in html  # the outcome, in the status region
    assert "<html" not in html  # no whole page
    # The pager's line follows: the two items now on the page, of the tab's two left.
    assert '<span id="review-range" data-shown-range hx-swap-oob="true">Items 1–2 of 2,' in html


def test_a_refused_htmx_action_answers_with_the_item_and_the_reason(web, lead):
    item = open_reply(lead)
    response = web.post(reverse("hitl:reject", args=[item.pk]), {"note": " "}, **HTMX)
    assert response.status_code == 200
    html = response.content.decode()
    assert f'id="item-{item.pk}"' in html and "Say why you reject it" in html
    assert "msg-error" in html and status_of(item) == ReviewItem.Status.OPEN


def test_without_htmx_the_plain_post_still_redirects(web, lead):
    item = open_reply(lead)
    response = web.post(reverse("hitl:resolve", args=[item.pk]), {"tab": "HIGH"})
    assert response.status_code == 302 and response.url == f"{URL}?tab=HIGH"


def test_next_item_follows_the_last_shown_not_an_earlier_page(tenant, clock):
    items = [raw_item(make_lead(tenant), due=MONDAY_10 + timedelta(minutes=n)) for n in range(5)]
    open_items = ReviewItem.objects.filter(status__in=review.OPEN_STATUSES)
    # Page two shows items 3 and 4 (0-based): after closing 3, the next is none of 0…2.
    assert queue.next_item(open_items, Priority.MEDIUM, [items[3].pk]) == items[4]
    assert queue.next_item(open_items, Priority.MEDIUM, [items[3].pk, items[4].pk]) is None
    assert queue.next_item(open_items, Priority.MEDIUM, []) == items[0]


# --- teammates -------------------------------------------------------------------------


def test_assign_to_a_teammate(web, lead, tenant):
    item = open_reply(lead)
    ana = make_user(tenant, first_name="Ana", last_name="Pop")
    html = web.get(URL).content.decode()
    assert f'<option value="{ana.pk}"' in html
    response = web.post(reverse("hitl:assign", args=[item.pk]), {"assignee": ana.pk}, follow=True)
    assert "Assigned to Ana Pop" in response.content.decode()
    item.refresh_from_db()
    assert item.assignee == ana and item.status == ReviewItem.Status.ASSIGNED


@pytest.mark.parametrize("who", ["stranger", "superuser", "nonsense"])
def test_assigning_to_someone_outside_the_workspace_is_refused(
    web, lead, other_tenant, superuser, who
):
    item = open_reply(lead)
    target = {
        "stranger": lambda: make_user(other_tenant).pk,
        "superuser": lambda: superuser.pk,
        "nonsense": lambda: "x1",
    }[who]()
    response = web.post(reverse("hitl:assign", args=[item.pk]), {"assignee": target}, follow=True)
    assert "Choose a teammate from this workspace." in response.content.decode()
    item.refresh_from_db()
    assert item.assignee is None and item.status == ReviewItem.Status.OPEN


def test_assign_to_refuses_a_non_member_in_the_service(lead, operator, superuser):
    item = open_reply(lead)
    with pytest.raises(review.ReviewError):
        review.assign_to(item, superuser, by=operator)
    assert status_of(item) == ReviewItem.Status.OPEN


# --- bulk actions ------------------------------------------------------------------------


def test_bulk_resolve_reports_done_and_refused_and_a_refusal_does_not_stop_the_others(
    web, tenant, operator
):
    items = [raw_item(make_lead(tenant)) for _ in range(4)]
    colleague = make_user(tenant, first_name="Ana", last_name="Pop")
    review.assign(items[1], colleague)  # only Ana may act on it now
    response = web.post(
        reverse("hitl:bulk"),
        {"action": "resolve", "items": [i.pk for i in items], "tab": "MEDIUM"},
        follow=True,
    )
    body = response.content.decode()
    assert "3 resolved, 1 refused:" in body and "assigned to Ana Pop" in body
    assert [status_of(i) for i in items] == ["RESOLVED", "ASSIGNED", "RESOLVED", "RESOLVED"]


def test_bulk_reject_needs_a_note_then_rejects_each(web, tenant):
    items = [raw_item(make_lead(tenant)) for _ in range(2)]
    ids = [i.pk for i in items]
    web.post(reverse("hitl:bulk"), {"action": "reject", "items": ids, "note": " "})
    assert [status_of(i) for i in items] == ["OPEN", "OPEN"]
    response = web.post(
        reverse("hitl:bulk"), {"action": "reject", "items": ids, "note": "spam"}, follow=True
    )
    assert "2 rejected" in response.content.decode()
    assert [status_of(i) for i in items] == ["DISMISSED", "DISMISSED"]
    assert {i.resolution for i in items} == {"spam"}


def test_bulk_assign_to_a_teammate_and_not_to_a_stranger(web, tenant, other_tenant):
    items = [raw_item(make_lead(tenant)) for _ in range(2)]
    ids = [i.pk for i in items]
    stranger = make_user(other_tenant)
    response = web.post(
        reverse("hitl:bulk"),
        {"action": "assign", "items": ids, "assignee": stranger.pk},
        follow=True,
    )
    assert "Choose a teammate from this workspace." in response.content.decode()
    assert ReviewItem.objects.filter(assignee__isnull=False).count() == 0
    ana = make_user(tenant)
    response = web.post(
        reverse("hitl:bulk"), {"action": "assign", "items": ids, "assignee": ana.pk}, follow=True
    )
    assert "2 assigned" in response.content.decode()
    assert set(ReviewItem.objects.values_list("assignee", flat=True)) == {ana.pk}


def test_bulk_never_touches_another_tenants_item(web, tenant, other_tenant, clock):
    mine = raw_item(make_lead(tenant))
    stranger = make_outreach_world(other_tenant, leads=1, phones=1)["leads"][0]
    theirs = raw_item(stranger)
    response = web.post(
        reverse("hitl:bulk"), {"action": "resolve", "items": [mine.pk, theirs.pk]}, follow=True
    )
    assert "1 resolved, 1 refused: not found in this workspace" in response.content.decode()
    assert status_of(mine) == "RESOLVED" and status_of(theirs) == "OPEN"


@pytest.mark.parametrize(
    "data",
    [
        {"action": "explode", "items": ["1"]},
        {"action": "resolve"},
        {"action": "resolve", "items": ["x"]},
    ],
)
def test_bulk_bad_input_changes_nothing(web, tenant, data):
    item = raw_item(make_lead(tenant))
    if data.get("items") == ["1"]:
        data = {**data, "items": [str(item.pk)]}
    response = web.post(reverse("hitl:bulk"), data, follow=True)
    assert response.status_code == 200 and "msg-error" in response.content.decode()
    assert status_of(item) == ReviewItem.Status.OPEN


@translation.override("en")
def test_the_countdown_counts_working_time_as_the_sla_does(tenant):
    from outreach.hours import SendingWindow

    window = SendingWindow.for_tenant(tenant)  # 09:00-18:00, Monday to Friday
    friday_1730 = MONDAY_10 - timedelta(days=3) + timedelta(hours=7, minutes=30)
    monday_0930 = MONDAY_10 - timedelta(minutes=30)
    due = queue.countdown(window, monday_0930, friday_1730)
    assert (due.overdue, due.text, due.minutes) == (False, "due in 1h 00m", 60)
    assert due.ticking and due.until == friday_1730 + timedelta(minutes=30)
    late = queue.countdown(
        window, friday_1730 + timedelta(minutes=20), MONDAY_10 - timedelta(minutes=50)
    )
    assert (late.overdue, late.text, late.minutes) == (True, "overdue by 20m", -20)
    saturday = queue.countdown(window, monday_0930, friday_1730 + timedelta(days=1))
    assert not saturday.ticking and saturday.until is None and saturday.text == "due in 30m"


def test_an_item_due_while_the_window_is_closed_says_when_not_zero(tenant):
    """Due on a Sunday (window closed all weekend): no working time is left, yet nothing
    is late before Monday's opening; the clock says so instead of "due in 0m"."""
    from hitl.review_queue import countdown
    from outreach.hours import SendingWindow

    window = SendingWindow.for_tenant(tenant)
    saturday = datetime(2026, 11, 21, 12, 0, tzinfo=ZoneInfo("Europe/Bucharest"))
    found = countdown(window, saturday + timedelta(days=1), saturday)
    assert not found.overdue and found.minutes == 0
    assert found.text.startswith("due when the window opens, ")
    assert "0m" not in found.text


# --- the page's rows (console.views.review_rows, docs/page-rendering.md) -------------------


def test_the_page_prints_its_items_from_the_compiled_rows_template():
    """An item's fields are worked out in the view (RowMaker) and printed by
    _review_rows.jinja: no loop over the items in Django's engine, on the page or in the
    answer to an action."""
    from django.template import engines
    from django.template.base import VariableNode
    from django.template.defaulttags import ForNode

    for name, printed in (
        ("hitl/review.html", {"rows_html"}),
        ("hitl/_review_answer.html", {"again_html", "following_html"}),
    ):
        page = engines["django"].engine.get_template(name).nodelist
        tokens = {v.filter_expression.token for v in page.get_nodes_by_type(VariableNode)}
        assert printed <= tokens
        loops = [getattr(loop.sequence, "token", "") for loop in page.get_nodes_by_type(ForNode)]
        assert not {"rows", "again", "following"} & set(loops)


def test_each_items_actions_and_thread_are_its_own_and_escaped(web, tenant, operator):
    """The actions are rendered once per state and the item's id and draft put in: every
    item still posts to its own URLs, shows its own draft (escaped) and its own state."""
    ana = make_user(tenant, first_name="Ana", last_name="<Pop>")
    drafted, bare, mine = (make_lead(tenant, name=f"Ferma {n} & fiii") for n in "ABC")
    first = raw_item(drafted, ai_draft='Bună <b>ziua</b> "X"', assignee=ana, status="ASSIGNED")
    second = raw_item(bare, due=MONDAY_10 + timedelta(hours=2))
    third = raw_item(mine, due=MONDAY_10 + timedelta(hours=3), assignee=operator)
    Journey.objects.filter(lead=bare).update(taken_over_by=ana, taken_over_at=MONDAY_10)
    make_message(
        bare,
        direction=Message.Direction.INBOUND,
        status=Message.Status.RECEIVED,
        idempotency_key=None,
        subject="Re: <ofertă>",
        body="x" * 300 + "<script>",
    )
    make_message(bare, status=Message.Status.SENT, body="<i>bună</i>\nziua")
    html = web.get(URL, {"tab": "MEDIUM"}).content.decode()
    chunks = html.split('<li class="review-item ')[1:]
    by_pk = {int(chunk.split('data-item="')[1].split('"')[0]): chunk for chunk in chunks}
    assert list(by_pk) == [first.pk, second.pk, third.pk]
    for pk, chunk in by_pk.items():
        for action in ("approve", "send", "assign", "take-over", "reject", "resolve"):
            assert f'"/outreach/review/{pk}/{action}/"' in chunk
        assert f'id="text-{pk}"' in chunk and f'for="stage-{pk}"' in chunk
        other = [other for other in by_pk if other != pk]
        assert all(f"/review/{o}/" not in chunk for o in other)
    a, b, c = by_pk[first.pk], by_pk[second.pk], by_pk[third.pk]
    assert ">Bună &lt;b&gt;ziua&lt;/b&gt; &quot;X&quot;</textarea>" in a
    assert "></textarea>" in b and 'aria-keyshortcuts="a" disabled>' in b
    assert 'aria-keyshortcuts="a">' in a
    assert f'<option value="{ana.pk}" selected>Ana &lt;Pop&gt;</option>' in a
    assert f'<option value="{ana.pk}">Ana &lt;Pop&gt;</option>' in c
    assert f'<option value="{operator.pk}"' not in a  # the operator assigns to themselves
    assert "Assigned to Ana &lt;Pop&gt;" in a and "Taken over by Ana &lt;Pop&gt;" in b
    assert 'aria-label="Select Ferma A &amp; fiii"' in a
    assert '<button type="submit" disabled>Assign to me</button>' in c
    assert '<button type="submit" disabled>Take over</button>' in b
    assert "<strong>Re: &lt;ofertă&gt;</strong> " + "x" * 239 + "…<" in b  # cut as before
    assert "&lt;i&gt;bună&lt;/i&gt;\nziua</span>" in b  # an earlier message: not broken
    assert "<script>" not in b and "<i>" not in b


def test_the_page_dates_are_the_date_filters(tenant):
    """Dates of the rows, formatted once per page, read as the `|date:` filter prints them."""
    from django.template import engines

    from console.views.review_rows import Dates

    moments = [
        datetime(2026, 3, 29, 0, 59, 59, tzinfo=ZoneInfo("UTC")),  # DST starts in Bucharest
        datetime(2026, 10, 25, 0, 30, 0, 123456, tzinfo=ZoneInfo("UTC")),  # the repeated hour
        datetime(2026, 10, 25, 1, 30, tzinfo=ZoneInfo("UTC")),
        MONDAY_10,
    ]
    template = engines["django"].from_string(
        "{{ d|date:'c' }}|{{ d|date:'SHORT_DATETIME_FORMAT' }}|{{ d|date:'DATETIME_FORMAT' }}"
    )
    for language in ("en", "ro"):
        with translation.override(language), timezone.override("Europe/Bucharest"):
            dates = Dates()
            for moment in moments:
                shown = (
                    f"{dates.iso(moment)}|{dates.short_datetime(moment)}|{dates.datetime(moment)}"
                )
                assert shown == template.render({"d": moment})


@pytest.mark.parametrize(
    "text",
    ["", "scurt", "ă" * 240, "ă" * 241, "a\u0306" * 200, "x" * 500, "e\u0301" * 239 + "abc"],
)
def test_truncated_is_truncatechars(text):
    from django.utils.text import Truncator

    from console.views.review_rows import truncated

    assert truncated(text) == Truncator(text).chars(240)


def test_a_pages_working_times_are_each_items_own(tenant):
    """Working times summed along the page's due times (Clock.worked_many) equal each item's
    own count, across a weekend, a public holiday and the change to winter time."""
    from outreach.hours import SendingWindow

    window = SendingWindow.for_tenant(tenant)
    for now in (MONDAY_10, datetime(2026, 10, 26, 9, 30, tzinfo=ZoneInfo("Europe/Bucharest"))):
        clock = queue.Clock.at(window, now)
        dues = [now + timedelta(minutes=m) for m in range(-60 * 24 * 40, 60 * 24 * 40, 397)]
        dues += [now, now - timedelta(microseconds=1), now + timedelta(seconds=1)]
        found = clock.worked_many(dues + dues[:5])
        assert {due: clock.worked(due) for due in dues} == found


@pytest.mark.parametrize("language", ["en", "ro"])
def test_the_readiness_badges_are_the_shared_templates(language):
    """The page builds each channel's badge once; it prints what
    `outreach/_readiness_badges.html` prints for the same readiness."""
    from django.template.loader import render_to_string

    from cerniq import reasons
    from console.views.review_rows import _Badges
    from outreach import reasons as codes
    from outreach.readiness import EMAIL, WHATSAPP, ChannelReadiness, Readiness, State

    whatsapp = [
        ChannelReadiness(WHATSAPP, State.READY),
        ChannelReadiness(WHATSAPP, State.UNCHECKED, reasons.code(codes.PHONE_UNCHECKED)),
        ChannelReadiness(WHATSAPP, State.UNCHECKED, reasons.code(codes.PHONE_UNCHECKED), False),
        ChannelReadiness(WHATSAPP, State.BLOCKED, reasons.code(codes.OPTED_OUT)),
        ChannelReadiness(
            WHATSAPP, State.BLOCKED, reasons.code(codes.STAGE_CLOSED, stage=Stage.DEAD)
        ),
    ]
    email = [
        ChannelReadiness(EMAIL, State.READY),
        ChannelReadiness(EMAIL, State.UNCHECKED, reasons.code(codes.EMAIL_UNCHECKED), False),
        ChannelReadiness(EMAIL, State.BLOCKED, reasons.code(codes.EMAIL_BOUNCED)),
        ChannelReadiness(EMAIL, State.BLOCKED, reasons.code(codes.NO_EMAIL)),
    ]
    with translation.override(language):
        badges = _Badges()
        for wa in whatsapp:
            for mail in email:
                ready = Readiness(wa, mail)
                shared = render_to_string("outreach/_readiness_badges.html", {"ready": ready})
                assert badges(ready) == shared
        assert badges(None) == ""
