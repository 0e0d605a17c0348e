"""A template's A/B winner over the API (the Templates endpoints' actions): its decisions,
evaluate now, confirm or dismiss the suggestion waiting, and the mode. The rule and the
decisions are outreach.ab_winners'; the template page offers the same."""

from __future__ import annotations

from django.db.models import Prefetch, QuerySet
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from api import serializers_template_ab as s
from api.auth import acting_user
from api.docs import READ, WRITE, errors
from api.errors import Conflict
from api.pagination import NewestFirst
from api.serializers_templates import TemplateSerializer
from outreach.ab_winners import decisions
from outreach.models import ABDecision, Template

DECISION_SHOWN = OpenApiExample(
    "a suggestion",
    value={
        "id": 3,
        "template": 7,
        "status": "suggested",
        "withdrawn_because": "",
        "winner": 21,
        "winner_version": 1,
        "losers": [22],
        "rule": {
            "test": "two_proportion_z_one_sided",
            "alpha": 0.01,
            "comparisons": 1,
            "level": 0.01,
            "min_sends": 200,
            "min_positive": 10,
            "maturity_hours": 72,
        },
        "figures": [
            {
                "version_id": 21,
                "version": 1,
                "weight": 100,
                "sent": 400,
                "positive": 60,
                "rate": 15.0,
                "z": None,
                "p_value": None,
                "outcome": "winner",
            },
            {
                "version_id": 22,
                "version": 2,
                "weight": 100,
                "sent": 400,
                "positive": 12,
                "rate": 3.0,
                "z": 5.93,
                "p_value": 1.51e-09,
                "outcome": "retire",
            },
        ],
        "changes": [
            {
                "version_id": 21,
                "version": 1,
                "weight_before": 100,
                "weight_after": 200,
                "active_before": True,
                "active_after": True,
            },
            {
                "version_id": 22,
                "version": 2,
                "weight_before": 100,
                "weight_after": 100,
                "active_before": True,
                "active_after": False,
            },
        ],
        "automatic": False,
        "decided_by": None,
        "decided_at": None,
        "created_at": "2026-11-20T09:25:00Z",
        "updated_at": "2026-11-20T10:25:00Z",
    },
    response_only=True,
)


def waiting_prefetch() -> Prefetch:
    """The suggestion waiting, as TemplateSerializer.ab_suggestion reads it."""
    return Prefetch(
        "ab_decisions",
        queryset=ABDecision.objects.filter(status=ABDecision.Status.SUGGESTED).select_related(
            "decided_by", "winner"
        ),
        to_attr="ab_waiting",
    )


def _refused(error: decisions.Refused) -> Conflict:
    return Conflict(str(error), code="ab_decision_refused")


class TemplateABActions(viewsets.GenericViewSet):
    """The A/B actions of TemplateViewSet (its get_object scopes the template)."""

    def _template(self) -> Template:
        template = self.get_object()
        assert isinstance(template, Template), "the Templates viewset's rows"
        return template

    def _decision(self, pk: int) -> ABDecision:
        return ABDecision.objects.select_related("decided_by", "winner").get(pk=pk)

    @extend_schema(
        summary="A template's A/B decisions, newest first (cursor-paged)",
        description="Suggested, applied, dismissed and withdrawn, each with the figures and "
        "the rule it was decided by.",
        responses={200: s.ABDecisionSerializer(many=True), **errors(400, *READ)},
        examples=[DECISION_SHOWN],
        filters=False,
    )
    @action(
        detail=True,
        methods=["get"],
        url_path="ab-decisions",
        pagination_class=NewestFirst,
        filterset_class=None,
    )
    def ab_decisions(self, request: Request, pk: str | None = None) -> Response:
        rows: QuerySet[ABDecision] = ABDecision.objects.filter(
            template=self._template()
        ).select_related("decided_by", "winner")
        page = self.paginate_queryset(rows)
        return self.get_paginated_response(s.ABDecisionSerializer(page, many=True).data)

    @extend_schema(
        summary="Judge the template's versions on positive replies now",
        description="As the hourly run does: the figures and each version's outcome; in "
        "`suggest` mode a winner becomes a suggestion, in `auto` mode it is applied, "
        "`off` changes nothing.",
        request=None,
        responses={200: s.ABEvaluationSerializer, **errors(*WRITE)},
    )
    @action(detail=True, methods=["post"], url_path="ab-evaluate")
    def ab_evaluate(self, request: Request, pk: str | None = None) -> Response:
        found = decisions.evaluate(self._template())
        shown = {
            "rule": found.verdict.rule_dict(),
            "standing": found.verdict.figures(),
            "decision": self._decision(found.decision.pk) if found.decision else None,
        }
        return Response(s.ABEvaluationSerializer(shown).data)

    @extend_schema(
        summary="Confirm the A/B winner waiting: raise its weight, retire the losers",
        description="Applied if the figures still give the same decision; a 409 when no "
        "suggestion is waiting, `decision` names another one, or the figures or versions "
        "changed (the suggestion is then withdrawn).",
        request=s.ABActSerializer,
        responses={200: s.ABDecisionSerializer, **errors(*WRITE, 409)},
        examples=[DECISION_SHOWN],
    )
    @action(detail=True, methods=["post"], url_path="ab-confirm")
    def ab_confirm(self, request: Request, pk: str | None = None) -> Response:
        return self._act(request, confirming=True)

    @extend_schema(
        summary="Dismiss the A/B winner waiting (the weights stay as they are)",
        description="The same decision is not suggested again. A 409 when no suggestion is "
        "waiting or `decision` names another one.",
        request=s.ABActSerializer,
        responses={200: s.ABDecisionSerializer, **errors(*WRITE, 409)},
    )
    @action(detail=True, methods=["post"], url_path="ab-dismiss")
    def ab_dismiss(self, request: Request, pk: str | None = None) -> Response:
        return self._act(request, confirming=False)

    def _act(self, request: Request, *, confirming: bool) -> Response:
        template = self._template()
        body = s.ABActSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        user = acting_user(request)
        act = decisions.confirm if confirming else decisions.dismiss
        try:
            done = act(template, body.validated_data["decision"], user)
        except decisions.Refused as refused:
            raise _refused(refused) from None
        return Response(s.ABDecisionSerializer(self._decision(done.pk)).data)

    @extend_schema(
        summary="Set what the A/B rule may do with the template's versions",
        description="The template as it is then (`ab_mode`; a suggestion waiting is "
        "withdrawn when the mode is turned off).",
        request=s.ABModeSerializer,
        responses={200: TemplateSerializer, **errors(*WRITE)},
        examples=[OpenApiExample("automatic", value={"mode": "auto"}, request_only=True)],
    )
    @action(detail=True, methods=["post"], url_path="ab-mode")
    def ab_mode(self, request: Request, pk: str | None = None) -> Response:
        template = self._template()
        body = s.ABModeSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        decisions.set_mode(template, body.validated_data["mode"])
        return Response(TemplateSerializer(self.get_queryset().get(pk=template.pk)).data)
