"""InstantlyClient against faked HTTP (`responses`): paths, bodies, headers, the ≤1000 lead
rule, the error table (docs/providers.md §2.5) and the shared back-off after a 429. Answers are
the recorded fixtures in integrations/instantly/fixtures/api/, shaped as Instantly's OpenAPI."""

from __future__ import annotations

import json
from datetime import date
from urllib.parse import parse_qsl, urlsplit

import pytest
import requests

from cerniq.provider_errors import (
    AuthenticationFailed,
    PermanentProviderError,
    ProviderTimeout,
    ProviderUnavailable,
    RateLimited,
    RejectedRequest,
)
from cerniq.retry import decide
from integrations.instantly.client import MAX_LEADS_PER_CALL, InstantlyClient
from tests.integrations.instantly.conftest import BASE, CAMPAIGN_ID, LEAD_EMAIL, api_body

LEAD = {"email": LEAD_EMAIL, "custom_variables": {"subject_1": "Bună ziua", "body_1": "Text"}}


def sent_json(call) -> dict:
    return json.loads(call.request.body)


def query(call) -> list[tuple[str, str]]:
    return parse_qsl(urlsplit(call.request.url).query)


def test_it_sends_the_bearer_key_and_utf8_json(rsps, instantly, api_key):
    rsps.post(f"{BASE}/api/v2/campaigns", json=api_body("campaign_create"))
    campaign = instantly.create_campaign({"name": "Ferme", "campaign_schedule": {"schedules": []}})
    assert campaign["id"] == CAMPAIGN_ID and campaign["status"] == 0
    request = rsps.calls[0].request
    assert request.headers["Authorization"] == f"Bearer {api_key}"
    assert request.headers["Content-Type"] == "application/json; charset=utf-8"
    assert sent_json(rsps.calls[0])["name"] == "Ferme"


def test_campaign_calls_use_the_documented_paths(rsps, instantly):
    rsps.get(f"{BASE}/api/v2/campaigns/{CAMPAIGN_ID}", json=api_body("campaign_get"))
    rsps.post(f"{BASE}/api/v2/campaigns/{CAMPAIGN_ID}/activate", json=api_body("campaign_activate"))
    rsps.post(f"{BASE}/api/v2/campaigns/{CAMPAIGN_ID}/pause", json=api_body("campaign_pause"))
    assert instantly.get_campaign(CAMPAIGN_ID)["status"] == 1
    assert instantly.activate_campaign(CAMPAIGN_ID)["status"] == 1
    assert instantly.pause_campaign(CAMPAIGN_ID)["status"] == 2
    assert [c.request.method for c in rsps.calls] == ["GET", "POST", "POST"]


def test_an_id_that_is_not_an_instantly_id_is_refused_before_any_call(rsps, instantly):
    with pytest.raises(RejectedRequest):
        instantly.get_campaign("../webhooks")
    assert not rsps.calls


@pytest.mark.parametrize(
    ("fixture", "reason"),
    [
        ("sending_status_healthy", "healthy"),
        ("sending_status_draft", "campaign_draft"),
        ("sending_status_out_of_schedule", "out_of_schedule"),
        ("sending_status_no_data", ""),
    ],
)
def test_sending_status_reads_diagnostics_then_summary(rsps, instantly, fixture, reason):
    rsps.get(f"{BASE}/api/v2/campaigns/{CAMPAIGN_ID}/sending-status", json=api_body(fixture))
    assert instantly.sending_status(CAMPAIGN_ID) == reason


def test_analytics_passes_id_and_dates_and_returns_the_campaigns_row(rsps, instantly):
    rsps.get(f"{BASE}/api/v2/campaigns/analytics", json=api_body("analytics"))
    row = instantly.campaign_analytics(CAMPAIGN_ID, start=date(2026, 10, 1), end=date(2026, 10, 31))
    assert row["emails_sent_count"] == 180 and row["bounced_count"] == 4
    assert query(rsps.calls[0]) == [
        ("id", CAMPAIGN_ID),
        ("start_date", "2026-10-01"),
        ("end_date", "2026-10-31"),
    ]


def test_analytics_before_the_first_send_is_none(rsps, instantly):
    rsps.get(f"{BASE}/api/v2/campaigns/analytics", json=api_body("analytics_empty"))
    assert instantly.campaign_analytics(CAMPAIGN_ID) is None


def test_daily_analytics(rsps, instantly):
    rsps.get(f"{BASE}/api/v2/campaigns/analytics/daily", json=api_body("analytics_daily"))
    days = instantly.daily_analytics(CAMPAIGN_ID, start=date(2026, 10, 6))
    assert [d["sent"] for d in days] == [40, 38]
    assert ("campaign_id", CAMPAIGN_ID) in query(rsps.calls[0])


def test_add_leads_posts_campaign_id_and_skips_leads_already_in_the_workspace(rsps, instantly):
    rsps.post(f"{BASE}/api/v2/leads/add", json=api_body("leads_add"))
    result = instantly.add_leads(CAMPAIGN_ID, [LEAD] * 4)
    body = sent_json(rsps.calls[0])
    assert body["campaign_id"] == CAMPAIGN_ID and "campaign" not in body
    assert body["skip_if_in_workspace"] is True and len(body["leads"]) == 4
    assert result.uploaded == 2 and result.skipped == 1 and result.in_blocklist == 1
    assert result.id_by_index() == {
        0: "019ffad2-9c4e-7be6-8364-ed4a16affca8",
        3: "019ffad2-9c4e-7be6-8364-ed4b2bc8b6a5",
    }
    assert result.created[0].email == LEAD_EMAIL and result.remaining_in_plan == 9998


def test_add_leads_refuses_more_than_1000_without_calling(rsps, instantly):
    rsps.post(f"{BASE}/api/v2/leads/add", json=api_body("leads_add"))
    instantly.add_leads(CAMPAIGN_ID, [LEAD] * MAX_LEADS_PER_CALL)  # exactly 1000 is fine
    with pytest.raises(RejectedRequest, match="at most 1000"):
        instantly.add_leads(CAMPAIGN_ID, [LEAD] * (MAX_LEADS_PER_CALL + 1))
    with pytest.raises(RejectedRequest):
        instantly.add_leads(CAMPAIGN_ID, [])
    assert len(rsps.calls) == 1


@pytest.mark.parametrize(
    "lead",
    [{"first_name": "Ion"}, {"email": "not-an-address"}, {**LEAD, "custom_variables": {"x": [1]}}],
)
def test_add_leads_refuses_a_lead_without_address_or_with_a_nested_variable(rsps, instantly, lead):
    with pytest.raises(RejectedRequest):
        instantly.add_leads(CAMPAIGN_ID, [lead])
    assert not rsps.calls


def test_update_interest_status_is_accepted_with_202(rsps, instantly):
    rsps.post(
        f"{BASE}/api/v2/leads/update-interest-status",
        json=api_body("interest_status_accepted"),
        status=202,
    )
    message = instantly.update_interest_status(LEAD_EMAIL, 1, campaign_id=CAMPAIGN_ID)
    assert "background job" in message
    assert sent_json(rsps.calls[0]) == {
        "lead_email": LEAD_EMAIL,
        "interest_value": 1,
        "campaign_id": CAMPAIGN_ID,
    }


def test_reply_posts_in_the_thread_of_the_email(rsps, instantly):
    rsps.post(f"{BASE}/api/v2/emails/reply", json=api_body("email_reply"))
    uuid = "019ffad3-4b5c-7d6e-8f70-8192a3b4c5d6"
    email = instantly.reply(
        reply_to_uuid=uuid, eaccount="vanzari@cerniq-mail.ro", subject="Re: Irigații", text="Da"
    )
    assert email["thread_id"] == uuid
    assert sent_json(rsps.calls[0]) == {
        "reply_to_uuid": uuid,
        "eaccount": "vanzari@cerniq-mail.ro",
        "subject": "Re: Irigații",
        "body": {"text": "Da"},
    }
    with pytest.raises(RejectedRequest):
        instantly.reply(reply_to_uuid=uuid, eaccount="a@b.ro", subject="x")


def test_recent_emails_reads_one_page_of_the_leads_non_campaign_emails(rsps, instantly):
    rsps.get(f"{BASE}/api/v2/emails", json=api_body("emails_list"))
    items = instantly.recent_emails(lead=LEAD_EMAIL, eaccount="vanzari@cerniq-mail.ro")
    assert [item["id"] for item in items] == [i["id"] for i in api_body("emails_list")["items"]]
    assert len(rsps.calls) == 1  # one page only: the endpoint allows 20 calls a minute
    query = dict(parse_qsl(urlsplit(rsps.calls[0].request.url).query))
    assert query == {
        "lead": LEAD_EMAIL,
        "eaccount": "vanzari@cerniq-mail.ro",
        "email_type": "manual",
        "sort_order": "desc",
        "limit": "20",
    }
    rsps.get(f"{BASE}/api/v2/emails", json={"data": []})
    with pytest.raises(ProviderUnavailable, match="no items list"):
        instantly.recent_emails(lead=LEAD_EMAIL, eaccount="vanzari@cerniq-mail.ro")


def test_webhooks_are_listed_over_every_page_created_and_deleted(rsps, instantly):
    page_one = api_body("webhooks_list")
    page_one["next_starting_after"] = page_one["items"][-1]["id"]
    rsps.get(f"{BASE}/api/v2/webhooks", json=page_one)
    rsps.get(f"{BASE}/api/v2/webhooks", json=api_body("webhooks_list_empty"))
    assert len(instantly.list_webhooks()) == 2
    assert ("starting_after", page_one["next_starting_after"]) in query(rsps.calls[1])

    rsps.post(f"{BASE}/api/v2/webhooks", json=api_body("webhook_create"))
    instantly.create_webhook(
        target_hook_url="https://x.ro/webhooks/instantly/t/", headers={"x-webhook-secret": "s"}
    )
    assert sent_json(rsps.calls[2]) == {
        "target_hook_url": "https://x.ro/webhooks/instantly/t/",
        "event_type": "all_events",
        "headers": {"x-webhook-secret": "s"},
    }
    hook_id = api_body("webhook_create")["id"]
    rsps.delete(f"{BASE}/api/v2/webhooks/{hook_id}", json=api_body("webhook_delete"))
    assert instantly.delete_webhook(hook_id)["id"] == hook_id


# --- errors ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "fixture", "error", "code"),
    [
        (400, "error_400", RejectedRequest, "bad_request"),
        (401, "error_401", AuthenticationFailed, "unauthorized"),
        (402, "error_402", RejectedRequest, "payment_required"),
        (403, "error_403", AuthenticationFailed, "forbidden"),
        (404, "error_404", RejectedRequest, "not_found"),
        (500, "error_500", ProviderUnavailable, "internal_server_error"),
    ],
)
def test_error_answers_map_to_the_retry_table(rsps, instantly, status, fixture, error, code):
    rsps.get(f"{BASE}/api/v2/campaigns/{CAMPAIGN_ID}", json=api_body(fixture), status=status)
    with pytest.raises(error) as raised:
        instantly.get_campaign(CAMPAIGN_ID)
    assert raised.value.status_code == status and raised.value.error_code == code
    assert raised.value.provider_message == api_body(fixture)["message"]
    permanent = isinstance(raised.value, PermanentProviderError)
    assert permanent == (status < 500)
    assert decide(raised.value, 1).give_up == permanent


def test_no_paid_plan_is_permanent_and_says_so(rsps, instantly):
    rsps.post(f"{BASE}/api/v2/leads/add", json=api_body("error_402"), status=402)
    with pytest.raises(RejectedRequest, match="paid plan"):
        instantly.add_leads(CAMPAIGN_ID, [LEAD])


def test_a_5xx_answer_to_a_post_is_uncertain_and_to_a_get_is_not(rsps, instantly):
    rsps.post(f"{BASE}/api/v2/campaigns", json=api_body("error_500"), status=500)
    rsps.get(f"{BASE}/api/v2/campaigns/{CAMPAIGN_ID}", body="<html>bad gateway</html>", status=502)
    with pytest.raises(ProviderUnavailable) as post:
        instantly.create_campaign({"name": "x", "campaign_schedule": {"schedules": []}})
    with pytest.raises(ProviderUnavailable) as get:
        instantly.get_campaign(CAMPAIGN_ID)
    assert post.value.uncertain and not get.value.uncertain
    assert get.value.error_code == "http_502"


def test_a_read_timeout_is_uncertain_and_a_connect_timeout_never_reached_instantly(rsps, instantly):
    rsps.post(f"{BASE}/api/v2/campaigns", body=requests.exceptions.ReadTimeout("slow"))
    rsps.get(f"{BASE}/api/v2/campaigns/{CAMPAIGN_ID}", body=requests.exceptions.ConnectTimeout())
    with pytest.raises(ProviderTimeout) as read:
        instantly.create_campaign({"name": "x", "campaign_schedule": {"schedules": []}})
    # As for every provider (cerniq.provider_http): the request never left.
    with pytest.raises(ProviderUnavailable) as connect:
        instantly.get_campaign(CAMPAIGN_ID)
    assert read.value.uncertain  # the campaign may exist: no idempotency at Instantly
    assert not connect.value.uncertain


def test_a_2xx_that_is_not_json_is_unavailable(rsps, instantly):
    rsps.get(f"{BASE}/api/v2/campaigns/{CAMPAIGN_ID}", body="<html>maintenance</html>")
    with pytest.raises(ProviderUnavailable):
        instantly.get_campaign(CAMPAIGN_ID)


def test_a_429_raises_rate_limited_and_every_process_backs_off(rsps, instantly, api_key):
    rsps.get(
        f"{BASE}/api/v2/campaigns/{CAMPAIGN_ID}",
        json=api_body("error_429"),
        status=429,
        headers={"Retry-After": "7"},
    )
    with pytest.raises(RateLimited) as first:
        instantly.get_campaign(CAMPAIGN_ID)
    assert first.value.retry_after == 7 and first.value.status_code == 429
    # Another client of the same workspace (another worker) does not call at all.
    other = InstantlyClient(api_key=api_key)
    with pytest.raises(RateLimited) as second:
        other.get_campaign(CAMPAIGN_ID)
    assert 1 <= second.value.retry_after <= 7 and second.value.status_code is None
    assert len(rsps.calls) == 1


def test_a_429_without_retry_after_waits_a_minute(rsps, instantly):
    rsps.get(f"{BASE}/api/v2/campaigns/{CAMPAIGN_ID}", json=api_body("error_429"), status=429)
    with pytest.raises(RateLimited) as raised:
        instantly.get_campaign(CAMPAIGN_ID)
    assert raised.value.retry_after == 60
    assert decide(raised.value, 1).retry_in.total_seconds() == 60


def test_a_missing_key_fails_before_any_call(rsps):
    with pytest.raises(AuthenticationFailed, match="INSTANTLY_API_KEY"):
        InstantlyClient(api_key="").get_campaign(CAMPAIGN_ID)
    assert not rsps.calls


def test_the_key_is_never_in_repr_or_logs(rsps, instantly, api_key, caplog):
    rsps.get(f"{BASE}/api/v2/campaigns/{CAMPAIGN_ID}", json=api_body("error_401"), status=401)
    with caplog.at_level("INFO"), pytest.raises(AuthenticationFailed):
        instantly.get_campaign(CAMPAIGN_ID)
    assert api_key not in repr(instantly) and api_key not in caplog.text


def test_find_leads_posts_contacts_and_campaign_and_pages_in_the_body(rsps, instantly):
    lead = {"id": "019ffad2-9c4e-7be6-8364-ed4a16affca8", "email": LEAD_EMAIL, "payload": {}}
    rsps.post(
        f"{BASE}/api/v2/leads/list",
        json={"items": [lead], "next_starting_after": lead["id"]},
    )
    rsps.post(f"{BASE}/api/v2/leads/list", json={"items": [], "next_starting_after": None})
    found = instantly.find_leads(contacts=[LEAD_EMAIL, LEAD_EMAIL], campaign_id=CAMPAIGN_ID)
    assert found == [lead]
    first, second = (sent_json(call) for call in rsps.calls)
    assert first == {"contacts": [LEAD_EMAIL], "campaign": CAMPAIGN_ID, "limit": 100}
    assert second == {**first, "starting_after": lead["id"]}


def test_find_leads_asks_for_at_most_100_addresses_at_a_time(rsps, instantly):
    rsps.post(f"{BASE}/api/v2/leads/list", json={"items": [], "next_starting_after": None})
    instantly.find_leads(contacts=[f"a{n}@b.ro" for n in range(150)])
    assert [len(sent_json(call)["contacts"]) for call in rsps.calls] == [100, 50]
    assert "campaign" not in sent_json(rsps.calls[0])


def test_find_campaigns_searches_by_name(rsps, instantly):
    rsps.get(f"{BASE}/api/v2/campaigns", json={"items": [], "next_starting_after": None})
    assert instantly.find_campaigns("Agro Demo · Ferme") == []
    assert ("search", "Agro Demo · Ferme") in query(rsps.calls[0])
    assert ("limit", "100") in query(rsps.calls[0])
