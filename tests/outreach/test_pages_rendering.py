"""The operator pages' loops print fields worked out in the view (issue #21: rendering CPU).

The leads list, the dashboard's quota grid and recent activity, and the lead page's
conversation render one row per item; a `{% translate %}`, `{% url %}`, `{% include %}` or
`{% with %}` inside such a loop runs once per row, which is what made the pages slow.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import cast

import jinja2
import pytest
from django.template import NodeList, engines
from django.template.base import VariableNode
from django.template.defaulttags import ForNode
from django.urls import reverse
from django.utils import translation
from django.utils.html import escape

from cerniq import reasons
from console.rows import render_rows
from console.views.lead_rows import lead_rows, lead_rows_html, pk_url, with_stalled
from console.views.lead_timeline import timeline_html, timeline_items
from console.views.leads import EMAIL_PROBLEMS
from outreach.models import Enrollment, Lead, Message
from outreach.readiness import ContactPolicy
from tests.factories import make_lead, make_message, make_sequence


def _nodes(name: str) -> NodeList:
    return engines["django"].engine.get_template(name).nodelist  # type: ignore[attr-defined]


def _loops(name: str, var: str) -> list[ForNode]:
    loops = cast(list[ForNode], _nodes(name).get_nodes_by_type(ForNode))
    return [loop for loop in loops if getattr(loop.sequence, "token", None) == var]


@pytest.mark.parametrize(
    ("template", "printed", "gone"),
    [
        ("outreach/leads.html", {"rows_html"}, {"rows"}),
        ("outreach/_dashboard_stats.html", {"phones_html", "recent_html"}, {"phones", "recent"}),
        ("outreach/inbox/_entries.html", {"entries_html"}, {"entries"}),
        ("outreach/inbox/_rows.html", {"rows_html"}, {"rows"}),
        ("outreach/inbox/_list.html", {"facets_html"}, {"views", "channels", "phones"}),
        ("outreach/_lead_timeline.html", {"timeline_html"}, {"timeline"}),
    ],
)
def test_the_long_loops_are_printed_from_compiled_rows_templates(template, printed, gone):
    """The leads, the quota grid and recent activity, the thread's entries and the inbox
    list: worked out in the view, printed by a `*.jinja` rows template (console.rows), no
    loop over them left in Django's engine."""
    page = _nodes(template)
    assert printed <= {v.filter_expression.token for v in page.get_nodes_by_type(VariableNode)}
    looped = {getattr(loop.sequence, "token", "") for loop in page.get_nodes_by_type(ForNode)}
    assert not looped & gone


@pytest.mark.django_db
def test_the_compiled_rows_escape_what_a_lead_holds(logged_in, tenant):
    lead = make_lead(tenant, name='<b>Agro & "Co"</b>', contact_name="<i>Ion</i>")
    html = logged_in.get(reverse("outreach:leads")).content.decode()
    row = html.split(f'data-lead="{lead.pk}"')[1].split("</tr>")[0]
    assert "&lt;b&gt;Agro &amp; &#34;Co&#34;&lt;/b&gt;" in row
    assert "&lt;i&gt;Ion&lt;/i&gt;" in row
    assert "<b>" not in row and "<i>" not in row


def test_a_rows_template_refuses_a_field_the_view_did_not_give():
    """StrictUndefined: a misspelt field is an error in the tests, not an empty cell."""
    with pytest.raises(jinja2.UndefinedError):
        render_rows("outreach/_lead_rows.jinja", rows=[{"pk": 1}], words={})


@pytest.mark.django_db
def test_a_stalled_lead_row_says_since_when_and_why(tenant):
    lead = make_lead(tenant, phone="+40721000001")
    Enrollment.objects.create(
        tenant=tenant,
        lead=lead,
        sequence=make_sequence(tenant),
        stalled_reason="dispatch.template_inactive",
        stalled_since=datetime(2026, 3, 2, 23, 30, tzinfo=UTC),  # 3 March in Bucharest
    )
    found = list(with_stalled(Lead.objects.filter(pk=lead.pk)))
    with translation.override("ro"):
        html = lead_rows_html(found, ContactPolicy.of(tenant), EMAIL_PROBLEMS)
        reason = reasons.render("dispatch.template_inactive")
    stalled = html.split("data-stalled>")[1].split("</div>")[0]
    assert stalled == f"Blocat din 03.03.2026: {escape(reason)}"


@pytest.mark.django_db
def test_leads_with_the_same_readiness_share_one_translated_badge(tenant):
    leads = [make_lead(tenant, phone=f"+4072100000{i}", email=f"a{i}@example.ro") for i in range(3)]
    found = list(with_stalled(Lead.objects.filter(pk__in=[lead.pk for lead in leads])))
    found.sort(key=lambda lead: lead.pk)
    rows = lead_rows(found, ContactPolicy.of(tenant), EMAIL_PROBLEMS)
    assert rows[0]["whatsapp"] is rows[1]["whatsapp"] is rows[2]["whatsapp"]
    assert rows[0]["whatsapp"]["title"].startswith("WhatsApp: ")
    assert rows[0]["email_ready"]["name"] == "Email"


@pytest.mark.django_db
def test_row_links_are_the_named_urls(tenant):
    lead = make_lead(tenant)
    assert pk_url("outreach:lead")(lead.pk) == reverse("outreach:lead", args=[lead.pk])
    assert pk_url("outreach:inbox_thread")(lead.pk) == reverse(
        "outreach:inbox_thread", args=[lead.pk]
    )


@pytest.mark.django_db
def test_the_lead_timeline_prints_the_ai_reading_as_the_language_writes_numbers(tenant):
    """As `{{ value }}` printed it: 0,85 in Romanian, 0.85 in English; the decision as words."""
    lead = make_lead(tenant)
    message = make_message(
        lead,
        direction=Message.Direction.INBOUND,
        status=Message.Status.RECEIVED,
        idempotency_key=None,
        body="<b>Da</b>\nsunați-mă",
        analysis={"triage": {"intent": "interested", "confidence": 0.85, "sentiment": 40}},
    )
    for language, confidence in (("ro", "0,85"), ("en", "0.85")):
        with translation.override(language):
            html = timeline_html(timeline_items([message]))
        assert f"{confidence}\n" in html.split("data-analysis>")[1]
    assert "&lt;b&gt;Da&lt;/b&gt;<br>sunați-mă" in html
