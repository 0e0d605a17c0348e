"""The review queue in a real browser: an operator clears simple items with the keyboard
(the next item comes in without a page load), follows an item to its thread, and rejects
several items at once. Screenshots var/screenshots/review-*.png, English and Romanian, at
1366×768 and on a tablet (820×1180)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from console.views import review as review_views
from hitl import review
from hitl.models import ReviewItem
from outreach.models import Journey, Message, SequenceStep, Stage
from tests.browser.test_operator_ui import SHOTS, TABLET, browser_page, log_in  # noqa: F401
from tests.factories import (
    make_lead,
    make_message,
    make_phone,
    make_sequence,
    make_template,
    make_tenant,
    make_user,
)

REPLIES = [
    ("Ferma Dunărea SRL", "Da, sunt interesat. Trimiteți-mi oferta.", "interested", 70),
    ("Agro Câmpia SRL", "Cât costă tona de îngrășământ?", "price_request", 10),
    ("Cereale Nord SRL", "Nu mai scrieți, e a treia oară!", "complaint", -60),
    ("Silozul Verde SRL", "Sunați-mă joi după ora 10.", "meeting_request", 40),
]


def queue_of(tenant) -> list[ReviewItem]:
    """Four HIGH items with a short conversation each, due a minute apart."""
    sequence = make_sequence(tenant, name="Grain buyers")
    for position in (2, 3):
        SequenceStep.objects.create(
            tenant=tenant,
            sequence=sequence,
            position=position,
            channel="WHATSAPP",
            template=make_template(tenant),
        )
    items = []
    for n, (name, text, intent, sentiment) in enumerate(REPLIES):
        lead = make_lead(tenant, name=name, contact_name="Ion Popescu")
        Journey.objects.filter(lead=lead).update(
            stage=Stage.WARM_REPLY, current_sequence=sequence, sequence_step=2
        )
        make_message(lead, status="SENT", body="Bună ziua! Vă putem ajuta cu semințe certificate.")
        reply = make_message(
            lead, direction="IN", status="RECEIVED", idempotency_key=None, body=text
        )
        item = review.open_item(
            lead,
            reason="hitl.route.price" if intent == "price_request" else "hitl.route.interested",
            priority="HIGH",
            message=reply,
            sentiment=sentiment,
            intent=intent,
            draft=f"Bună ziua, {name}! Revenim imediat cu detalii.",
        )
        ReviewItem.objects.filter(pk=item.pk).update(
            sla_due_at=timezone.now() + timedelta(minutes=30 + n)
        )
        items.append(item)
    return items


@pytest.mark.django_db(transaction=True)
def test_keyboard_approvals_bring_the_next_item_without_a_reload(
    live_server,
    browser_page,  # noqa: F811
    monkeypatch,
):
    monkeypatch.setattr(review_views, "PAGE_SIZE", 2)  # so the third item has to come in
    tenant = make_tenant(name="Agro Browser SRL")
    make_user(tenant, username="vlad", first_name="Vlad", last_name="Ionescu")
    make_user(tenant, username="ana", first_name="Ana", last_name="Pop")
    for n in range(1, 3):
        make_phone(tenant, label=f"Telefon {n}")
    first, second, third, fourth = queue_of(tenant)
    page = browser_page
    log_in(page, live_server.url, "vlad")
    page.goto(f"{live_server.url}/outreach/review/?tab=HIGH")
    url = page.url
    navigations: list[str] = []
    page.on("framenavigated", lambda f: navigations.append(f.url) if f == page.main_frame else None)
    assert page.locator(".review-item").count() == 2
    item = page.locator(f"#item-{first.pk}")
    assert item.locator("[data-trigger]").inner_text().count("Trimiteți-mi oferta") == 1
    assert "Step 2 of 3 · Grain buyers" in item.locator("[data-sequence]").inner_text()
    assert item.locator(".sentiment__tone").inner_text() == "(positive)"
    assert page.locator(f"#item-{third.pk}").count() == 0
    page.screenshot(path=str(SHOTS / "review-queue-en-1366.png"), full_page=True)

    page.keyboard.press("j")  # focus the first item
    page.keyboard.press("a")  # approve its draft
    page.locator(f"#item-{first.pk}").wait_for(state="detached")
    page.locator(f"#item-{third.pk}").wait_for()  # the third came in
    focused = page.evaluate("document.activeElement.id")
    assert focused == f"item-{second.pk}"  # focus moved to the next item
    page.keyboard.press("a")
    page.locator(f"#item-{second.pk}").wait_for(state="detached")
    page.locator(f"#item-{fourth.pk}").wait_for()
    assert page.evaluate("document.activeElement.id") == f"item-{third.pk}"
    assert page.url == url and navigations == []  # no page load at all
    assert page.locator("#review-status").inner_text().startswith("Draft approved")
    assert page.locator("[data-priority=HIGH] .tab__count").inner_text() == "2"
    assert [i.status for i in ReviewItem.objects.order_by("pk")] == [
        "RESOLVED",
        "RESOLVED",
        "OPEN",
        "OPEN",
    ]
    assert Message.objects.filter(direction="OUT", is_manual=True).count() == 2
    page.screenshot(path=str(SHOTS / "review-after-approvals.png"), full_page=True)

    # Bulk: select all on the page and reject them with one note.
    page.get_by_label("Select all on this page").check()
    page.get_by_label("With the selected").select_option("reject")
    page.get_by_label("Note", exact=True).fill("Already answered by phone")
    page.locator("[data-bulk-apply]").click()
    page.wait_for_load_state()
    assert page.get_by_text("2 rejected").is_visible()
    assert set(ReviewItem.objects.values_list("status", flat=True)) == {"RESOLVED", "DISMISSED"}

    # The tab is empty now.
    page.goto(f"{live_server.url}/outreach/review/?tab=HIGH")
    assert page.get_by_text("Nothing to review here.").is_visible()


@pytest.mark.django_db(transaction=True)
def test_an_item_links_to_its_thread_and_reads_in_romanian_on_a_tablet(
    live_server,
    browser_page,  # noqa: F811
):
    tenant = make_tenant(name="Agro Browser SRL")
    make_user(tenant, username="vlad", first_name="Vlad", last_name="Ionescu")
    make_user(tenant, username="ana", first_name="Ana", last_name="Pop")
    items = queue_of(tenant)
    page = browser_page
    log_in(page, live_server.url, "vlad")
    page.goto(f"{live_server.url}/outreach/review/?tab=HIGH")
    complaint = page.locator(f"#item-{items[2].pk}")
    assert complaint.locator(".sentiment__tone").inner_text() == "(negative)"
    assert "sentiment--negative" in complaint.locator(".sentiment").get_attribute("class")
    page.set_viewport_size(TABLET)
    page.reload()
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the review queue is {overflow}px wider than a tablet screen"
    page.screenshot(path=str(SHOTS / "review-queue-en-820.png"), full_page=True)

    page.locator("form.lang button[value=ro]").click()
    page.wait_for_load_state()
    page.screenshot(path=str(SHOTS / "review-queue-ro-820.png"), full_page=True)
    page.set_viewport_size({"width": 1366, "height": 768})
    page.reload()
    page.screenshot(path=str(SHOTS / "review-queue-ro-1366.png"), full_page=True)

    # Teammates: give one item to Ana from its own select.
    item = page.locator(f"#item-{items[0].pk}")
    item.locator("select[name=assignee]").select_option(label="Ana Pop")
    item.locator("select[name=assignee]").locator("xpath=..").locator("button").click()
    page.locator(f"#item-{items[0].pk} .review-item__assignee").get_by_text("Ana Pop").wait_for()
    assert ReviewItem.objects.get(pk=items[0].pk).assignee.username == "ana"

    page.locator(f"#item-{items[1].pk} [data-thread-link]").click()
    page.wait_for_url(f"**/outreach/inbox/{items[1].lead_id}/")


@pytest.mark.django_db(transaction=True)
def test_a_romanian_countdown_keeps_its_words_when_it_ticks(
    live_server,
    browser_page,  # noqa: F811
):
    """The page refreshes the SLA countdowns every minute; on a Romanian page they must
    stay in Romanian ("scadent în 28 min"), not turn into the script's own "28m"."""
    from datetime import time as wall

    # Open every minute of every day: the countdown ticks whenever the test runs.
    tenant = make_tenant(
        name="Agro Ceas SRL",
        working_days=[0, 1, 2, 3, 4, 5, 6],
        holiday_country="",
        window_start=wall(0, 0),
        window_end=wall(23, 59, 59, 999999),
    )
    make_user(tenant, username="vlad")
    items = queue_of(tenant)
    page = browser_page
    page.clock.install()
    log_in(page, live_server.url, "vlad")
    page.goto(f"{live_server.url}/outreach/review/?tab=HIGH")
    page.locator("form.lang button[value=ro]").click()
    page.wait_for_load_state()
    countdown = page.locator(f"#item-{items[0].pk} [data-sla-until]")
    before = countdown.inner_text()
    assert before.startswith("scadent în ") and before.endswith(" min"), before
    page.clock.fast_forward("03:00")
    page.clock.run_for(1000)
    after = countdown.inner_text()
    assert after.startswith("scadent în ") and after.endswith(" min"), after
    assert after != before  # it did tick
