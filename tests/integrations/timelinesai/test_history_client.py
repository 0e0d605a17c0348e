"""#24 §5: reading a chat's history from TimelinesAI (`TimelinesAI.chat_history`) against
faked HTTP, with the recorded pages `chat_history_page1.json` / `_page2.json` shaped as
docs/providers.md §1.3 gives `GET /chats/{chat_id}/messages`: `{"status": "ok", "data":
{"has_more_pages", "messages": [MessageInfo…]}}`, 50 a page, `page` from 1, newest first with
`sorting_order=desc`, `after` a datetime.

The one paging loop (`_message_pages`) serves `find_sent` too: its own tests
(test_client.py) still read at most three pages.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from urllib.parse import parse_qsl, urlsplit

import pytest
import responses
import time_machine
from responses import matchers

from cerniq.provider_errors import RateLimited, RejectedRequest
from integrations.timelinesai.client import TimelinesAI
from integrations.timelinesai.history import HistoryLimiter
from tests.whatsapp.conftest import API_FIXTURES
from whatsapp.backends import PastMessage

BASE = "https://app.timelines.ai/integrations/api"
TOKEN = "4d2d0239-e28c-4f4a-8a4d-3a3ca40056b8"
CHAT_ID = "27616435"
PAGES = f"{BASE}/chats/{CHAT_ID}/messages"
SINCE = datetime(2025, 11, 23, 8, 0, tzinfo=UTC)
AFTER = "2025-11-22 18:00:00"  # SINCE less the 14 hours of margin, as TimelinesAI reads it


def body(name: str) -> dict:
    return json.loads((API_FIXTURES / name).read_text(encoding="utf-8"))


def query(call) -> dict[str, str]:
    return dict(parse_qsl(urlsplit(call.request.url).query))


def page_params(page: int) -> dict[str, str]:
    return {"after": AFTER, "sorting_order": "desc", "page": str(page)}


@pytest.fixture
def rsps():
    with responses.RequestsMock(assert_all_requests_are_fired=True) as mock:
        yield mock


@pytest.fixture
def client(settings):
    settings.TIMELINESAI_HISTORY_REQUESTS_PER_SECOND = 25
    return TimelinesAI(api_token=TOKEN)


def register_pages(rsps, *names: str) -> None:
    for number, name in enumerate(names, start=1):
        rsps.get(PAGES, json=body(name), match=[matchers.query_param_matcher(page_params(number))])


def test_pages_newest_first_until_the_provider_has_no_more(rsps, client):
    register_pages(rsps, "chat_history_page1.json", "chat_history_page2.json")

    pages = list(client.chat_history(chat_id=CHAT_ID, since=SINCE))

    assert [(p.number, p.seen, p.has_more) for p in pages] == [(1, 4, True), (2, 2, False)]
    assert [query(call) for call in rsps.calls] == [page_params(1), page_params(2)]
    for call in rsps.calls:
        assert call.request.headers["Authorization"] == f"Bearer {TOKEN}"
        assert urlsplit(call.request.url).path == f"/integrations/api/chats/{CHAT_ID}/messages"


def test_each_chat_message_in_both_directions_and_nothing_else(rsps, client):
    register_pages(rsps, "chat_history_page1.json", "chat_history_page2.json")

    first, second = client.chat_history(chat_id=CHAT_ID, since=SINCE)

    # Page 1 holds a team note and a call too: not the conversation with the person.
    ours, theirs = first.messages
    assert ours == PastMessage(
        provider_message_id="8d2e4f60-1a3b-4c5d-8e9f-a0b1c2d3e4f5",
        chat_id=CHAT_ID,
        from_me=True,
        text="Da, vă trimit oferta mâine dimineață.",
        sent_at=datetime.fromisoformat("2026-11-20T16:20:45+02:00"),
        our_number="+40740000101",
        contact_phone="+40722000111",
        status="Read",
        origin="synced from WhatsApp",
    )
    assert (theirs.from_me, theirs.our_number, theirs.contact_phone) == (
        False,
        "+40740000101",
        "+40722000111",
    )
    assert theirs.text.startswith("Bună ziua, mai aveți sămânță de floarea-soarelui?")
    assert theirs.status == ""  # an inbound message has no delivery state of ours
    invoice = second.messages[0]
    # The file's name is kept; its link (which grants access to it) is not.
    assert invoice.attachments == ({"filename": "factura-2025.pdf"},)
    assert "files" not in json.dumps(invoice.attachments)


def test_pages_are_fetched_only_as_the_caller_asks_for_them(rsps, client):
    register_pages(rsps, "chat_history_page1.json")

    pages = client.chat_history(chat_id=CHAT_ID, since=SINCE)
    assert len(rsps.calls) == 0  # nothing before the first page is wanted
    first = next(pages)
    pages.close()  # the caller's bound: no second request

    assert first.has_more and len(rsps.calls) == 1


def test_a_fetch_continues_from_the_page_it_reached(rsps, client):
    rsps.get(
        PAGES,
        json=body("chat_history_page2.json"),
        match=[matchers.query_param_matcher(page_params(2))],
    )

    (page,) = client.chat_history(chat_id=CHAT_ID, since=SINCE, start_page=2)

    assert (page.number, page.has_more, len(rsps.calls)) == (2, False, 1)


@pytest.mark.parametrize("chat_id", ["", "27616435/../1", "abc", None])
def test_a_bad_chat_id_is_refused_before_any_request(rsps, client, chat_id):
    with pytest.raises(RejectedRequest, match="chat_id"):
        next(client.chat_history(chat_id=chat_id, since=SINCE))
    assert len(rsps.calls) == 0


def test_a_naive_since_is_refused(rsps, client):
    with pytest.raises(ValueError, match="timezone-aware"):
        next(client.chat_history(chat_id=CHAT_ID, since=datetime(2026, 1, 1)))  # noqa: DTZ001 - on purpose


def test_without_a_request_slot_no_request_is_made(rsps, client, monkeypatch):
    """The workspace's history budget for this second is spent (another worker took it):
    RateLimited, the retry table's 429 row, and TimelinesAI is not asked."""
    with time_machine.travel(datetime(2026, 11, 23, 8, 0, tzinfo=UTC), tick=False):
        HistoryLimiter(TOKEN, per_second=1).acquire()  # the other worker's request
        monkeypatch.setattr(
            client, "_history_limiter", lambda: HistoryLimiter(TOKEN, per_second=1, max_wait=0)
        )
        with pytest.raises(RateLimited, match="no request slot") as raised:
            next(client.chat_history(chat_id=CHAT_ID, since=SINCE))
    assert raised.value.retry_after == 1
    assert len(rsps.calls) == 0


def test_a_429_makes_every_fetch_of_the_workspace_wait(rsps, client):
    rsps.get(
        PAGES,
        status=429,
        json=body("error_rate_limited.json"),
        headers={"Retry-After": "30"},
    )
    with pytest.raises(RateLimited) as first:
        next(client.chat_history(chat_id=CHAT_ID, since=SINCE))
    assert first.value.retry_after == 30

    # The next fetch (any chat of this workspace) waits without asking TimelinesAI.
    with pytest.raises(RateLimited, match="backing off") as second:
        next(TimelinesAI(api_token=TOKEN).chat_history(chat_id="27616436", since=SINCE))
    assert 0 < second.value.retry_after <= 30
    assert len(rsps.calls) == 1


def test_the_budget_setting_is_checked(client, settings):
    from django.core.exceptions import ImproperlyConfigured

    settings.TIMELINESAI_HISTORY_REQUESTS_PER_SECOND = 40
    with pytest.raises(ImproperlyConfigured, match="TIMELINESAI_HISTORY_REQUESTS_PER_SECOND"):
        next(client.chat_history(chat_id=CHAT_ID, since=SINCE))
