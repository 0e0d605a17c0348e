"""`responses` callbacks answering as Instantly does (docs/providers.md §2.2–2.3): leads/add with
its documented summary, leads/list with `{items, next_starting_after}`."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable

from tests.integrations.instantly.conftest import BASE, CAMPAIGN_ID, api_body

ADD_URL = f"{BASE}/api/v2/leads/add"
LIST_URL = f"{BASE}/api/v2/leads/list"
CAMPAIGNS_URL = f"{BASE}/api/v2/campaigns"
ACTIVATE_URL = f"{BASE}/api/v2/campaigns/{CAMPAIGN_ID}/activate"


def add_answer(leads: list[dict], created: list[int], **counts: int) -> dict:
    """The documented `POST /api/v2/leads/add` answer creating the leads at `created`."""
    rows = [{"index": n, "id": str(uuid.uuid4()), "email": leads[n]["email"]} for n in created]
    return {
        "status": "success",
        "total_sent": len(leads),
        "leads_uploaded": len(rows),
        "in_blocklist": counts.get("in_blocklist", 0),
        "blocklist_used": None,
        "duplicated_leads": counts.get("duplicated_leads", 0),
        "skipped_count": counts.get("skipped_count", 0),
        "invalid_email_count": counts.get("invalid_email_count", 0),
        "incomplete_count": 0,
        "duplicate_email_count": 0,
        "remaining_in_plan": None,
        "created_leads": rows,
    }


def leads_add(refuse: Callable[[dict], bool] = lambda lead: False, **counts: int):
    """A leads/add callback creating every lead `refuse` does not pick."""

    def callback(request):
        leads = json.loads(request.body)["leads"]
        created = [n for n, lead in enumerate(leads) if not refuse(lead)]
        return 200, {}, json.dumps(add_answer(leads, created, **counts))

    return callback


def listed_lead(email: str, *, key: str | None, campaign: str = CAMPAIGN_ID, lead_id="") -> dict:
    """A Lead as `POST /api/v2/leads/list` returns it (custom variables in `payload`)."""
    payload = {"subject_1": "Ofertă", "body_1": "Text"}
    if key is not None:
        payload["cerniq_key"] = key
    return {
        "id": lead_id or str(uuid.uuid4()),
        "email": email,
        "campaign": campaign,
        "status": 1,
        "payload": payload,
        "timestamp_created": "2026-11-23T08:00:00.000Z",
    }


def mock_campaign_creation(rsps) -> None:
    rsps.post(CAMPAIGNS_URL, json=api_body("campaign_create"))
    rsps.post(ACTIVATE_URL, json=api_body("campaign_activate"))


def calls_to(rsps, url: str) -> list:
    return [call for call in rsps.calls if call.request.url.split("?")[0] == url]


def body(call) -> dict:
    return json.loads(call.request.body)
