"""The Phones endpoints: tenant scoping, today's quota and next slot as the page reads
them, enable/limit updates, pause/resume refusals as 409, the warm-up ramp, constant
queries on the list."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from tests.factories import make_phone, make_user
from whatsapp import phones, quota, warmup
from whatsapp.models import Phone, QuotaUsage, WarmupPlan

PHONES = "/api/v1/phones/"
WARMUP = f"{PHONES}warmup/"


def phone_url(phone: Phone, suffix: str = "") -> str:
    return f"{PHONES}{phone.pk}/{suffix}"


@pytest.mark.parametrize(
    ("method", "suffix"),
    [("get", ""), ("patch", ""), ("post", "pause/"), ("post", "resume/"), ("post", "reactivate/")],
)
def test_another_tenants_phone_is_404_and_unchanged(api, other_tenant, method, suffix):
    theirs = make_phone(other_tenant)
    response = getattr(api, method)(phone_url(theirs, suffix), {"is_enabled": False}, format="json")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    theirs.refresh_from_db()
    assert (theirs.status, theirs.is_enabled) == (Phone.Status.ACTIVE, True)


@pytest.mark.parametrize(
    ("method", "url"), [("get", PHONES), ("get", WARMUP), ("put", WARMUP), ("post", None)]
)
def test_every_phone_endpoint_needs_a_key(anonymous, tenant, method, url):
    url = url or phone_url(make_phone(tenant), "pause/")
    assert getattr(anonymous, method)(url).status_code == 401


def test_a_read_key_cannot_change_phones(read_api, tenant):
    phone = make_phone(tenant)
    assert read_api.patch(phone_url(phone), {"is_enabled": False}).status_code == 403
    assert read_api.post(phone_url(phone, "pause/")).status_code == 403
    assert read_api.put(WARMUP, {"steps": [[1, 200]]}, format="json").status_code == 403
    assert read_api.get(phone_url(phone)).status_code == 200
    phone.refresh_from_db()
    assert phone.is_enabled and phone.status == Phone.Status.ACTIVE


def test_list_shows_the_tenants_phones_with_quota_health_and_next_slot(api, tenant, other_tenant):
    busy = make_phone(tenant, number="+40740000002", health=Phone.Health.THROTTLED)
    idle = make_phone(tenant, number="+40740000001", is_enabled=False)
    make_phone(other_tenant)
    today = quota.quota_day(tenant)
    assert quota.reserve_new_contact(busy, today)
    body = api.get(PHONES).json()
    assert [row["id"] for row in body["results"]] == [idle.pk, busy.pk]
    row = body["results"][1]
    expected = quota.status(busy, today)
    assert row["quota_today"]["day"] == today.isoformat()
    assert (row["quota_today"]["used"], row["quota_today"]["limit"]) == (1, expected.limit)
    assert row["quota_today"]["throttled"] is True and expected.limit < busy.daily_limit
    assert row["health"]["state"] == "THROTTLED"
    assert row["next_slot"] is not None
    assert body["results"][0]["next_slot"] is None  # disabled: it will not send
    assert body["results"][0]["usable"] is False


def test_a_warming_phone_shows_its_ramp_day(api, tenant):
    phone = make_phone(tenant, warmup_started_at=timezone.now() - timedelta(days=2))
    quota_today = api.get(phone_url(phone)).json()["quota_today"]
    assert quota_today["warmup_day"] == 3
    assert quota_today["limit"] == warmup.Ramp().limit_on(3) == quota_today["warmup_limit"]


def _list_queries(api, size: int) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = api.get(PHONES, {"page_size": size})
    assert response.status_code == 200
    assert len(response.json()["results"]) == size
    return len(queries)


def test_list_queries_do_not_grow_with_the_page_size(api, tenant):
    for n in range(30):
        phone = make_phone(tenant, warmup_started_at=timezone.now() if n % 2 else None)
        quota.reserve_new_contact(phone, quota.quota_day(tenant))
    api.get(PHONES)  # the key's first use of the minute also records last_used_at
    assert _list_queries(api, 3) == _list_queries(api, 30)


def test_patch_enables_and_sets_the_daily_limit(api, tenant):
    phone = make_phone(tenant)
    response = api.patch(phone_url(phone), {"is_enabled": False, "daily_limit": 120}, format="json")
    assert response.status_code == 200
    assert (response.json()["is_enabled"], response.json()["daily_limit"]) == (False, 120)
    phone.refresh_from_db()
    assert (phone.is_enabled, phone.daily_limit) == (False, 120)


@pytest.mark.parametrize("body", [{"daily_limit": 0}, {"daily_limit": 5000}, {"daily_limit": "x"}])
def test_a_bad_daily_limit_is_400_naming_it_and_changes_nothing(api, tenant, body):
    phone = make_phone(tenant)
    response = api.patch(phone_url(phone), {**body, "is_enabled": False}, format="json")
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["daily_limit"]
    phone.refresh_from_db()
    assert (phone.daily_limit, phone.is_enabled) == (200, True)


def test_the_service_refuses_a_limit_out_of_bounds(tenant):
    with pytest.raises(phones.PhoneActionRefused):
        phones.set_daily_limit(make_phone(tenant), 0)


def test_pause_and_resume_with_refusals_as_409(api, tenant):
    phone = make_phone(tenant)
    refused = api.post(phone_url(phone, "resume/"))
    assert refused.status_code == 409
    assert refused.json()["error"] == {
        "code": "phone_action_refused",
        "message": "Only a paused phone can be resumed.",
        "fields": {},
    }
    paused = api.post(phone_url(phone, "pause/"), {"reason": "CRM says so"}, format="json")
    assert paused.status_code == 200
    assert (paused.json()["status"], paused.json()["status_reason"]) == ("PAUSED", "CRM says so")
    assert paused.json()["next_slot"] is None
    assert api.post(phone_url(phone, "pause/")).status_code == 409
    assert api.post(phone_url(phone, "resume/")).json()["status"] == "ACTIVE"
    assert phone.status_changes.count() == 2


def test_reactivate_only_a_banned_phone(api, tenant):
    phone = make_phone(tenant)
    assert api.post(phone_url(phone, "reactivate/")).status_code == 409
    phones.mark_offline(phone, "banned by WhatsApp", banned=True)
    response = api.post(phone_url(phone, "reactivate/"))
    assert response.status_code == 200
    assert response.json()["status"] == "ACTIVE"
    assert response.json()["quota_today"]["warmup_day"] == 1


def test_warmup_ramp_read_and_replaced(api, tenant):
    assert api.get(WARMUP).json()["steps"] == [list(step) for step in warmup.DEFAULT_STEPS]
    warming = make_phone(tenant, warmup_started_at=timezone.now())
    today = quota.quota_day(tenant)
    quota.reserve_new_contact(warming, today)
    response = api.put(WARMUP, {"steps": [[1, 10], [5, 200]]}, format="json")
    assert response.status_code == 200
    assert response.json() == {"steps": [[1, 10], [5, 200]], "text": "1:10, 5:200", "days": 5}
    assert WarmupPlan.objects.get(tenant=tenant).steps == [[1, 10], [5, 200]]
    assert QuotaUsage.objects.get(phone=warming, day=today).limit == 10  # today's follows


@pytest.mark.parametrize(
    "steps", [[[2, 20], [14, 200]], [[1, 20], [3, 150]], [[1, 20, 3]], "1:20", []]
)
def test_a_bad_ramp_is_400_on_steps_and_changes_nothing(api, tenant, steps):
    response = api.put(WARMUP, {"steps": steps}, format="json")
    assert response.status_code == 400
    assert [name.split(".")[0] for name in response.json()["error"]["fields"]] == ["steps"]
    assert not WarmupPlan.objects.exists()


def test_only_an_admin_operator_changes_the_ramp_in_the_browsable_api(tenant, tenant_admin):
    operator = APIClient()
    operator.force_login(make_user(tenant))
    steps = {"steps": [[1, 50], [3, 200]]}
    assert operator.put(WARMUP, steps, format="json").status_code == 403
    assert operator.get(WARMUP).status_code == 200
    admin = APIClient()
    admin.force_login(tenant_admin)
    assert admin.put(WARMUP, steps, format="json").status_code == 200
    assert WarmupPlan.objects.get(tenant=tenant).steps == [[1, 50], [3, 200]]
