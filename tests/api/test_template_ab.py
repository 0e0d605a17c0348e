"""The Templates endpoints' A/B winner: `ab_mode` and the suggestion waiting on a template,
the decisions (paged, newest first), evaluate now, confirm and dismiss (who, 409s), the
mode, read-only keys, another workspace's templates, and constant queries on the list."""

from __future__ import annotations

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext

from outreach.ab_winners import decisions
from outreach.ab_winners.rule import DEFAULT_RULE
from outreach.models import ABDecision, Template
from tests.ab_world import MOMENT, ab_template, clear_winner
from tests.factories import make_template

TEMPLATES = "/api/v1/templates/"


@pytest.fixture(autouse=True)
def at_moment():
    with time_machine.travel(MOMENT, tick=False):
        yield


def url(template: Template, suffix: str = "") -> str:
    return f"{TEMPLATES}{template.pk}/{suffix}"


def weights(template: Template) -> list[tuple[int, bool]]:
    return list(template.versions.order_by("version").values_list("weight", "is_active"))


def test_a_template_shows_its_mode_and_the_suggestion_waiting(api, tenant):
    template, v1, v2 = clear_winner(tenant)
    shown = api.get(url(template)).json()
    assert (shown["ab_mode"], shown["ab_suggestion"]) == ("suggest", None)
    waiting = decisions.evaluate(template).decision
    suggestion = api.get(url(template)).json()["ab_suggestion"]
    assert suggestion["id"] == waiting.pk and suggestion["status"] == "suggested"
    assert (suggestion["winner"], suggestion["winner_version"], suggestion["losers"]) == (
        v1.pk,
        1,
        [v2.pk],
    )
    assert [
        (f["version"], f["sent"], f["positive"], f["outcome"]) for f in suggestion["figures"]
    ] == [
        (1, 300, 45, "winner"),
        (2, 300, 6, "retire"),
    ]
    assert suggestion["rule"]["test"] == "two_proportion_z_one_sided"
    assert suggestion["rule"]["level"] == 0.01 and suggestion["rule"]["min_sends"] == 200
    assert suggestion["changes"][0]["weight_after"] == 200
    assert suggestion["decided_by"] is None and suggestion["decided_at"] is None


def test_create_with_a_mode(api, tenant):
    body = {"name": "Auto", "channel": "WHATSAPP", "ab_mode": "auto", "versions": [{"body": "Hei"}]}
    response = api.post(TEMPLATES, body, format="json")
    assert response.status_code == 201, response.json()
    assert response.json()["ab_mode"] == "auto"
    assert Template.objects.get(name="Auto").ab_mode == Template.ABMode.AUTO
    default = api.post(TEMPLATES, {**body, "name": "Implicit", "ab_mode": None}, format="json")
    assert default.status_code == 400 and "ab_mode" in default.json()["error"]["fields"]
    body.pop("ab_mode")
    assert api.post(TEMPLATES, {**body, "name": "D"}, format="json").json()["ab_mode"] == "suggest"


def test_evaluate_then_confirm_records_who(api, tenant, tenant_admin):
    template, v1, v2 = clear_winner(tenant)
    response = api.post(url(template, "ab-evaluate/"))
    assert response.status_code == 200, response.json()
    data = response.json()
    assert [row["outcome"] for row in data["standing"]] == ["winner", "retire"]
    assert data["rule"]["comparisons"] == 1
    decision = data["decision"]
    assert decision["status"] == "suggested" and weights(template) == [(100, True), (100, True)]

    response = api.post(url(template, "ab-confirm/"), {"decision": decision["id"]}, format="json")
    assert response.status_code == 200, response.json()
    applied = response.json()
    assert applied["status"] == "applied" and applied["automatic"] is False
    assert applied["decided_by"]["id"] == tenant_admin.pk  # the key's owner
    assert applied["decided_at"] is not None
    assert weights(template) == [(200, True), (100, False)]
    assert api.get(url(template)).json()["ab_suggestion"] is None


def test_evaluate_in_automatic_mode_applies(api, tenant):
    template, _, _ = clear_winner(tenant, ab_mode=Template.ABMode.AUTO)
    decision = api.post(url(template, "ab-evaluate/")).json()["decision"]
    assert (decision["status"], decision["automatic"], decision["decided_by"]) == (
        "applied",
        True,
        None,
    )
    assert weights(template) == [(200, True), (100, False)]


def test_nothing_to_decide_is_a_null_decision(api, tenant):
    template = ab_template(tenant)[0].template
    data = api.post(url(template, "ab-evaluate/")).json()
    assert data["decision"] is None
    assert [row["outcome"] for row in data["standing"]] == ["too_few", "too_few"]


def test_dismiss(api, tenant, tenant_admin):
    template, _, _ = clear_winner(tenant)
    waiting = decisions.evaluate(template).decision
    response = api.post(url(template, "ab-dismiss/"), {"decision": waiting.pk}, format="json")
    assert response.status_code == 200
    assert response.json()["status"] == "dismissed"
    assert response.json()["decided_by"]["id"] == tenant_admin.pk
    assert weights(template) == [(100, True), (100, True)]


@pytest.mark.parametrize("action", ["ab-confirm/", "ab-dismiss/"])
def test_a_refused_action_is_a_409_saying_why(api, tenant, action):
    template, _, _ = clear_winner(tenant)
    none = api.post(url(template, action), {"decision": 1}, format="json")
    assert none.status_code == 409
    error = none.json()["error"]
    assert error["code"] == "ab_decision_refused"
    assert error["message"] == "No A/B suggestion is waiting for this template."
    waiting = decisions.evaluate(template).decision
    other = api.post(url(template, action), {"decision": waiting.pk + 1}, format="json")
    assert (
        other.status_code == 409 and "replaced by a newer one" in other.json()["error"]["message"]
    )
    missing = api.post(url(template, action), {}, format="json")
    assert missing.status_code == 400 and set(missing.json()["error"]["fields"]) == {"decision"}
    assert weights(template) == [(100, True), (100, True)]


def test_the_mode_is_set_and_off_withdraws_the_suggestion(api, tenant):
    template, _, _ = clear_winner(tenant)
    waiting = decisions.evaluate(template).decision
    response = api.post(url(template, "ab-mode/"), {"mode": "off"}, format="json")
    assert response.status_code == 200
    assert (response.json()["ab_mode"], response.json()["ab_suggestion"]) == ("off", None)
    waiting.refresh_from_db()
    assert (waiting.status, waiting.withdrawn_because) == ("superseded", "off")
    bad = api.post(url(template, "ab-mode/"), {"mode": "sometimes"}, format="json")
    assert bad.status_code == 400 and set(bad.json()["error"]["fields"]) == {"mode"}


def test_decisions_are_listed_newest_first_and_paged(api, tenant, operator):
    template, _, _ = clear_winner(tenant)
    first = decisions.evaluate(template).decision
    decisions.dismiss(template, first.pk, operator)
    decisions.set_mode(template, Template.ABMode.AUTO)
    ABDecision.objects.filter(pk=first.pk).update(losers=[])  # a different earlier ruling
    with time_machine.travel(MOMENT.replace(hour=11), tick=False):
        second = decisions.evaluate(template).decision
    page = api.get(url(template, "ab-decisions/"), {"page_size": 1}).json()
    assert [row["id"] for row in page["results"]] == [second.pk]
    assert page["results"][0]["status"] == "applied"
    following = api.get(page["next"]).json()
    assert [row["id"] for row in following["results"]] == [first.pk]
    assert following["results"][0]["status"] == "dismissed"


def test_a_read_only_key_may_read_but_not_act(read_api, tenant):
    template, _, _ = clear_winner(tenant)
    waiting = decisions.evaluate(template).decision
    assert read_api.get(url(template, "ab-decisions/")).status_code == 200
    for action, body in [
        ("ab-evaluate/", {}),
        ("ab-confirm/", {"decision": waiting.pk}),
        ("ab-dismiss/", {"decision": waiting.pk}),
        ("ab-mode/", {"mode": "auto"}),
    ]:
        response = read_api.post(url(template, action), body, format="json")
        assert response.status_code == 403, action
    waiting.refresh_from_db()
    assert waiting.status == "suggested" and weights(template) == [(100, True), (100, True)]


@pytest.mark.parametrize(
    ("method", "suffix"),
    [
        ("get", "ab-decisions/"),
        ("post", "ab-evaluate/"),
        ("post", "ab-confirm/"),
        ("post", "ab-dismiss/"),
        ("post", "ab-mode/"),
    ],
)
def test_another_workspaces_template_is_404(api, other_tenant, method, suffix):
    template, _, _ = clear_winner(other_tenant)
    waiting = decisions.evaluate(template).decision
    body = {"decision": waiting.pk, "mode": "off"}
    response = getattr(api, method)(url(template, suffix), body, format="json")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    waiting.refresh_from_db()
    assert waiting.status == "suggested"
    template.refresh_from_db()
    assert template.ab_mode == "suggest"


def _list_queries(api, size: int) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = api.get(TEMPLATES, {"page_size": size})
    assert response.status_code == 200
    assert len(response.json()["results"]) == size
    return len(queries)


def test_the_list_with_suggestions_has_constant_queries(api, tenant):
    for _ in range(4):
        template = make_template(tenant)
        ABDecision.objects.create(
            tenant=tenant,
            template=template,
            winner=template.versions.get(),
            rule=DEFAULT_RULE.as_dict(1),
            created_at=MOMENT,
            updated_at=MOMENT,
        )
    api.get(TEMPLATES)
    assert _list_queries(api, 1) == _list_queries(api, 4)
    shown = api.get(TEMPLATES).json()["results"]
    assert all(row["ab_suggestion"]["status"] == "suggested" for row in shown)
