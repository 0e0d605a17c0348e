"""Delivery status and phone health are polled, and only ever move forward."""

from __future__ import annotations

from datetime import timedelta

import responses

from cerniq import reasons
from cerniq.models import Alert
from integrations.timelinesai.status_sync import (
    newest_status,
    sync_delivery_status,
    sync_phone_status,
)
from outreach.models import Message
from outreach.reasons import STATUS_UNKNOWN
from tests.factories import make_lead, make_message, make_phone
from tests.whatsapp.conftest import BASE, MONDAY_10, api_body
from whatsapp.models import Phone


def sent_message(tenant, phone, uid, status="SENT"):
    return make_message(
        make_lead(tenant),
        phone=phone,
        status=status,
        provider_message_id=uid,
        sent_at=MONDAY_10 - timedelta(hours=1),
    )


def history(*statuses):
    return {
        "status": "ok",
        "data": [{"status": s, "timestamp": "2026-11-23 09:00:00 +0200"} for s in statuses],
    }


def test_newest_status_is_case_insensitive_and_ignores_unknown_values():
    assert newest_status([{"status": "Sent"}, {"status": "DELIVERED"}, {"status": "weird"}]) == (
        "DELIVERED"
    )
    assert newest_status([{"status": "Not connected"}]) is None


@responses.activate
def test_sync_moves_status_forward_never_backwards(tenant, clock, timelinesai):
    phone = make_phone(tenant, provider="timelinesai")
    delivered = sent_message(tenant, phone, "uid-1")
    read = sent_message(tenant, phone, "uid-2", status="DELIVERED")
    stays = sent_message(tenant, phone, "uid-3", status="DELIVERED")
    old = sent_message(tenant, phone, "uid-4")
    Message.objects.filter(pk=old.pk).update(sent_at=MONDAY_10 - timedelta(days=5))
    responses.get(f"{BASE}/messages/uid-1/status_history", json=history("Sent", "Delivered"))
    responses.get(
        f"{BASE}/messages/uid-2/status_history", json=history("sent", "delivered", "read")
    )
    responses.get(f"{BASE}/messages/uid-3/status_history", json=history("Sent"))  # lagging
    assert sync_delivery_status().moved == 2
    statuses = dict(Message.objects.values_list("provider_message_id", "status"))
    assert statuses == {
        "uid-1": "DELIVERED",
        "uid-2": "READ",
        "uid-3": "DELIVERED",
        "uid-4": "SENT",
    }
    assert Message.objects.get(pk=read.pk).read_at == MONDAY_10
    assert delivered.pk and stays.pk
    assert len(responses.calls) == 3  # old messages are not polled


NOT_FOUND = {"status": "error", "error_code": "not_found", "message": "Not found"}


@responses.activate
def test_a_message_the_provider_no_longer_knows_is_recorded_and_the_rest_move_on(
    tenant, clock, timelinesai
):
    """The oldest send is unknown at the provider (404): it used to stop every poll, so no
    newer message moved for two days. It is skipped, marked, and not asked about again."""
    phone = make_phone(tenant, provider="timelinesai")
    gone = sent_message(tenant, phone, "uid-gone")
    Message.objects.filter(pk=gone.pk).update(sent_at=MONDAY_10 - timedelta(hours=2))
    for n in (1, 2):
        sent_message(tenant, phone, f"uid-{n}")
    responses.get(f"{BASE}/messages/uid-gone/status_history", json=NOT_FOUND, status=404)
    responses.get(f"{BASE}/messages/uid-1/status_history", json=history("Sent", "Delivered"))
    responses.get(f"{BASE}/messages/uid-2/status_history", json=history("Sent", "Read"))

    result = sync_delivery_status()

    assert (result.moved, result.unknown, result.failed, result.stopped) == (2, 1, 0, "")
    statuses = dict(Message.objects.values_list("provider_message_id", "status"))
    assert statuses == {"uid-gone": "SENT", "uid-1": "DELIVERED", "uid-2": "READ"}
    gone.refresh_from_db()
    assert gone.status == "SENT" and reasons.parse(gone.error)[0] == STATUS_UNKNOWN
    assert "404" in str(reasons.render(gone.error))
    polled = len(responses.calls)
    assert sync_delivery_status().unknown == 0
    assert "uid-gone" not in " ".join(c.request.url for c in responses.calls[polled:])


@responses.activate
def test_phone_status_follows_the_accounts_list(tenant, clock, timelinesai):
    active = make_phone(tenant, provider="timelinesai", number="+40740000101")
    gone = make_phone(tenant, provider="timelinesai", number="+40740000102")
    back = make_phone(tenant, provider="timelinesai", number="+40740000103", status="OFFLINE")
    accounts = api_body("whatsapp_accounts.json")
    accounts["data"]["whatsapp_accounts"].append(
        {"id": "40740000103@s.whatsapp.net", "phone": "+40740000103", "status": "active"}
    )
    responses.get(f"{BASE}/whatsapp_accounts", json=accounts)
    changes = sync_phone_status()
    assert changes == [
        "+40740000102: ACTIVE → OFFLINE (disconnected)",
        "+40740000103: OFFLINE → ACTIVE",
    ]
    status = dict(Phone.objects.values_list("number", "status"))
    assert status == {active.number: "ACTIVE", gone.number: "OFFLINE", back.number: "ACTIVE"}
    assert Alert.objects.get(kind="PHONE_OFFLINE").subject == "phone:+40740000102"
    assert sync_phone_status() == []  # nothing changes twice
