"""#24 §5: the chat history on the lead page: the button (any member of the workspace), the
fetch's state while it runs and its outcome after, the history shown as such and in its
place, in the lead page's conversation and the inbox's thread."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
import responses
from django.urls import reverse

from hitl.chat_backfill_run import run
from hitl.models import ChatBackfill
from hitl.tasks import backfill_chat
from tests.factories import make_user
from tests.hitl.chat_history_world import (
    FIRST_UID,
    HISTORY_UIDS,
    PAGES_URL,
    body,
    both_pages,
    contacted,
    serve_pages,
)
from tests.whatsapp.conftest import timelinesai  # noqa: F401 - the real client's backend

Status = ChatBackfill.Status


@pytest.fixture(autouse=True)
def budget(settings):
    settings.TIMELINESAI_HISTORY_REQUESTS_PER_SECOND = 25  # the clock stands still here


@pytest.fixture
def world(tenant, clock, timelinesai):  # noqa: F811
    return contacted(tenant)


@pytest.fixture
def sent(monkeypatch):
    ids: list[int] = []
    monkeypatch.setattr(backfill_chat, "send", ids.append)
    return ids


def lead_page(client, lead) -> str:
    response = client.get(reverse("outreach:lead", args=[lead.pk]))
    assert response.status_code == 200
    return response.content.decode()


def block(html: str) -> str:
    found = re.search(r'<div class="chat-history".*?</div>', html, re.S)  # no div inside
    assert found, "no chat history block"
    return found.group(0)


@pytest.mark.parametrize("role", ["OPERATOR", "MANAGER", "ADMIN"])
def test_a_member_fetches_the_history_from_the_lead_page(
    client, tenant, world, sent, role, django_capture_on_commit_callbacks
):
    user = make_user(tenant, role=role)
    client.force_login(user)
    assert "Fetch the earlier messages" in block(lead_page(client, world.lead))

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("outreach:lead_chat_history", args=[world.lead.pk]), follow=True
        )

    row = ChatBackfill.objects.get()
    assert (row.requested_by, row.status, row.lead) == (user, Status.QUEUED, world.lead)
    assert sent == [row.pk]
    assert response.redirect_chain[-1][0].endswith(
        reverse("outreach:lead", args=[world.lead.pk]) + "#chat-history"
    )
    html = response.content.decode()
    assert "The chat&#x27;s earlier messages are being fetched." in html
    shown = block(html)
    assert "waiting for a worker" in shown
    assert f'hx-get="{reverse("outreach:lead_chat_history", args=[world.lead.pk])}"' in shown
    assert "data-fetch-history" not in shown  # no second press while it runs


def test_the_block_shows_progress_then_the_outcome(client, operator, world, sent):
    client.force_login(operator)
    client.post(reverse("outreach:lead_chat_history", args=[world.lead.pk]))
    row = ChatBackfill.objects.get()
    ChatBackfill.objects.filter(pk=row.pk).update(status=Status.RUNNING, pages=1, stored=2)
    polled = client.get(reverse("outreach:lead_chat_history", args=[world.lead.pk]))
    assert polled.status_code == 200
    assert "fetching: 1 page read, 2 new so far" in polled.content.decode()

    ChatBackfill.objects.filter(pk=row.pk).update(status=Status.QUEUED, pages=0, stored=0)
    with responses.RequestsMock() as http:
        serve_pages(http, *both_pages())
        run(row.pk)

    done = client.get(reverse("outreach:lead_chat_history", args=[world.lead.pk]))
    html = done.content.decode()
    assert 'data-fetched="6" data-stored="4"' in html
    assert "6 messages fetched, 4 new" in html
    assert "The chat&#x27;s first message was reached" in html
    assert "hx-get" not in html  # over: the page stops polling
    assert "Fetch the earlier messages again" in html


def test_a_failed_fetch_says_the_providers_answer(client, operator, world, sent):
    client.force_login(operator)
    client.post(reverse("outreach:lead_chat_history", args=[world.lead.pk]))
    with responses.RequestsMock() as http:
        http.get(PAGES_URL, status=404, json=body("error_chat_not_found.json"))
        run(ChatBackfill.objects.get().pk)

    html = block(lead_page(client, world.lead))
    assert "data-backfill-error" in html
    assert "The provider could not give the history: HTTP 404 RejectedRequest" in html
    assert "not found" in html


def test_a_fault_shows_when_the_fetch_tries_again(client, operator, world, sent, monkeypatch):
    monkeypatch.setattr(backfill_chat, "send_with_options", lambda **kw: None)
    client.force_login(operator)
    client.post(reverse("outreach:lead_chat_history", args=[world.lead.pk]))
    with responses.RequestsMock() as http:
        http.get(PAGES_URL, status=500, json=body("error_internal.json"))
        backfill_chat(ChatBackfill.objects.get().pk)

    html = block(lead_page(client, world.lead))
    assert "data-backfill-retry" in html and "hx-get" in html  # still polled
    assert "next try at 23/11/2026, 10:00 (The provider answered: HTTP 500" in html
    assert "Internal server error" in html


def test_history_shows_as_such_and_in_its_place(client, operator, world, sent):
    client.force_login(operator)
    client.post(reverse("outreach:lead_chat_history", args=[world.lead.pk]))
    with responses.RequestsMock() as http:
        serve_pages(http, *both_pages())
        run(ChatBackfill.objects.get().pk)
    order = dict(world.lead.messages.values_list("provider_message_id", "pk"))  # uid → row id

    page = lead_page(client, world.lead)
    rows = re.findall(r'<tr data-message="(\d+)">(.*?)</tr>', page, re.S)
    assert [int(pk) for pk, _row in rows] == [order[uid] for uid in [*HISTORY_UIDS, FIRST_UID]]
    marked = [int(pk) for pk, row in rows if "data-history" in row]
    assert marked == [order[uid] for uid in HISTORY_UIDS]  # ours of today is not history

    thread = client.get(reverse("outreach:inbox_thread", args=[world.lead.pk]))
    bubbles = re.findall(
        r'data-message="(\d+)" data-direction="\w+">(.*?)</time>\s*'
        r'(<span class="badge st-muted" data-history)?',
        thread.content.decode(),
        re.S,
    )
    assert [int(pk) for pk, _b, _h in bubbles] == [order[uid] for uid in [*HISTORY_UIDS, FIRST_UID]]
    assert [bool(h) for _pk, _b, h in bubbles] == [True, True, True, True, False]


def test_another_workspace_cannot_see_or_start_it(client, world, sent, other_tenant):
    stranger = make_user(other_tenant)
    client.force_login(stranger)
    url = reverse("outreach:lead_chat_history", args=[world.lead.pk])
    assert client.get(url).status_code == 404
    assert client.post(url).status_code == 404
    assert not ChatBackfill.objects.exists() and sent == []


def test_signed_out_nobody_starts_it(client, world, sent):
    response = client.post(reverse("outreach:lead_chat_history", args=[world.lead.pk]))
    assert response.status_code == 302 and "/login" in response["Location"]
    assert not ChatBackfill.objects.exists()


def test_no_button_for_an_erased_person_and_a_refusal_if_pressed(client, operator, world, sent):
    world.lead.erased_at = datetime(2026, 11, 23, 7, 0, tzinfo=UTC)
    world.lead.save()
    client.force_login(operator)
    assert 'id="chat-history"' not in lead_page(client, world.lead)

    response = client.post(reverse("outreach:lead_chat_history", args=[world.lead.pk]), follow=True)
    assert "This person was erased: their history is not fetched." in response.content.decode()
    assert not ChatBackfill.objects.exists()


def test_no_block_without_a_known_chat(client, operator, tenant, clock, timelinesai):  # noqa: F811
    from tests.factories import make_lead

    client.force_login(operator)
    assert 'id="chat-history"' not in lead_page(client, make_lead(tenant))
