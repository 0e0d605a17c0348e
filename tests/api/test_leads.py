"""The Leads endpoints: tenant scoping, the import's validation and dedupe, legal stage
moves, takeover, timeline, constant queries on lists."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from outreach import optout, stages
from outreach.models import Channel, Journey, Lead, Message, Priority, Stage, Suppression
from tests.factories import make_lead, make_message, make_phone, make_sequence, make_user

LEADS = "/api/v1/leads/"
VALID_CUI = "18547290"


def lead_url(lead: Lead, suffix: str = "") -> str:
    return f"{LEADS}{lead.pk}/{suffix}"


def _ids(response) -> list[int]:
    return [row["id"] for row in response.json()["results"]]


# --- scoping ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "suffix"),
    [
        ("get", ""),
        ("patch", ""),
        ("get", "timeline/"),
        ("post", "transition/"),
        ("post", "pause/"),
        ("post", "resume/"),
        ("post", "take-over/"),
        ("post", "hand-back/"),
        ("post", "enroll/"),
    ],
)
def test_another_tenants_lead_is_404_everywhere(api, other_tenant, method, suffix):
    theirs = make_lead(other_tenant)
    response = getattr(api, method)(lead_url(theirs, suffix), {"stage": "DEAD"}, format="json")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    theirs.journey.refresh_from_db()
    assert theirs.journey.stage == Stage.COLD


@pytest.mark.parametrize(
    ("method", "suffix"),
    [("get", ""), ("get", "timeline/"), ("post", "pause/"), ("post", "transition/")],
)
def test_every_lead_endpoint_needs_a_key(anonymous, tenant, method, suffix):
    lead = make_lead(tenant)
    assert getattr(anonymous, method)(lead_url(lead, suffix)).status_code == 401


def test_list_shows_only_the_keys_tenant(api, tenant, other_tenant):
    mine = [make_lead(tenant) for _ in range(3)]
    make_lead(other_tenant)
    assert _ids(api.get(LEADS)) == sorted((lead.pk for lead in mine), reverse=True)


# --- list: filters, cursor, queries ------------------------------------------------------


def test_list_filters(api, tenant):
    phone = make_phone(tenant)
    sequence = make_sequence(tenant)
    cold = make_lead(tenant, county="Cluj")
    warm = make_lead(tenant, county="Iași", email="Office@Warm.ro")
    Journey.objects.filter(lead=warm).update(
        stage=Stage.WARM_REPLY,
        last_channel=Channel.WHATSAPP,
        assigned_phone=phone,
        current_sequence=sequence,
        requires_human_review=True,
        review_priority=Priority.HIGH,
    )
    out = make_lead(tenant)
    optout.opt_out(out, Channel.WHATSAPP)
    assert _ids(api.get(LEADS, {"stage": "WARM_REPLY"})) == [warm.pk]
    assert _ids(api.get(LEADS, {"county": "cluj"})) == [cold.pk]
    assert _ids(api.get(LEADS, {"channel": "WHATSAPP"})) == [warm.pk]
    assert _ids(api.get(LEADS, {"phone": phone.pk})) == [warm.pk]
    assert warm.pk not in _ids(api.get(LEADS, {"phone": "none"}))
    assert _ids(api.get(LEADS, {"sequence": sequence.pk})) == [warm.pk]
    assert _ids(api.get(LEADS, {"needs_review": "true"})) == [warm.pk]
    assert _ids(api.get(LEADS, {"opted_out": "whatsapp"})) == [out.pk]
    assert _ids(api.get(LEADS, {"search": "warm.ro"})) == [warm.pk]
    future = (timezone.now() + timedelta(hours=1)).isoformat()
    assert _ids(api.get(LEADS, {"updated_since": future})) == []
    Journey.objects.filter(lead=cold).update(updated_at=timezone.now() + timedelta(hours=2))
    assert _ids(api.get(LEADS, {"updated_since": future})) == [cold.pk]  # journey changes count


def test_a_bad_filter_value_is_400_naming_it(api, tenant):
    response = api.get(LEADS, {"stage": "NOPE", "updated_since": "yesterday"})
    assert response.status_code == 400
    assert set(response.json()["error"]["fields"]) == {"stage", "updated_since"}


def test_cursor_pages_cover_every_lead_once(api, tenant):
    leads = [make_lead(tenant) for _ in range(7)]
    seen, url = [], f"{LEADS}?page_size=3"
    while url:
        page = api.get(url).json()
        seen += [row["id"] for row in page["results"]]
        url = page["next"]
    assert sorted(seen) == sorted(lead.pk for lead in leads)


def _list_queries(api, size: int) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = api.get(LEADS, {"page_size": size, "stage": "COLD", "search": "Agro"})
    assert response.status_code == 200
    assert len(response.json()["results"]) == size
    return len(queries)


def test_list_queries_do_not_grow_with_the_page_size(api, tenant):
    phone = make_phone(tenant)
    for _ in range(50):
        lead = make_lead(tenant)
        Journey.objects.filter(lead=lead).update(assigned_phone=phone)
    api.get(LEADS)  # the key's first use of the minute also records last_used_at
    assert _list_queries(api, 5) == _list_queries(api, 50)


def test_timeline_queries_do_not_grow_with_the_page_size(api, tenant):
    lead = make_lead(tenant)
    for _ in range(50):
        make_message(lead)
    api.get(LEADS)  # the key's first use of the minute also records last_used_at

    def count(size: int) -> int:
        with CaptureQueriesContext(connection) as queries:
            response = api.get(lead_url(lead, "timeline/"), {"page_size": size})
        assert len(response.json()["results"]) == size
        return len(queries)

    assert count(5) == count(50)


# --- retrieve and timeline ----------------------------------------------------------------


def test_retrieve_has_journey_history_opt_outs_and_allowed_stages(api, tenant):
    lead = make_lead(tenant)
    stages.transition(lead.journey, Stage.CONTACTED_WA, reason="sent", by_system="dispatch")
    optout.opt_out(lead, Channel.WHATSAPP)
    body = api.get(lead_url(lead)).json()
    assert body["journey"]["stage"] == Stage.CONTACTED_WA
    assert body["stage_history"][0]["to_stage"] == Stage.CONTACTED_WA
    assert body["opt_outs"]["whatsapp"] is True and body["opt_outs"]["email"] is True
    assert body["allowed_stages"] == sorted(stages.allowed_targets(lead.journey))


def test_timeline_is_every_channel_newest_first(api, tenant):
    lead = make_lead(tenant, email="a@b.ro")
    first = make_message(lead)
    second = make_message(
        lead,
        channel=Channel.EMAIL_WARM,
        direction=Message.Direction.INBOUND,
        status=Message.Status.RECEIVED,
    )
    make_message(make_lead(tenant))  # another lead's
    body = api.get(lead_url(lead, "timeline/")).json()
    assert [row["id"] for row in body["results"]] == [second.pk, first.pk]


# --- create and update -------------------------------------------------------------------


def test_create_cleans_like_the_import_and_starts_cold(api, tenant):
    response = api.post(
        LEADS,
        {
            "name": "Agro Nou SRL",
            "cui": f"RO{VALID_CUI}",
            "phone": "0722 123 456",
            "email": "Office@AgroNou.ro",
            "custom_fields": {"crm_id": "A-1"},
        },
        format="json",
    )
    assert response.status_code == 201, response.json()
    lead = Lead.objects.get(pk=response.json()["id"])
    assert (lead.cui, lead.phone, lead.email) == (VALID_CUI, "+40722123456", "office@agronou.ro")
    assert lead.tenant == tenant and lead.source == "api"
    assert lead.custom_fields == {"crm_id": "A-1"}
    assert lead.journey.stage == Stage.COLD


def test_invalid_fields_are_400_naming_each_and_create_nothing(api, tenant):
    response = api.post(
        LEADS, {"name": "X SRL", "cui": "1234567", "phone": "123", "email": "nope"}, format="json"
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid"
    assert set(error["fields"]) == {"cui", "phone", "email"}
    assert "invalid CUI" in error["fields"]["cui"][0]
    assert not Lead.objects.exists()


def test_a_lead_needs_a_name_and_a_phone_or_email(api, tenant):
    response = api.post(LEADS, {"name": "X SRL"}, format="json")
    assert response.status_code == 400
    assert set(response.json()["error"]["fields"]) == {"phone", "email"}
    assert set(
        api.post(LEADS, {"phone": "0722123456"}, format="json").json()["error"]["fields"]
    ) == {"name"}


@pytest.mark.parametrize(
    ("existing", "sent", "matched_by"),
    [
        (
            {"cui": VALID_CUI, "phone": "+40722000001"},
            {"cui": VALID_CUI, "phone": "0722000009"},
            "CUI",
        ),
        ({"phone": "+40722123456"}, {"phone": "0722 123 456"}, "phone"),
        ({"email": "a@b.ro", "phone": ""}, {"email": "A@B.ro"}, "email"),
    ],
)
def test_a_duplicate_is_409_with_the_existing_id_and_changes_nothing(
    api, tenant, existing, sent, matched_by
):
    lead = make_lead(tenant, **existing)
    response = api.post(LEADS, {"name": "Again SRL", **sent}, format="json")
    assert response.status_code == 409
    error = response.json()["error"]
    assert (error["code"], error["lead_id"], error["matched_by"]) == (
        "duplicate",
        lead.pk,
        matched_by,
    )
    assert Lead.objects.count() == 1


def test_same_phone_with_another_cui_is_another_company(api, tenant):
    """The import's rule: companies share an accountant's phone."""
    make_lead(tenant, cui="14399840", phone="+40722123456")
    response = api.post(
        LEADS, {"name": "B SRL", "cui": VALID_CUI, "phone": "0722123456"}, format="json"
    )
    assert response.status_code == 201


def test_another_tenants_lead_is_no_duplicate(api, tenant, other_tenant):
    make_lead(other_tenant, phone="+40722123456")
    assert api.post(LEADS, {"name": "B", "phone": "0722123456"}, format="json").status_code == 201


def test_a_suppressed_address_is_opted_out_on_create(api, tenant):
    Suppression.objects.create(tenant=tenant, phone="+40722123456", reason="stop")
    response = api.post(LEADS, {"name": "B SRL", "phone": "0722123456"}, format="json")
    assert Journey.objects.get(lead_id=response.json()["id"]).whatsapp_opted_out


def test_patch_changes_contact_data_only(api, tenant):
    lead = make_lead(tenant, custom_fields={"a": "1"})
    response = api.patch(
        lead_url(lead),
        {"county": "Cluj", "phone": "0722 999 888", "custom_fields": {"b": "2"}, "stage": "DEAD"},
        format="json",
    )
    assert response.status_code == 200
    lead.refresh_from_db()
    assert (lead.county, lead.phone) == ("Cluj", "+40722999888")
    assert lead.custom_fields == {"a": "1", "b": "2"}
    assert lead.journey.stage == Stage.COLD  # the stage is never set here


def test_patch_validates_and_refuses_a_duplicate(api, tenant):
    lead = make_lead(tenant, email="")
    other = make_lead(tenant)
    bad = api.patch(lead_url(lead), {"phone": "12", "name": ""}, format="json")
    assert bad.status_code == 400
    assert set(bad.json()["error"]["fields"]) == {"phone", "name"}
    taken = api.patch(lead_url(lead), {"phone": other.phone}, format="json")
    assert taken.status_code == 409
    assert taken.json()["error"]["lead_id"] == other.pk
    cleared = api.patch(lead_url(lead), {"phone": ""}, format="json")  # no email either
    assert cleared.status_code == 400
    assert "phone" in cleared.json()["error"]["fields"]


# --- stage, pause/resume, takeover -------------------------------------------------------


def test_legal_transition_is_applied_and_audited(api, tenant):
    lead = make_lead(tenant)
    response = api.post(lead_url(lead, "transition/"), {"stage": "WARM_REPLY"}, format="json")
    assert response.status_code == 200
    assert response.json()["journey"]["stage"] == Stage.WARM_REPLY
    moved = response.json()["stage_history"][0]
    assert (moved["reason"], moved["reason_code"]) == (
        "Changed through the API (crm)",
        "stage.changed_by_api",
    )
    romanian = api.get(lead_url(lead), HTTP_ACCEPT_LANGUAGE="ro").json()
    assert romanian["stage_history"][0]["reason"] == "Schimbat prin API (crm)"


def test_illegal_transition_is_409_with_the_reason(api, tenant):
    lead = make_lead(tenant)
    response = api.post(lead_url(lead, "transition/"), {"stage": "CONVERTED"}, format="json")
    assert response.status_code == 409
    error = response.json()["error"]
    assert error["code"] == "illegal_transition"
    assert "Cannot move a lead from Cold to Converted" in error["message"]
    lead.journey.refresh_from_db()
    assert lead.journey.stage == Stage.COLD


def test_unknown_stage_is_400_naming_the_field(api, tenant):
    lead = make_lead(tenant)
    response = api.post(lead_url(lead, "transition/"), {"stage": "HOT"}, format="json")
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["stage"]


def test_pause_and_resume(api, tenant):
    lead = make_lead(tenant)
    assert api.post(lead_url(lead, "resume/")).status_code == 409  # not paused
    assert api.post(lead_url(lead, "pause/")).json()["journey"]["stage"] == Stage.PAUSED
    assert api.post(lead_url(lead, "resume/")).json()["journey"]["stage"] == Stage.COLD


def test_take_over_and_hand_back_act_as_the_keys_creator(api, tenant, tenant_admin):
    lead = make_lead(tenant)
    taken = api.post(lead_url(lead, "take-over/"))
    assert taken.status_code == 200
    assert taken.json()["journey"]["taken_over_by"] == tenant_admin.pk
    back = api.post(lead_url(lead, "hand-back/"), {"resume": False}, format="json")
    assert back.status_code == 200
    assert back.json()["journey"]["taken_over_by"] is None


def test_take_over_held_by_someone_else_is_409(api, tenant):
    from hitl import takeover

    lead = make_lead(tenant)
    takeover.take_over(lead, make_user(tenant, first_name="Ana"))
    response = api.post(lead_url(lead, "take-over/"))
    assert response.status_code == 409
    assert "Ana" in response.json()["error"]["message"]
    assert api.post(lead_url(lead, "hand-back/"), {}, format="json").status_code == 409


@pytest.mark.parametrize("custom", [{"a\u0000": "x"}, {"": "x"}, ["x"]])
def test_bad_custom_fields_are_400(api, tenant, custom):
    response = api.post(
        LEADS, {"name": "B SRL", "phone": "0722123456", "custom_fields": custom}, format="json"
    )
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["custom_fields"]
    assert not Lead.objects.exists()


def test_a_mangled_cursor_is_400_naming_it(api, tenant):
    response = api.get(LEADS, {"cursor": "not-a-cursor"})
    assert response.status_code == 400
    assert list(response.json()["error"]["fields"]) == ["cursor"]


def test_enroll_in_a_sequence(api, tenant, other_tenant):
    lead = make_lead(tenant)
    sequence = make_sequence(tenant)
    response = api.post(lead_url(lead, "enroll/"), {"sequence": sequence.pk}, format="json")
    assert response.status_code == 200
    assert response.json()["journey"]["current_sequence"] == sequence.pk
    again = api.post(lead_url(lead, "enroll/"), {"sequence": sequence.pk}, format="json")
    assert again.status_code == 409
    assert again.json()["error"]["code"] == "enrollment_refused"
    theirs = make_sequence(other_tenant)
    other = api.post(lead_url(make_lead(tenant), "enroll/"), {"sequence": theirs.pk}, format="json")
    assert other.status_code == 400
    assert list(other.json()["error"]["fields"]) == ["sequence"]
