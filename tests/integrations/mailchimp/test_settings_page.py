"""Settings → Mailchimp: admins only; each value checked (the refusal names the field and
nothing is saved, the typed values shown again); the audience read from Mailchimp when the
sync is turned on; a backfill queued when what goes into the audience changed, and by
"sync now"; the page listed in the settings tabs."""

from __future__ import annotations

import pytest

from integrations.mailchimp import tasks
from integrations.mailchimp.models import MailchimpAudience
from outreach.models import Stage
from tests.factories import make_user
from tests.integrations.mailchimp.conftest import BASE, LIST_ID, api_body, problem

pytestmark = pytest.mark.django_db
PAGE = "/outreach/settings/mailchimp/"
MERGE_FIELDS = f"{BASE}/lists/{LIST_ID}/merge-fields?count=100"
GOOD = {
    "enabled": "on",
    "list_id": LIST_ID,
    "stages": [Stage.WARM_REPLY, Stage.CONVERTED],
    "status_if_new": "subscribed",
    "tag_stage": "on",
    "tag_county": "on",
    "crop_field": "cultura_principala",
}


@pytest.fixture
def admin(client, tenant):
    client.force_login(make_user(tenant, role="ADMIN"))
    return client


@pytest.fixture
def backfills(monkeypatch):
    queued: list[int] = []
    monkeypatch.setattr(tasks.backfill, "send", lambda tenant_id: queued.append(tenant_id))
    return queued


def test_only_the_workspaces_admins_see_the_page(client, tenant):
    client.force_login(make_user(tenant))
    assert client.get(PAGE).status_code == 403
    assert client.post(PAGE, GOOD).status_code == 403
    assert not MailchimpAudience.objects.exists()


def test_the_page_is_one_of_the_settings_tabs(admin):
    page = admin.get("/outreach/settings/consent/").content.decode()
    assert f'href="{PAGE}"' in page and "data-settings-mailchimp" in page
    own = admin.get(PAGE).content.decode()
    assert 'aria-current="page" data-settings-mailchimp' in own


def test_turning_the_sync_on_reads_the_audience_and_queues_a_backfill(
    admin, tenant, rsps, backfills, django_capture_on_commit_callbacks
):
    read = rsps.get(MERGE_FIELDS, json=api_body("merge_fields"))
    with django_capture_on_commit_callbacks(execute=True):
        response = admin.post(PAGE, GOOD)
    assert response.status_code == 302 and read.call_count == 1
    audience = MailchimpAudience.objects.get(tenant=tenant)
    assert (audience.enabled, audience.list_id) == (True, LIST_ID)
    assert audience.stages == [Stage.WARM_REPLY, Stage.CONVERTED]
    assert audience.merge_fields == ["FNAME", "LNAME", "ADDRESS", "PHONE", "BIRTHDAY"]
    assert audience.backfill_requested_at is not None and backfills == [tenant.pk]

    with django_capture_on_commit_callbacks(execute=True):
        admin.post(PAGE, GOOD)  # nothing changed: no second backfill
    assert backfills == [tenant.pk]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"list_id": "a6b5/da1054"}, "list_id"),
        ({"list_id": ""}, "list_id"),
        ({"stages": []}, "stages"),
        ({"stages": ["SOLD"]}, "stages"),
        ({"status_if_new": "pending"}, "status_if_new"),
        ({"tag_crop": "on", "crop_field": ""}, "crop_field"),
        ({"crop_field": "x" * 65}, "crop_field"),
    ],
)
def test_a_bad_value_is_refused_naming_its_field_and_nothing_is_saved(
    admin, rsps, backfills, change, field
):
    response = admin.post(PAGE, {**GOOD, **change})
    assert response.status_code == 400
    assert f'data-error="{field}"' in response.content.decode()
    assert not MailchimpAudience.objects.exists() and backfills == [] and not rsps.calls


def test_a_refused_value_is_shown_again_as_typed(admin, rsps):
    response = admin.post(PAGE, {**GOOD, "list_id": "bad id!", "stages": [Stage.NEGOTIATION]})
    page = response.content.decode()
    assert 'value="bad id!"' in page
    assert f'value="{Stage.NEGOTIATION}" checked' in page


@pytest.mark.parametrize(
    ("fixture", "status", "field"), [("error_404", 404, "list_id"), ("error_401", 401, "enabled")]
)
def test_an_audience_or_key_mailchimp_refuses_is_said_at_once(admin, rsps, fixture, status, field):
    problem(rsps, "GET", MERGE_FIELDS, fixture, status)
    response = admin.post(PAGE, GOOD)
    assert response.status_code == 400
    assert f'data-error="{field}"' in response.content.decode()
    assert not MailchimpAudience.objects.exists()


def test_without_a_key_on_the_server_the_sync_cannot_be_turned_on(admin, settings, rsps):
    settings.MAILCHIMP_API_KEY = ""
    response = admin.post(PAGE, GOOD)
    page = response.content.decode()
    assert response.status_code == 400 and 'data-error="enabled"' in page
    assert "MAILCHIMP_API_KEY is not set" in page and not rsps.calls


def test_sync_now_queues_the_backfill(
    admin, tenant, audience, backfills, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        assert admin.post(f"{PAGE}sync/").status_code == 302
    assert backfills == [tenant.pk]
    audience.refresh_from_db()
    assert audience.backfill_requested_at is not None


def test_sync_now_with_the_sync_off_says_so(admin, tenant, backfills):
    MailchimpAudience.objects.create(tenant=tenant, list_id=LIST_ID, enabled=False)
    response = admin.post(f"{PAGE}sync/", follow=True)
    assert "Turn the sync on first." in response.content.decode() and backfills == []


def test_the_page_shows_the_state_and_the_last_error(admin, audience):
    audience.last_error = "AuthenticationFailed: Mailchimp PUT …: HTTP 401 api_key_invalid"
    audience.save()
    page = admin.get(PAGE).content.decode()
    assert "HTTP 401 api_key_invalid" in page and "data-sync-now" in page
    assert 'data-count="synced">0<' in page


@pytest.mark.parametrize(
    "change",
    [
        {"list_id": "a6b5\x00da1054"},
        {"list_id": "x" * 5000},
        {"crop_field": "cultura\x1bprincipala"},
        {"stages": ["WARM_REPLY" * 500]},
        {"status_if_new": "subscribed\x00"},
    ],
    ids=["nul", "oversize", "escape", "huge-stage", "nul-choice"],
)
def test_a_hostile_value_is_refused_and_never_stored(admin, rsps, backfills, change):
    response = admin.post(PAGE, {**GOOD, **change})
    assert response.status_code == 400
    assert not MailchimpAudience.objects.exists() and not rsps.calls and backfills == []


def test_a_body_that_is_not_utf8_is_refused(admin, rsps):
    body = b"enabled=on&list_id=%FF%FE&stages=WARM_REPLY"
    response = admin.post(PAGE, body, content_type="application/x-www-form-urlencoded")
    assert response.status_code == 400
    assert not MailchimpAudience.objects.exists() and not rsps.calls
