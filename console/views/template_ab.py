"""The A/B winner block of a template's page: where its versions stand on positive replies,
the suggestion waiting (confirm or dismiss), "evaluate now", and the decisions so far. The
rule and the decisions are outreach.ab_winners'."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from cerniq.params import parse_id
from cerniq.tenancy import AuthenticatedHttpRequest, display_name, scope_for
from outreach.ab_winners import decisions, rule
from outreach.models import ABDecision, Template

HISTORY = 20  # decisions shown, newest first


def outcome_labels() -> dict[str, str]:
    """Each outcome of the rule in the reader's language."""
    return {
        rule.WINNER: _("winner"),
        rule.LEADER: _("best so far, nothing significantly worse"),
        rule.RETIRE: _("significantly worse: retire"),
        rule.KEEP: _("not significantly worse"),
        rule.KEPT: _("worse, but a person kept it"),
        rule.TOO_FEW: _("too few sends to compare"),
    }


def _pct(value: float) -> str:
    return f"{100 * value:g}%"


def rule_text(thresholds: dict) -> str:
    """The rule a decision was made by, in words (its stored thresholds)."""
    values = {
        "alpha": _pct(thresholds.get("alpha", 0)),
        "comparisons": thresholds.get("comparisons", 0),
        "level": f"{thresholds.get('level', 0):.4g}",
        "min_sends": thresholds.get("min_sends", 0),
        "hours": thresholds.get("maturity_hours", 0),
        "min_positive": thresholds.get("min_positive", 0),
    }
    if values["comparisons"] > 1:
        test = _(
            "A version is significantly worse than the best one when a one-sided "
            "two-proportion z-test of positive replies per send gives p below %(level)s "
            "(%(alpha)s split between the %(comparisons)d versions compared with the best "
            "one)."
        )
    else:
        test = _(
            "A version is significantly worse than the best one when a one-sided "
            "two-proportion z-test of positive replies per send gives p below %(alpha)s."
        )
    sample = _(
        "Each version needs %(min_sends)d sends at least %(hours)d hours old, and the two "
        "compared together %(min_positive)d sends that drew a positive reply."
    )
    return f"{test % values} {sample % values}"


def p_text(p_value: float | None) -> str:
    """A p-value as people read it: four decimals, or "< 0.0001"."""
    if p_value is None:
        return "—"
    return "< 0.0001" if p_value < 0.0001 else f"{p_value:.4f}"


def changes_text(changes: list[dict]) -> str:
    """ "v1: weight 100 → 200; v2: retired" from a decision's changes."""
    parts = []
    for change in changes:
        if change["active_before"] and not change["active_after"]:
            parts.append(_("v%(version)d: retired") % change)
        elif change["weight_before"] != change["weight_after"]:
            parts.append(_("v%(version)d: weight %(weight_before)d → %(weight_after)d") % change)
    return "; ".join(parts)


def _rows(figures: list[dict], labels: dict[str, str]) -> list[dict]:
    return [
        {**row, "label": labels.get(row["outcome"], row["outcome"]), "p": p_text(row["p_value"])}
        for row in figures
    ]


def _who(decision: ABDecision) -> str:
    if decision.status == ABDecision.Status.APPLIED and decision.automatic:
        return _("automatic")
    return display_name(decision.decided_by) if decision.decided_by_id else ""


def ab_context(template: Template) -> dict:
    """The block's context: the standing now, the suggestion waiting, the history."""
    labels = outcome_labels()
    verdict = decisions.standing(template)
    history = list(
        ABDecision.objects.filter(template=template)
        .select_related("decided_by", "winner")
        .order_by("-created_at", "-pk")[:HISTORY]
    )
    waiting = next((d for d in history if d.status == ABDecision.Status.SUGGESTED), None)
    return {
        "ab_mode": template.get_ab_mode_display(),
        "ab_off": template.ab_mode == Template.ABMode.OFF,
        "ab_rule": rule_text(verdict.rule_dict()),
        "ab_standing": _rows(verdict.figures(), labels),
        "ab_waiting": waiting,
        "ab_waiting_rows": _rows(waiting.figures, labels) if waiting else [],
        "ab_waiting_changes": changes_text(waiting.changes) if waiting else "",
        "ab_history": [
            {
                "decision": decision,
                "changes": changes_text(decision.changes),
                "who": _who(decision),
                "rule": rule_text(decision.rule),
                "rows": _rows(decision.figures, labels),
            }
            for decision in history
        ],
        "ab_seen": decisions.last_applied(template),
    }


def _back(pk: int) -> HttpResponse:
    response = redirect("outreach:template", pk=pk)
    response["Location"] += "#ab-winner"
    return response


@login_required
@require_POST
def evaluate(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """Evaluate now, as the hourly run does: off changes nothing, suggest suggests,
    automatic applies."""
    template = scope_for(request).get_or_404(Template, pk=pk)
    found = decisions.evaluate(template)
    if found.applied and found.decision is not None:
        messages.success(
            request,
            _("Applied at once (automatic mode): %(changes)s.")
            % {"changes": changes_text(found.decision.changes)},
        )
    elif found.decision is not None:
        messages.success(request, _("A winner is suggested below: confirm or dismiss it."))
    elif template.ab_mode == Template.ABMode.OFF:
        messages.info(request, _("A/B decisions are off for this template: nothing changed."))
    else:
        messages.info(request, _("No version is significantly better yet: nothing changed."))
    return _back(template.pk)


def _act(request: AuthenticatedHttpRequest, pk: int, confirming: bool) -> HttpResponse:
    template = scope_for(request).get_or_404(Template, pk=pk)
    decision_id = parse_id(request.POST.get("decision")) or 0
    try:
        if confirming:
            done = decisions.confirm(template, decision_id, request.user)
        else:
            done = decisions.dismiss(template, decision_id, request.user)
    except decisions.Refused as refused:
        messages.error(request, str(refused))
        return _back(template.pk)
    if confirming:
        messages.success(
            request, _("Applied: %(changes)s.") % {"changes": changes_text(done.changes)}
        )
    else:
        messages.success(request, _("Dismissed: the weights stay as they are."))
    return _back(template.pk)


@login_required
@require_POST
def confirm(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    return _act(request, pk, confirming=True)


@login_required
@require_POST
def dismiss(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    return _act(request, pk, confirming=False)
