"""The Mailchimp client against its HTTP (recorded answers, responses): every call we make,
its exact URL, method, Basic auth and body; Mailchimp's problem+json rows before the generic
ones; the key's data centre naming the host."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
import requests

from cerniq import retry
from cerniq.provider_errors import (
    AuthenticationFailed,
    ProviderTimeout,
    ProviderUnavailable,
    RateLimited,
    RejectedRequest,
)
from integrations.mailchimp import config
from integrations.mailchimp.client import MailchimpClient, MemberKeptOut, subscriber_hash
from tests.integrations.mailchimp.conftest import (
    API_KEY,
    AUTH,
    BASE,
    EMAIL,
    HASH,
    LIST_ID,
    api_body,
    member_url,
    problem,
)


def sent(call) -> dict:
    assert call.request.headers["Authorization"] == AUTH
    return json.loads(call.request.body)


def test_the_subscriber_hash_is_the_md5_of_the_trimmed_lower_cased_address():
    assert subscriber_hash("  Ion.Popescu@AgroFerma-Example.ro ") == subscriber_hash(EMAIL)
    assert HASH == "5e38c05436dabeac5cb9a5508ecbdf80"


@pytest.mark.parametrize(
    ("key", "base"),
    [
        (API_KEY, "https://us21.api.mailchimp.com/3.0"),
        ("abc-def-eu1", "https://eu1.api.mailchimp.com/3.0"),
        ("no-data-centre-here", ""),
        ("abc-us21.evil.example/", ""),
        ("", ""),
    ],
)
def test_the_host_comes_from_the_keys_data_centre_and_nothing_else(settings, key, base):
    settings.MAILCHIMP_API_KEY = key
    assert config.base_url() == base
    assert bool(config.problem()) == (base == "")


def test_a_base_url_setting_overrides_the_data_centre(settings):
    settings.MAILCHIMP_BASE_URL = "https://mailchimp-proxy.example/3.0/"
    assert config.base_url() == "https://mailchimp-proxy.example/3.0"
    assert config.client().http.base_url == "https://mailchimp-proxy.example/3.0"


def test_upsert_puts_the_member_at_its_hash_with_status_if_new_only(rsps, mailchimp):
    call = rsps.put(member_url(), json=api_body("member_put"))
    member = mailchimp.upsert_member(
        LIST_ID,
        " " + EMAIL,
        status_if_new="subscribed",
        merge_fields={"FNAME": "Ion", "LNAME": "Popescu"},
    )
    assert member["status"] == "subscribed"
    assert call.call_count == 1
    assert sent(call.calls[0]) == {
        "email_address": EMAIL,
        "status_if_new": "subscribed",
        "merge_fields": {"FNAME": "Ion", "LNAME": "Popescu"},
    }  # never "status": an existing member keeps its own


def test_tags_are_posted_active_or_inactive_and_answered_204(rsps, mailchimp):
    call = rsps.post(f"{member_url()}/tags", status=204)
    mailchimp.set_tags(LIST_ID, HASH, {"stage:warm_reply": True, "stage:negotiation": False})
    assert sent(call.calls[0]) == {
        "tags": [
            {"name": "stage:negotiation", "status": "inactive"},
            {"name": "stage:warm_reply", "status": "active"},
        ]
    }


def test_a_batch_posts_members_with_update_existing_and_reads_errors_per_address(rsps, mailchimp):
    call = rsps.post(f"{BASE}/lists/{LIST_ID}", json=api_body("batch_subscribe"))
    members = [{"email_address": EMAIL, "status": "subscribed", "tags": ["stage:warm_reply"]}]
    answer = mailchimp.batch_subscribe(LIST_ID, members)
    assert sent(call.calls[0]) == {"members": members, "update_existing": True}
    assert answer.written == {
        "ana.vladescu@ferma-vladescu.ro": "subscribed",
        EMAIL: "subscribed",
    }
    assert answer.errors["fake@example.com"].startswith("fake@example.com looks fake")
    assert "compliance state" in answer.errors["gone@agro-example.ro"]


def test_a_batch_holds_one_to_500_members(mailchimp):
    with pytest.raises(ValueError, match="1 to 500"):
        mailchimp.batch_subscribe(LIST_ID, [{"email_address": EMAIL}] * 501)
    with pytest.raises(ValueError):
        mailchimp.batch_subscribe(LIST_ID, [])


@pytest.mark.parametrize(("status", "done"), [(200, True), (404, False)])
def test_unsubscribe_patches_the_status_and_a_missing_member_is_done(rsps, mailchimp, status, done):
    if status == 200:
        call = rsps.patch(member_url(), json=api_body("member_put_unsubscribed"))
    else:
        call = problem(rsps, "PATCH", member_url(), "error_404", 404)
    assert mailchimp.unsubscribe(LIST_ID, HASH) is done
    assert sent(call.calls[0]) == {"status": "unsubscribed"}


@pytest.mark.parametrize(("status", "done"), [(204, True), (404, False)])
def test_delete_permanent_posts_the_action_and_a_missing_member_is_done(
    rsps, mailchimp, status, done
):
    url = f"{member_url()}/actions/delete-permanent"
    if status == 204:
        call = rsps.post(url, status=204)
    else:
        call = problem(rsps, "POST", url, "error_404", 404)
    assert mailchimp.delete_permanently(LIST_ID, HASH) is done
    assert call.calls[0].request.headers["Authorization"] == AUTH
    assert not call.calls[0].request.body


def test_merge_fields_lists_the_audiences_tags(rsps, mailchimp):
    call = rsps.get(f"{BASE}/lists/{LIST_ID}/merge-fields?count=100", json=api_body("merge_fields"))
    assert mailchimp.merge_fields(LIST_ID) == ["FNAME", "LNAME", "ADDRESS", "PHONE", "BIRTHDAY"]
    assert call.calls[0].request.headers["Authorization"] == AUTH


@pytest.mark.parametrize(
    ("fixture", "forgotten"), [("error_400_compliance", False), ("error_400_forgotten", True)]
)
def test_an_address_mailchimp_keeps_out_is_its_own_permanent_error(
    rsps, mailchimp, fixture, forgotten
):
    problem(rsps, "PUT", member_url(), fixture, 400)
    with pytest.raises(MemberKeptOut) as raised:
        mailchimp.upsert_member(LIST_ID, EMAIL, status_if_new="subscribed", merge_fields={})
    assert raised.value.forgotten is forgotten
    assert retry.decide(raised.value, 1).give_up
    assert EMAIL in raised.value.provider_message  # kept for the record, never in the log line
    assert EMAIL not in str(raised.value)


def test_an_invalid_resource_is_refused_with_mailchimps_field_message(rsps, mailchimp):
    problem(rsps, "PUT", member_url(), "error_400_invalid_resource", 400)
    with pytest.raises(RejectedRequest) as raised:
        mailchimp.upsert_member(LIST_ID, EMAIL, status_if_new="subscribed", merge_fields={})
    assert not isinstance(raised.value, MemberKeptOut)
    assert raised.value.error_code == "invalid_resource"
    assert "email_address: This email address looks fake" in raised.value.provider_message


@pytest.mark.parametrize(
    ("fixture", "status", "error_class", "retried_in"),
    [
        ("error_401", 401, AuthenticationFailed, None),
        ("error_404", 404, RejectedRequest, None),
        ("error_429", 429, RateLimited, 60),
        ("error_500", 500, ProviderUnavailable, 15),
    ],
)
def test_each_error_class_goes_through_the_retry_table(
    rsps, mailchimp, fixture, status, error_class, retried_in
):
    problem(rsps, "PUT", member_url(), fixture, status)
    with pytest.raises(error_class) as raised:
        mailchimp.upsert_member(LIST_ID, EMAIL, status_if_new="subscribed", merge_fields={})
    assert raised.value.status_code == status
    decision = retry.decide(raised.value, 1)
    delay = decision.retry_in.total_seconds() if decision.retry_in else None
    assert delay == retried_in


def test_a_429_waits_as_long_as_retry_after_says(rsps, mailchimp):
    problem(rsps, "PUT", member_url(), "error_429", 429, **{"Retry-After": "7"})
    with pytest.raises(RateLimited) as raised:
        mailchimp.upsert_member(LIST_ID, EMAIL, status_if_new="subscribed", merge_fields={})
    assert raised.value.retry_after == 7


def test_no_answer_in_time_is_an_uncertain_timeout(rsps, mailchimp):
    rsps.put(member_url(), body=requests.exceptions.ReadTimeout("read timed out"))
    with pytest.raises(ProviderTimeout) as raised:
        mailchimp.upsert_member(LIST_ID, EMAIL, status_if_new="subscribed", merge_fields={})
    assert raised.value.uncertain
    assert retry.decide(raised.value, 1).retry_in == timedelta(seconds=15)


def test_paths_take_only_an_audience_id_and_a_hash(mailchimp):
    with pytest.raises(RejectedRequest):
        mailchimp.unsubscribe("../lists", HASH)
    with pytest.raises(RejectedRequest):
        mailchimp.unsubscribe(LIST_ID, EMAIL)


def test_the_key_is_never_shown(mailchimp):
    assert API_KEY not in repr(mailchimp) and API_KEY not in repr(mailchimp.http)


def test_a_client_without_a_base_refuses_to_start():
    with pytest.raises(RejectedRequest, match="data centre"):
        MailchimpClient(api_key="no-centre", base_url="")
