"""The A/B winner block of a template's page: where the versions stand, the suggestion
with confirm and dismiss, "evaluate now", the history, the mode in the editor, an edit
that would undo a decision, and another workspace's template."""

from __future__ import annotations

import pytest
import time_machine

from outreach.ab_winners import decisions
from outreach.models import ABDecision, Template
from tests.ab_world import MOMENT, ab_template, clear_winner, sends
from tests.factories import make_template

pytestmark = pytest.mark.django_db

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}


@pytest.fixture(autouse=True)
def at_moment():
    with time_machine.travel(MOMENT, tick=False):
        yield


@pytest.fixture
def signed_in(client, operator):
    client.force_login(operator)
    return client


def page(client, template: Template) -> str:
    response = client.get(f"/outreach/templates/{template.pk}/", **EN)
    assert response.status_code == 200
    return response.content.decode()


def editor_post(template: Template, **extra: str) -> dict:
    versions = list(template.versions.order_by("version"))
    data = {
        "name": template.name,
        "channel": template.channel,
        "language": template.language,
        "is_active": "on",
        "versions-TOTAL_FORMS": str(len(versions)),
        "versions-INITIAL_FORMS": str(len(versions)),
        "versions-MIN_NUM_FORMS": "1",
        "versions-MAX_NUM_FORMS": "1000",
        **extra,
    }
    for i, version in enumerate(versions):
        data[f"versions-{i}-id"] = str(version.pk)
        data[f"versions-{i}-body"] = version.body
        data[f"versions-{i}-weight"] = str(version.weight)
        if version.is_active:
            data[f"versions-{i}-is_active"] = "on"
    return data


def test_the_page_shows_where_the_versions_stand_and_the_rule(signed_in, tenant):
    v1, v2 = ab_template(tenant)
    sends(v1, 250, 40)
    sends(v2, 120, 30)
    html = page(signed_in, v1.template)
    block = html[html.index("data-ab-winner") :]
    assert 'data-ab-version="1" data-outcome="leader"' in block
    assert 'data-ab-version="2" data-outcome="too_few"' in block
    assert "<td data-sent>250</td><td data-positive>40</td>" in block
    assert "too few sends to compare" in block
    assert "one-sided two-proportion z-test" in block and "200 sends at least 72 hours old" in block
    assert "p below 1%." in block
    assert "No decision yet." in block and "data-ab-suggestion" not in block


def test_evaluate_now_suggests_then_a_person_confirms(signed_in, tenant, operator):
    template, v1, v2 = clear_winner(tenant)
    response = signed_in.post(f"/outreach/templates/{template.pk}/ab/evaluate/", **EN)
    assert response.status_code == 302
    assert response["Location"] == f"/outreach/templates/{template.pk}/#ab-winner"
    waiting = ABDecision.objects.get(status=ABDecision.Status.SUGGESTED)
    html = page(signed_in, template)
    assert f'data-ab-suggestion="{waiting.pk}"' in html
    assert "Suggested: v1 wins." in html and "v1: weight 100 → 200; v2: retired" in html
    assert 'data-outcome="retire"' in html

    response = signed_in.post(
        f"/outreach/templates/{template.pk}/ab/confirm/", {"decision": waiting.pk}, **EN
    )
    assert response.status_code == 302
    waiting.refresh_from_db()
    assert (waiting.status, waiting.decided_by) == (ABDecision.Status.APPLIED, operator)
    assert list(template.versions.values_list("weight", "is_active").order_by("version")) == [
        (200, True),
        (100, False),
    ]
    html = page(signed_in, template)
    row = html[html.index(f'data-ab-decision="{waiting.pk}"') :]
    assert 'data-status="applied"' in row[:80] and operator.username in row[:900]
    assert "Applied: v1: weight 100 → 200; v2: retired." in html


def test_dismiss_keeps_the_weights_and_says_so(signed_in, tenant):
    template, _, _ = clear_winner(tenant)
    waiting = decisions.evaluate(template).decision
    signed_in.post(f"/outreach/templates/{template.pk}/ab/dismiss/", {"decision": waiting.pk})
    waiting.refresh_from_db()
    assert waiting.status == ABDecision.Status.DISMISSED
    html = page(signed_in, template)
    assert "Dismissed: the weights stay as they are." in html
    assert 'data-outcome="kept"' in html and "worse, but a person kept it" in html
    assert list(template.versions.values_list("is_active", flat=True)) == [True, True]


def test_a_stale_confirm_is_refused_with_the_reason(signed_in, tenant):
    template, _, v2 = clear_winner(tenant)
    waiting = decisions.evaluate(template).decision
    sends(v2, 600, 150)
    response = signed_in.post(
        f"/outreach/templates/{template.pk}/ab/confirm/", {"decision": waiting.pk}, follow=True
    )
    assert "The figures changed since this was suggested" in response.content.decode()
    assert list(template.versions.values_list("is_active", flat=True)) == [True, True]
    bad = signed_in.post(f"/outreach/templates/{template.pk}/ab/dismiss/", {"decision": "x"})
    assert bad.status_code == 302 and not ABDecision.objects.filter(status="dismissed").exists()


def test_automatic_mode_from_the_editor_then_applied_on_evaluate(signed_in, tenant):
    template, _, _ = clear_winner(tenant)
    html = page(signed_in, template)
    assert '<option value="suggest" selected>' in html
    response = signed_in.post(
        f"/outreach/templates/{template.pk}/", editor_post(template, ab_mode="auto"), **EN
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    template.refresh_from_db()
    assert template.ab_mode == Template.ABMode.AUTO
    signed_in.post(f"/outreach/templates/{template.pk}/ab/evaluate/")
    html = page(signed_in, template)
    assert "Applied at once (automatic mode)" in html
    assert ">automatic<" in html


def test_turning_it_off_in_the_editor_withdraws_the_suggestion(signed_in, tenant):
    template, _, _ = clear_winner(tenant)
    waiting = decisions.evaluate(template).decision
    signed_in.post(f"/outreach/templates/{template.pk}/", editor_post(template, ab_mode="off"))
    waiting.refresh_from_db()
    assert (waiting.status, waiting.withdrawn_because) == ("superseded", "off")
    html = page(signed_in, template)
    assert "A/B decisions were turned off for the template" in html
    assert "Off: nothing is suggested nor changed." in html


def test_an_editor_post_without_the_mode_keeps_it(signed_in, tenant):
    template = make_template(tenant, ab_mode=Template.ABMode.AUTO)
    response = signed_in.post(f"/outreach/templates/{template.pk}/", editor_post(template))
    assert response.status_code == 302
    template.refresh_from_db()
    assert template.ab_mode == Template.ABMode.AUTO


def test_an_edit_opened_before_a_decision_would_undo_it_and_is_refused(signed_in, tenant):
    template, v1, v2 = clear_winner(tenant, ab_mode=Template.ABMode.AUTO)
    html = page(signed_in, template)
    assert 'name="ab_seen" value="0"' in html
    stale = editor_post(template, ab_seen="0")  # the weights as the page showed them
    applied = decisions.evaluate(template).decision
    response = signed_in.post(f"/outreach/templates/{template.pk}/", stale, **EN)
    assert response.status_code == 200
    text = response.content.decode()
    assert "An A/B decision changed this template&#x27;s versions while you were editing" in text
    assert list(template.versions.values_list("weight", "is_active").order_by("version")) == [
        (200, True),
        (100, False),
    ]
    assert f'name="ab_seen" value="{applied.pk}"' in text
    # Saved again knowingly: the person's values win.
    response = signed_in.post(
        f"/outreach/templates/{template.pk}/", {**stale, "ab_seen": str(applied.pk)}
    )
    assert response.status_code == 302
    assert list(template.versions.values_list("weight", "is_active").order_by("version")) == [
        (100, True),
        (100, True),
    ]


@pytest.mark.parametrize("action", ["evaluate", "confirm", "dismiss"])
def test_another_workspaces_template_is_not_found(signed_in, other_tenant, action):
    template, _, _ = clear_winner(other_tenant)
    waiting = decisions.evaluate(template).decision
    response = signed_in.post(
        f"/outreach/templates/{template.pk}/ab/{action}/", {"decision": waiting.pk}
    )
    assert response.status_code == 404
    waiting.refresh_from_db()
    assert waiting.status == ABDecision.Status.SUGGESTED
    assert signed_in.get(f"/outreach/templates/{template.pk}/").status_code == 404


def test_the_actions_take_posts_only(signed_in, tenant):
    template = make_template(tenant)
    assert signed_in.get(f"/outreach/templates/{template.pk}/ab/evaluate/").status_code == 405


def test_the_rule_in_words_names_the_split_significance_and_p_as_read():
    from console.views.template_ab import p_text, rule_text

    thresholds = {
        "alpha": 0.01,
        "comparisons": 2,
        "level": 0.005,
        "min_sends": 200,
        "min_positive": 10,
        "maturity_hours": 72,
    }
    assert rule_text(thresholds).startswith(
        "A version is significantly worse than the best one when a one-sided two-proportion "
        "z-test of positive replies per send gives p below 0.005 (1% split between the 2 "
        "versions compared with the best one)."
    )
    assert (p_text(None), p_text(0.00362), p_text(5.7e-9)) == ("—", "0.0036", "< 0.0001")


def test_the_templates_list_flags_a_winner_waiting(signed_in, tenant, other_tenant):
    template, _, _ = clear_winner(tenant)
    quiet = make_template(tenant)
    theirs, _, _ = clear_winner(other_tenant)
    decisions.evaluate(template)
    decisions.evaluate(theirs)
    html = signed_in.get("/outreach/templates/", **EN).content.decode()
    assert html.count("data-ab-waiting") == 1
    assert f'href="/outreach/templates/{template.pk}/#ab-winner" data-ab-waiting' in html
    assert quiet.name in html and theirs.name not in html


def test_a_new_template_takes_the_mode_chosen(signed_in, tenant):
    assert (
        '<option value="suggest" selected>'
        in signed_in.get("/outreach/templates/new/").content.decode()
    )
    data = {
        "name": "Nou",
        "channel": "WHATSAPP",
        "language": "ro",
        "is_active": "on",
        "ab_mode": "off",
        "versions-TOTAL_FORMS": "1",
        "versions-INITIAL_FORMS": "0",
        "versions-MIN_NUM_FORMS": "1",
        "versions-MAX_NUM_FORMS": "1000",
        "versions-0-body": "Bună ziua",
        "versions-0-weight": "100",
        "versions-0-is_active": "on",
    }
    assert signed_in.post("/outreach/templates/new/", data).status_code == 302
    assert Template.objects.get(tenant=tenant, name="Nou").ab_mode == Template.ABMode.OFF
