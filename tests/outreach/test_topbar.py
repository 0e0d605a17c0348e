"""The top bar of every operator page (console.topbar, `_topbar.jinja`): the section the page
is in, the two badges with their counts in words, the language switch, and nothing to
navigate without a workspace."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from cerniq.alerts import raise_alert
from cerniq.models import Alert
from tests.factories import make_user

pytestmark = pytest.mark.django_db


def bar(html: str) -> str:
    return html.split('<header class="topbar">')[1].split("</header>")[0]


def test_the_bar_marks_the_section_the_page_is_in(client, operator):
    client.force_login(operator)
    for path, section in (
        ("/outreach/leads/", "Leads"),
        ("/outreach/dead-letters/", "Operations"),
        ("/outreach/review/", "Review"),
    ):
        top = bar(client.get(path, HTTP_ACCEPT_LANGUAGE="en").content.decode())
        assert re.findall(r'class="active"[^>]*>([^<]+)', top) == [section], path


def test_the_badges_count_in_the_readers_language(client, tenant, operator):
    for n in range(2):
        raise_alert(tenant, Alert.Kind.PHONE_OFFLINE, f"phone:+4074000010{n}", "Offline.")
    client.force_login(operator)
    english = bar(client.get("/outreach/leads/", HTTP_ACCEPT_LANGUAGE="en").content.decode())
    assert 'data-open-alerts="2" title="2 open alerts nobody acknowledged"' in english
    assert '<span class="alerts-badge">2</span>' in english
    client.post("/i18n/setlang/", {"language": "ro", "next": "/outreach/leads/"})
    romanian = bar(client.get("/outreach/leads/").content.decode())
    assert 'aria-current="true" lang="ro">Română</button>' in romanian
    assert ">Deconectare</button>" in romanian


def test_only_an_admin_sees_the_api_and_settings_links(client, tenant, operator):
    client.force_login(operator)
    assert "data-settings-link" not in bar(client.get("/outreach/leads/").content.decode())
    admin = Client(HTTP_ACCEPT_LANGUAGE="en")
    admin.force_login(make_user(tenant, role="ADMIN"))
    top = bar(admin.get("/outreach/settings/sending/").content.decode())
    assert 'class="alerts-link active" href="/outreach/settings/sending/"' in top


def test_without_a_workspace_there_is_nothing_to_navigate(client):
    client.force_login(make_user(None))
    top = bar(client.get("/outreach/leads/", HTTP_ACCEPT_LANGUAGE="en").content.decode())
    assert 'class="nav"' not in top and "alerts-link" not in top
    assert "Log out" in top


def test_both_badges_cost_one_query_and_count_what_they_say(client, tenant, operator):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from outreach.models import Journey, Message
    from tests.factories import make_lead, make_message

    raise_alert(tenant, Alert.Kind.PHONE_OFFLINE, "phone:+40740000101", "Offline.")
    acknowledged = raise_alert(tenant, Alert.Kind.PHONE_OFFLINE, "phone:+40740000102", "Off.")
    Alert.objects.filter(pk=acknowledged.pk).update(acknowledged_at=acknowledged.first_seen_at)
    for n in range(3):
        lead = make_lead(tenant, name=f"Ferma {n}")
        reply = make_message(
            lead,
            direction=Message.Direction.INBOUND,
            status=Message.Status.RECEIVED,
            idempotency_key=None,
        )
        Journey.objects.filter(lead=lead).update(last_reply_at=reply.created_at)
    client.force_login(operator)

    with CaptureQueriesContext(connection) as queries:
        html = client.get("/outreach/leads/", HTTP_ACCEPT_LANGUAGE="en").content.decode()

    top = bar(html)
    assert 'data-open-alerts="1"' in top and 'data-inbox-unread="3"' in top
    badges = [q["sql"] for q in queries.captured_queries if "cerniq_alert" in q["sql"]]
    assert len(badges) == 1 and "hitl_conversationstate" in badges[0]
    # The inbox knows its unread count already: the bar asks for the alerts alone.
    with CaptureQueriesContext(connection) as queries:
        inbox = bar(client.get("/outreach/inbox/", HTTP_ACCEPT_LANGUAGE="en").content.decode())
    assert 'data-open-alerts="1"' in inbox and 'data-inbox-unread="3"' in inbox
    badges = [q["sql"] for q in queries.captured_queries if "cerniq_alert" in q["sql"]]
    assert len(badges) == 1 and "hitl_conversationstate" not in badges[0]
