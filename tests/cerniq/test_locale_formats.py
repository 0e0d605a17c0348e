"""Dates and numbers by the active language, one format per language (docs/locale.md):
templates name their formats, operator texts in Python use cerniq.formats, figures are
grouped (12.345 in Romanian, 12,345 in English) and the charts follow <html lang>."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.conf import settings
from django.core.cache import cache
from django.utils import translation

from cerniq import reasons
from cerniq.formats import stored_moment
from cerniq.models import Alert
from hitl import reasons as why
from outreach.analytics import reach
from outreach.models import Journey, Message
from outreach.next_send_text import closure_text
from tests.factories import make_lead, make_message, make_user

pytestmark = pytest.mark.django_db

ROOT = Path(settings.BASE_DIR)
BUCHAREST = ZoneInfo("Europe/Bucharest")
NOW = datetime(2026, 11, 26, 15, 0, tzinfo=BUCHAREST)
KNOWN = datetime(2026, 11, 24, 9, 5, tzinfo=BUCHAREST)  # shown as 24.11.2026, 09:05
SHOWN = {"ro": "24.11.2026, 09:05", "en": "24/11/2026, 09:05"}
FIGURE = {"ro": "12.345", "en": "12,345"}

# --- (a) no literal formats left -------------------------------------------------------

NAMED = {
    "DATE_FORMAT",
    "DATETIME_FORMAT",
    "SHORT_DATE_FORMAT",
    "SHORT_DATETIME_FORMAT",
    "TIME_FORMAT",
    "MONTH_DAY_FORMAT",
    "YEAR_MONTH_FORMAT",
}
# Machine formats, never read by a person: each with why it stays literal.
MACHINE = {
    "c": "ISO 8601 in <time datetime> and data-* attributes",
    "U": "a Unix timestamp for scripts",
    "Y-m-d": "data-day keys of the analytics and response-time tables (tests, scripts)",
    "H": "data-hour keys of the plan preview's hours",
}
FILTER = re.compile(r"\|(?:date|time):\s*(['\"])(?P<format>[^'\"]*)\1")


def test_templates_use_named_or_machine_formats_only():
    literal = []
    for path in sorted((ROOT / "templates").rglob("*.html")):
        for match in FILTER.finditer(path.read_text(encoding="utf-8")):
            if match["format"] not in NAMED | MACHINE.keys():
                literal.append(f"{path.relative_to(ROOT)}: {match[0]}")
    assert literal == []


# The Python modules whose operator texts were converted: no strftime or %H:%M left.
CONVERTED = [
    "outreach/manual_checks.py",
    "outreach/next_send_text.py",
    "hitl/review.py",
    "hitl/replies.py",
    "cerniq/alert_messages.py",
    "console/views/plan.py",
    "console/rows.py",
    "console/views/lead_rows.py",
    "console/views/lead_timeline.py",
    "console/views/thread_rows.py",
    "console/views/inbox.py",
    "console/views/dashboard.py",
]


@pytest.mark.parametrize("module", CONVERTED)
def test_converted_modules_format_by_name(module):
    source = (ROOT / module).read_text(encoding="utf-8")
    assert "strftime(" not in source
    assert not re.search(r"%[dmYHM][.:/ ]?%[dmYHM]", source)
    assert not re.search(r"date_format\([^)]*,\s*\"[^A-Z\"]", source)  # a literal pattern


# --- (b) the same pages in both languages ----------------------------------------------


@pytest.fixture
def world(tenant):
    lead = make_lead(tenant, name="Ferma Verde SRL")
    Journey.objects.filter(lead=lead).update(last_contact_at=KNOWN, reply_count=12345)
    message = make_message(
        lead, direction=Message.Direction.INBOUND, status=Message.Status.RECEIVED
    )
    Message.objects.filter(pk=message.pk).update(created_at=KNOWN)
    return lead


def page(client, operator, url: str, language: str) -> str:
    client.force_login(operator)
    response = client.get(url, HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    return response.content.decode()


@pytest.mark.parametrize("language", ["ro", "en"])
@time_machine.travel(NOW, tick=False)
def test_dashboard_dates_and_figures(client, operator, tenant, world, language):
    cache.set(
        reach._key(tenant), reach.Reach(stalled=12345, not_contactable=0, counted_at=KNOWN), 300
    )
    html = page(client, operator, "/outreach/dashboard/", language)
    assert f'<html lang="{language}">' in html
    assert f"<td>{SHOWN[language]}</td>" in html  # recent activity
    stalled = html[html.index('data-kpi="stalled"') :]
    assert f">{FIGURE[language]}</a>" in stalled[:200]
    assert "12345" not in html.replace('data-kpi="stalled"', "")


@pytest.mark.parametrize("language", ["ro", "en"])
@time_machine.travel(NOW, tick=False)
def test_lead_page_dates_and_figures(client, operator, world, language):
    html = page(client, operator, f"/outreach/leads/{world.pk}/", language)
    assert f"<dd>{SHOWN[language]}</dd>" in html  # last contact
    assert f"<dd>{FIGURE[language]}</dd>" in html  # replies
    assert "12345" not in html


@pytest.mark.parametrize("language", ["ro", "en"])
@time_machine.travel(NOW, tick=False)
def test_inbox_thread_dates_and_figures(client, operator, tenant, world, language):
    Alert.objects.bulk_create(
        Alert(tenant=tenant, kind=Alert.Kind.BOUNCE_RATE, subject=f"campaign:{n}", message="x")
        for n in range(1234)
    )
    html = page(client, operator, f"/outreach/inbox/{world.pk}/", language)
    assert f">{SHOWN[language]}</time>" in html
    grouped = {"ro": "1.234", "en": "1,234"}[language]
    assert f'<span class="alerts-badge">{grouped}</span>' in html
    assert 'data-open-alerts="1234"' in html  # machine attributes stay bare


# --- operator texts built in Python ------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "expected"), [("ro", "24.11.2026, 09:05"), ("en", "24/11/2026, 09:05")]
)
def test_a_stored_sla_deadline_is_shown_in_the_readers_language(language, expected):
    stored = reasons.code(
        why.SLA_MISSED, lead="Ferma", why="", missed="HIGH", now="URGENT",
        due=stored_moment(KNOWN, BUCHAREST),
    )  # fmt: skip
    with translation.override(language):
        assert expected in reasons.render(stored)


def test_a_deadline_stored_before_keeps_its_text():
    stored = reasons.code(why.DECISION_OUT_OF_OFFICE_UNTIL, back="24.11.2026 09:05")
    with translation.override("en"):
        assert "24.11.2026 09:05" in reasons.render(stored)


def test_the_takeover_refusal_names_day_and_time_by_language(tenant):
    from outreach.manual_checks import held_by_message

    lead = make_lead(tenant)
    holder = make_user(tenant, first_name="Ana", last_name="Pop")
    Journey.objects.filter(lead=lead).update(taken_over_by=holder, taken_over_at=KNOWN)
    journey = Journey.objects.get(lead=lead)
    with translation.override("en"):
        assert "on 24 Nov at 09:05" in held_by_message(journey)
    with translation.override("ro"):
        assert "pe 24.11 la ora 09:05" in held_by_message(journey)


def test_the_window_hours_use_time_format(tenant):
    from outreach.next_send import next_send_at

    with time_machine.travel(datetime(2026, 11, 26, 22, 0, tzinfo=BUCHAREST), tick=False):
        answer = next_send_at(tenant)
    with translation.override("en"):
        assert "09:00–18:00" in closure_text(answer)


# --- (c) charts ------------------------------------------------------------------------

CHART_PROBE = """
const fs = require("fs");
let config = null;
global.window = { Chart: function (canvas, c) { config = c; } };
const canvas = { getAttribute: () => "sent" };
const nodes = {
  "analytics-data": { textContent: JSON.stringify({
    days: ["2026-11-24"], channels: [{ channel: "WHATSAPP", label: "WhatsApp", sent: [12345] }],
  }) },
  "analytics-labels": { textContent: "{}" },
};
global.document = {
  readyState: "complete",
  documentElement: { lang: process.argv[2] },
  getElementById: (id) => nodes[id] || null,
  querySelectorAll: () => [canvas],
};
eval(fs.readFileSync(process.argv[1], "utf8"));
const tooltip = config.options.plugins.tooltip.callbacks.label({
  dataset: { label: "WhatsApp" }, parsed: { y: 12345 },
});
console.log(JSON.stringify({
  day: config.data.labels[0], tick: config.options.scales.y.ticks.callback(12345), tooltip,
}));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node to run the chart script")
@pytest.mark.parametrize(
    ("language", "day", "figure"), [("ro", "24 nov.", "12.345"), ("en", "24 Nov", "12,345")]
)
def test_the_chart_labels_and_figures_follow_the_page_language(language, day, figure):
    script = str(ROOT / "static" / "js" / "analytics.js")
    out = subprocess.run(  # noqa: S603 - our own script, fixed arguments
        ["node", "-e", CHART_PROBE, script, language],  # noqa: S607
        capture_output=True, text=True, check=True, timeout=30,
    )  # fmt: skip
    shown = json.loads(out.stdout)
    assert shown == {"day": day, "tick": figure, "tooltip": f"WhatsApp: {figure}"}


@pytest.mark.parametrize("language", ["ro", "en"])
@time_machine.travel(NOW, tick=False)
def test_the_analytics_page_declares_its_language(client, operator, language):
    html = page(client, operator, "/outreach/analytics/", language)
    assert f'<html lang="{language}">' in html
    assert "analytics.js" in html
