"""Flow 1 and 2 end to end: dispatch → per-phone queues → workers → TimelinesAI's HTTP.

TimelinesAI is faked only at the HTTP boundary (`responses`), answering as docs/providers.md
shows; the broker, the workers and the database are the real ones of the run.
"""

from __future__ import annotations

import json
import re
import threading
from datetime import datetime, timedelta
from urllib.parse import parse_qs, urlsplit
from zoneinfo import ZoneInfo

import pytest
import responses
import time_machine

from outreach.dispatch import dispatch_due
from outreach.models import Channel, Enrollment, Journey, Message
from tests.drain import running_workers, wait_until
from tests.factories import make_outreach_world, make_tenant
from whatsapp.models import QuotaUsage

BASE = "https://app.timelines.ai/integrations/api"
BUCHAREST = ZoneInfo("Europe/Bucharest")
MONDAY_10 = datetime(2026, 11, 23, 10, 0, tzinfo=BUCHAREST)


class FakeTimelinesAI:
    """Answers like TimelinesAI and remembers every chat it opened."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.uids = 0
        self.chats: dict[tuple[str, str], int] = {}  # (account jid, phone) -> chat id

    def uid(self) -> str:
        with self.lock:
            self.uids += 1
            return f"00000000-0000-4000-8000-{self.uids:012d}"

    def send(self, request):
        body = json.loads(request.body.decode("utf-8"))
        jid = body["whatsapp_account_phone"].lstrip("+") + "@s.whatsapp.net"
        with self.lock:
            self.chats.setdefault((jid, body["phone"]), 27_000_000 + len(self.chats))
        return 200, {}, json.dumps({"status": "ok", "data": {"message_uid": self.uid()}})

    def chat_send(self, request):
        return 200, {}, json.dumps({"status": "ok", "data": {"message_uid": self.uid()}})

    def list_chats(self, request):
        query = parse_qs(urlsplit(request.url).query)
        phone, jid = query["phone"][0], query.get("whatsapp_account_id", [""])[0]
        chats = [
            {
                "id": chat_id,
                "name": "Client",
                "phone": p,
                "jid": p.lstrip("+") + "@s.whatsapp.net",
                "is_group": False,
                "closed": False,
                "read": True,
                "labels": [],
                "whatsapp_account_id": account,
                "is_allowed_to_message": True,
                "chat_url": f"https://app.timelines.ai/chat/{chat_id}/messages/",
            }
            for (account, p), chat_id in self.chats.items()
            if p == phone and (not jid or account == jid)
        ]
        payload = {"status": "ok", "data": {"has_more_pages": False, "chats": chats}}
        return 200, {}, json.dumps(payload)


@pytest.mark.own_moment  # travels to its moment first
@pytest.mark.django_db(transaction=True)
def test_three_step_sequence_first_messages_then_follow_ups_in_the_chats(settings):
    settings.PROVIDERS = {
        **settings.PROVIDERS,
        "whatsapp.timelinesai": {
            "BACKEND": "integrations.timelinesai.client.TimelinesAI",
            "OPTIONS": {"api_token": "e2e-token", "base_url": BASE},
        },
    }
    fake = FakeTimelinesAI()
    with (
        time_machine.travel(MONDAY_10, tick=True) as clock,
        responses.RequestsMock(assert_all_requests_are_fired=False) as http,
    ):
        http.add_callback(responses.POST, f"{BASE}/messages", callback=fake.send)
        http.add_callback(
            responses.POST, re.compile(rf"{BASE}/chats/\d+/messages"), callback=fake.chat_send
        )
        http.add_callback(responses.GET, re.compile(rf"{BASE}/chats\?.*"), callback=fake.list_chats)

        tenant = make_tenant()
        world = make_outreach_world(tenant, phones=3, leads=20, steps=3)
        for n, phone in enumerate(world["phones"], 1):
            phone.number, phone.provider = f"+4075000010{n}", "timelinesai"
            phone.account_id = f"4075000010{n}@s.whatsapp.net"
            phone.save()

        with running_workers(count=2, threads=4):
            result = dispatch_due(tenant)
            assert result.dispatched == {Channel.WHATSAPP: 20}
            wait_until(
                lambda: Message.objects.filter(status="SENT").count() == 20, what="20 first sends"
            )
        first_posts = [c for c in http.calls if c.request.url == f"{BASE}/messages"]
        assert len(first_posts) == 20
        leads = {lead.phone: lead for lead in world["leads"]}
        for call in first_posts:
            body = json.loads(call.request.body.decode("utf-8"))
            assert set(body) == {"phone", "text", "whatsapp_account_phone"}
            assert body["whatsapp_account_phone"] in {
                "+40750000101",
                "+40750000102",
                "+40750000103",
            }
            lead = leads[body["phone"]]
            assert lead.name in body["text"] and "Pasul 1" in body["text"]
            assert call.request.headers["Authorization"] == "Bearer e2e-token"
            assert call.request.headers["User-Agent"].startswith("CerniqOutreach/")
        assert set(Journey.objects.values_list("stage", flat=True)) == {"CONTACTED_WA"}
        assert set(Enrollment.objects.values_list("current_step", flat=True)) == {1}
        tuesday = Journey.objects.values_list("next_action_at", flat=True)
        assert all(
            MONDAY_10 + timedelta(days=1) <= t < MONDAY_10 + timedelta(days=1, hours=1)
            for t in tuesday
        )
        assert sum(QuotaUsage.objects.values_list("used", flat=True)) == 20

        # Next working day: step 2 goes into the chats opened yesterday, at no quota cost.
        clock.move_to(MONDAY_10 + timedelta(days=1, hours=1))
        with running_workers(count=2, threads=4):
            result = dispatch_due(tenant)
            assert result.dispatched == {Channel.WHATSAPP: 20}
            wait_until(
                lambda: Message.objects.filter(status="SENT").count() == 40,
                what=lambda: list(
                    Message.objects.exclude(status="SENT").values_list(
                        "status", "error", "scheduled_for"
                    )[:3]
                ),
            )
        chat_posts = [c for c in http.calls if re.search(r"/chats/\d+/messages$", c.request.url)]
        assert len(chat_posts) == 20
        assert all(set(json.loads(c.request.body)) == {"text"} for c in chat_posts)
        assert all("Pasul 2" in json.loads(c.request.body)["text"] for c in chat_posts)
        follow_ups = Message.objects.filter(body__contains="Pasul 2")
        assert set(follow_ups.values_list("quota_cost", flat=True)) == {0}
        # Each follow-up left from the phone that opened the chat.
        for message in follow_ups.select_related("phone"):
            first = Message.objects.get(lead=message.lead, body__contains="Pasul 1")
            assert message.phone_id == first.phone_id and message.provider_thread_id
        assert sum(QuotaUsage.objects.values_list("used", flat=True)) == 20
        assert set(Enrollment.objects.values_list("current_step", flat=True)) == {2}
