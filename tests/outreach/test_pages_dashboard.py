"""The dashboard: tenant isolation, the right numbers, the htmx partial, constant queries."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from hitl.models import ReviewItem
from outreach.models import Channel, Message, Priority
from tests.factories import make_lead, make_message, make_phone, make_sequence
from whatsapp.models import Phone, QuotaUsage

pytestmark = pytest.mark.django_db

# A Wednesday, 12:00 in Bucharest: well inside the local day.
NOON = datetime(2026, 11, 18, 10, 0, tzinfo=UTC)


@pytest.fixture
def frozen():
    with time_machine.travel(NOON, tick=False):
        yield NOON


def kpi(html: str, name: str) -> str:
    found = re.search(rf'data-kpi="{re.escape(name)}">([^<]*)<', html)
    assert found, f"no kpi {name}"
    return found.group(1).strip()


def sent(lead, phone, *, cost: int, at: datetime, **kw) -> Message:
    return make_message(
        lead, phone=phone, status=Message.Status.SENT, quota_cost=cost, sent_at=at, **kw
    )


def inbound(lead, **kw) -> Message:
    return make_message(
        lead,
        direction=Message.Direction.INBOUND,
        status=Message.Status.RECEIVED,
        idempotency_key=None,
        **kw,
    )


def test_operator_sees_own_tenant_only(client, operator, tenant, other_tenant, frozen):
    mine = make_phone(tenant, number="+40740000001")
    theirs = make_phone(other_tenant, number="+40740000999")
    make_message(make_lead(other_tenant, name="Secret Farm SRL"), phone=theirs)
    make_message(make_lead(tenant, name="Ferma Mea SRL"), phone=mine)
    client.force_login(operator)
    response = client.get("/outreach/dashboard/")
    assert response.status_code == 200
    html = response.content.decode()
    assert tenant.name in html
    assert other_tenant.name not in html
    assert mine.number in html and "Ferma Mea SRL" in html
    assert theirs.number not in html and "Secret Farm SRL" not in html


def test_numbers_for_a_known_data_set(client, operator, tenant, other_tenant, frozen):
    phone = make_phone(tenant)
    now = timezone.now()
    yesterday = now - timedelta(days=1)
    a, b, c = (make_lead(tenant) for _ in range(3))
    sent(a, phone, cost=1, at=now)
    sent(b, phone, cost=1, at=now)
    later_step = make_sequence(tenant).steps.get()
    later_step.position = 2
    later_step.save()
    sent(c, phone, cost=0, at=now, step=later_step)  # follow-up: a later step of a sequence
    make_message(a, phone=phone, quota_cost=1)  # queued: not sent yet, not counted
    sent(c, phone, cost=1, at=yesterday)  # a new contact yesterday
    inbound(a)  # a reply today
    old_reply = inbound(b)
    Message.objects.filter(pk=old_reply.pk).update(created_at=yesterday)
    eight_days = inbound(c)
    Message.objects.filter(pk=eight_days.pk).update(created_at=now - timedelta(days=8))
    # Another tenant's traffic never counts.
    theirs = make_lead(other_tenant)
    sent(theirs, make_phone(other_tenant), cost=1, at=now)
    inbound(theirs)
    # Review items: one urgent breached, one medium in time, one resolved (ignored).
    ReviewItem.objects.create(
        tenant=tenant,
        lead=a,
        reason="r",
        priority=Priority.URGENT,
        sla_due_at=now - timedelta(hours=1),
    )
    ReviewItem.objects.create(
        tenant=tenant,
        lead=b,
        reason="r",
        priority=Priority.MEDIUM,
        sla_due_at=now + timedelta(hours=5),
    )
    ReviewItem.objects.create(
        tenant=tenant,
        lead=c,
        reason="r",
        priority=Priority.HIGH,
        status=ReviewItem.Status.RESOLVED,
        resolved_at=now,
        sla_due_at=now - timedelta(hours=1),
    )
    ReviewItem.objects.create(
        tenant=other_tenant, lead=theirs, reason="r", priority=Priority.URGENT, sla_due_at=now
    )

    client.force_login(operator)
    html = client.get("/outreach/dashboard/", HTTP_ACCEPT_LANGUAGE="ro").content.decode()
    assert kpi(html, "new-today") == "2"
    assert kpi(html, "followups-today") == "1"
    assert kpi(html, "replies-today") == "1"
    assert kpi(html, "new-week") == "3"
    assert kpi(html, "followups-week") == "1"
    assert kpi(html, "replies-week") == "2"
    # WhatsApp: 4 sent in 7 days, 2 replies -> 50 % (Romanian decimal comma); no email
    # traffic -> no rate.
    assert kpi(html, f"rate-{Channel.WHATSAPP}") == "50,0%"
    assert kpi(html, f"rate-{Channel.EMAIL_COLD}") == "—"
    assert kpi(html, "review-URGENT") == "1"
    assert kpi(html, "breached-URGENT") == "1"
    assert kpi(html, "review-MEDIUM") == "1"
    assert kpi(html, "breached-MEDIUM") == "0"
    assert kpi(html, "review-HIGH") == "0"


def test_quota_grid_shows_usage_and_status(client, operator, tenant, frozen):
    phone = make_phone(tenant, daily_limit=200)
    paused = make_phone(tenant, status=Phone.Status.PAUSED)
    QuotaUsage.objects.create(tenant=tenant, phone=phone, day=timezone.localdate(), used=37)
    QuotaUsage.objects.create(
        tenant=tenant, phone=phone, day=timezone.localdate() - timedelta(days=1), used=199
    )
    client.force_login(operator)
    html = client.get("/outreach/dashboard/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    cell = html[html.index(f'data-phone="{phone.number}"') :]
    assert "37/200" in cell[:600]
    assert (
        "st-ok" in html[html.rindex("<div", 0, html.index(f'data-phone="{phone.number}"')) :][:80]
    )
    paused_cell = html[html.index(f'data-phone="{paused.number}"') :][:600]
    assert "Paused" in paused_cell and "0/200" in paused_cell


def test_partial_is_only_the_fragment(client, operator, tenant, frozen):
    make_phone(tenant, number="+40740000001")
    client.force_login(operator)
    full = client.get("/outreach/dashboard/").content.decode()
    assert 'hx-get="/outreach/dashboard/partial/"' in full
    assert 'hx-trigger="every 15s"' in full
    response = client.get("/outreach/dashboard/partial/")
    assert response.status_code == 200
    part = response.content.decode()
    assert 'data-fragment="dashboard-stats"' in part
    assert "+40740000001" in part
    assert "<html" not in part and "<nav" not in part and "<body" not in part


def _world(tenant, phones: int, messages: int) -> None:
    now = timezone.now()
    made = [make_phone(tenant) for _ in range(phones)]
    for i, phone in enumerate(made):
        QuotaUsage.objects.create(tenant=tenant, phone=phone, day=timezone.localdate(), used=i)
    for i in range(messages):
        lead = make_lead(tenant)
        sent(lead, made[i % phones], cost=i % 2, at=now)
        inbound(lead, phone=made[i % phones])
        ReviewItem.objects.create(
            tenant=tenant, lead=lead, reason="r", sla_due_at=now - timedelta(minutes=i)
        )


@pytest.mark.parametrize("url", ["/outreach/dashboard/", "/outreach/dashboard/partial/"])
def test_query_count_does_not_grow(client, operator, tenant, frozen, url):
    client.force_login(operator)
    _world(tenant, phones=5, messages=5)
    client.get(url)  # the scheduler's counts and the earlier days, as kept between polls
    with CaptureQueriesContext(connection) as small:
        assert client.get(url).status_code == 200
    _world(tenant, phones=45, messages=45)
    with CaptureQueriesContext(connection) as large:
        html = client.get(url).content.decode()
    assert html.count("data-phone=") == 50
    assert len(large) == len(small), [q["sql"] for q in large.captured_queries]
    assert len(large) <= 13  # 12 + the replies waiting longest


def test_expired_session_poll_redirects_the_whole_page(client):
    response = client.get("/outreach/dashboard/partial/", HTTP_HX_REQUEST="true")
    assert response.status_code == 204
    assert response["HX-Redirect"] == "/login/?next=/outreach/dashboard/"
    assert response.content == b""


def test_a_cold_email_first_step_counts_as_a_new_contact(client, operator, tenant, frozen):
    from tests.factories import make_sequence, make_template

    sequence = make_sequence(tenant)
    first = sequence.steps.get()
    second = first.__class__.objects.create(
        tenant=tenant,
        sequence=sequence,
        position=2,
        channel="EMAIL_COLD",
        template=make_template(tenant, channel="EMAIL_COLD"),
    )
    lead = make_lead(tenant)
    for step in (first, second):
        make_message(
            lead,
            channel="EMAIL_COLD",
            status=Message.Status.SENT,
            sent_at=NOON,
            sequence=sequence,
            step=step,
        )
    client.force_login(operator)
    html = client.get("/outreach/dashboard/").content.decode()
    assert kpi(html, "new-today") == "1"
    assert kpi(html, "followups-today") == "1"
