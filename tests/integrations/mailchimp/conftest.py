"""Shared helpers of the Mailchimp tests: the recorded fixtures, a key of the us21 data
centre, the tenant's audience, a warm lead, posting a webhook the way Mailchimp would
(form-encoded, the tenant's token in the URL)."""

from __future__ import annotations

import base64
import json
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
import responses
import time_machine

from integrations.mailchimp import config
from integrations.mailchimp.client import MailchimpClient, subscriber_hash
from integrations.mailchimp.models import MailchimpAudience
from outreach.models import Journey, Lead, Stage
from tests.factories import make_lead

PACKAGE = Path(config.__file__).parent
API_FIXTURES = PACKAGE / "fixtures" / "api"
WEBHOOK_FIXTURES = PACKAGE / "fixtures" / "webhooks"
API_KEY = "0123456789abcdef0123456789abcdef-us21"
BASE = "https://us21.api.mailchimp.com/3.0"
LIST_ID = "a6b5da1054"
EMAIL = "ion.popescu@agroferma-example.ro"  # the fixtures' member
HASH = subscriber_hash(EMAIL)
AUTH = "Basic " + base64.b64encode(f"cerniq:{API_KEY}".encode()).decode()
FORM = "application/x-www-form-urlencoded"
MOMENT = datetime(2026, 11, 24, 10, 0, tzinfo=ZoneInfo("Europe/Bucharest"))


def api_body(name: str):
    return json.loads((API_FIXTURES / f"{name}.json").read_text(encoding="utf-8"))


def webhook_raw(name: str) -> bytes:
    return (WEBHOOK_FIXTURES / f"{name}.txt").read_bytes()


def member_url(member: str = HASH) -> str:
    return f"{BASE}/lists/{LIST_ID}/members/{member}"


def post_webhook(client, tenant, raw: bytes, *, token: str | None = None, content_type=FORM):
    """POST as Mailchimp: form-encoded, the tenant's token in the URL (or `token`)."""
    url = f"/webhooks/mailchimp/{tenant.webhook_token if token is None else token}/"
    return client.post(url, raw, content_type=content_type)


def problem(rsps, method: str, url: str, name: str, status: int, **headers):
    """Mailchimp's problem+json answer from the recorded fixture `name`."""
    return rsps.add(
        method,
        url,
        body=json.dumps(api_body(name)),
        status=status,
        content_type="application/problem+json",
        headers=headers or None,
    )


@pytest.fixture(autouse=True)
def at_a_fixed_moment():
    """Records are stamped; nothing here depends on the day, but nothing reads the clock."""
    with time_machine.travel(MOMENT, tick=True):
        yield


@pytest.fixture(autouse=True)
def keyed(settings):
    settings.MAILCHIMP_API_KEY = API_KEY
    settings.MAILCHIMP_BASE_URL = ""


@pytest.fixture
def rsps():
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        yield mock


@pytest.fixture
def mailchimp() -> MailchimpClient:
    return MailchimpClient(api_key=API_KEY, base_url=BASE)


@pytest.fixture
def audience(tenant) -> MailchimpAudience:
    """The tenant syncs Warm reply and Converted leads into LIST_ID, tagged by stage and
    county; the audience has FNAME, LNAME and PHONE (no COMPANY: merge_fields.json)."""
    return MailchimpAudience.objects.create(
        tenant=tenant,
        enabled=True,
        list_id=LIST_ID,
        merge_fields=["FNAME", "LNAME", "ADDRESS", "PHONE", "BIRTHDAY"],
    )


def warm_lead(tenant, *, stage: str = Stage.WARM_REPLY, **kw) -> Lead:
    """A lead in `stage` with the fixtures' address, contact and phone."""
    values = {
        "name": "Agroferma Popescu SRL",
        "email": EMAIL,
        "email_status": Lead.EmailStatus.VALID,
        "contact_name": "Ion Popescu",
        "phone": "+40722123456",
        "county": "Iași",
        **kw,
    }
    lead = make_lead(tenant, **values)
    Journey.objects.filter(lead=lead).update(stage=stage)
    return lead
