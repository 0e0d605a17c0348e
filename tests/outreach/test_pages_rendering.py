"""The operator pages' loops print fields worked out in the view (issue #21: rendering CPU).

The leads list, the dashboard's quota grid and recent activity, and the lead page's
conversation render one row per item; a `{% translate %}`, `{% url %}`, `{% include %}` or
`{% with %}` inside such a loop runs once per row, which is what made the pages slow.
"""

from __future__ import annotations

from typing import cast

import pytest
from django.template import NodeList, engines
from django.template.base import VariableNode
from django.template.defaulttags import ForNode, URLNode, WithNode
from django.template.loader_tags import IncludeNode
from django.templatetags.i18n import BlockTranslateNode, TranslateNode
from django.urls import reverse

from console.views.lead_rows import lead_rows, pk_url
from console.views.leads import EMAIL_PROBLEMS
from outreach.models import Lead
from outreach.readiness import ContactPolicy
from tests.factories import make_lead

PER_ROW = (IncludeNode, URLNode, WithNode, TranslateNode)


def _nodes(name: str) -> NodeList:
    return engines["django"].engine.get_template(name).nodelist  # type: ignore[attr-defined]


def _body(loop: ForNode) -> NodeList:
    return cast(NodeList, loop.nodelist_loop)


def _loops(name: str, var: str) -> list[ForNode]:
    loops = cast(list[ForNode], _nodes(name).get_nodes_by_type(ForNode))
    return [loop for loop in loops if getattr(loop.sequence, "token", None) == var]


def _per_row_tags(loop: ForNode) -> list:
    return [node for kind in PER_ROW for node in _body(loop).get_nodes_by_type(kind)]


@pytest.mark.parametrize(
    ("template", "var"),
    [
        ("outreach/_lead_row.html", "rows"),
        ("outreach/_dashboard_stats.html", "phones"),
        ("outreach/_dashboard_stats.html", "recent"),
    ],
)
def test_the_row_loops_have_no_translate_url_include_or_with(template, var):
    (loop,) = _loops(template, var)
    assert _per_row_tags(loop) == []


def test_the_leads_list_includes_its_rows_once_outside_any_loop():
    page = _nodes("outreach/leads.html")
    includes = [
        node
        for node in cast(list[IncludeNode], page.get_nodes_by_type(IncludeNode))
        if node.template.token == '"outreach/_lead_row.html"'
    ]
    assert len(includes) == 1
    for loop in cast(list[ForNode], page.get_nodes_by_type(ForNode)):
        assert includes[0] not in _body(loop).get_nodes_by_type(IncludeNode)


def test_the_stalled_line_is_the_only_translation_in_a_lead_row():
    """A blocktranslate with a date stays (rare: stalled leads only), inside its `if`."""
    (loop,) = _loops("outreach/_lead_row.html", "rows")
    assert len(_body(loop).get_nodes_by_type(BlockTranslateNode)) == 1


@pytest.mark.django_db
def test_leads_with_the_same_readiness_share_one_translated_badge(tenant):
    leads = [make_lead(tenant, phone=f"+4072100000{i}", email=f"a{i}@example.ro") for i in range(3)]
    found = list(Lead.objects.filter(pk__in=[lead.pk for lead in leads]).order_by("pk"))
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


def test_the_inbox_threads_loop_prints_fields_only():
    """console/views/thread_rows.py works out every label, reason and time of a bubble."""
    (loop,) = _loops("outreach/inbox/_entries.html", "entries")
    assert _per_row_tags(loop) == []
    assert _body(loop).get_nodes_by_type(BlockTranslateNode) == []
    variables = cast(list[VariableNode], _body(loop).get_nodes_by_type(VariableNode))
    assert [v.filter_expression.token for v in variables if v.filter_expression.filters] == []
