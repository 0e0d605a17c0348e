"""What the API shows of A/B decisions (outreach.ab_winners) and the bodies of the A/B
actions. The rule, its thresholds and what a decision may do are outreach.ab_winners'."""

from __future__ import annotations

from rest_framework import serializers

from api.serializers_reviews import PersonSerializer
from api.serializers_sequences import row_id
from outreach.ab_winners.rule import OUTCOMES
from outreach.models import ABDecision, Template


class ABRuleSerializer(serializers.Serializer):
    test = serializers.CharField(
        help_text="`two_proportion_z_one_sided`: a pooled two-proportion z-test, one-sided."
    )
    alpha = serializers.FloatField(help_text="Significance shared by the comparisons.")
    comparisons = serializers.IntegerField(help_text="Versions compared with the leader.")
    level = serializers.FloatField(
        help_text="The p-value a comparison must be below: alpha / comparisons (Bonferroni)."
    )
    min_sends = serializers.IntegerField(help_text="Sends each compared version needs.")
    min_positive = serializers.IntegerField(
        help_text="Sends that drew a positive reply the two versions compared need together."
    )
    maturity_hours = serializers.IntegerField(help_text="A send counts once this old.")


class ABFigureSerializer(serializers.Serializer):
    version_id = serializers.IntegerField()
    version = serializers.IntegerField(help_text="The version's number in its template.")
    weight = serializers.IntegerField(help_text="Its weight when counted.")
    sent = serializers.IntegerField(help_text="Sends counted (at least maturity_hours old).")
    positive = serializers.IntegerField(help_text="Of those, sends that drew a positive reply.")
    rate = serializers.FloatField(allow_null=True, help_text="positive per 100 sent; null: none.")
    z = serializers.FloatField(
        allow_null=True, help_text="z against the leader; null: not compared."
    )
    p_value = serializers.FloatField(allow_null=True, help_text="One-sided; null: not compared.")
    outcome = serializers.ChoiceField(
        choices=OUTCOMES,
        help_text="winner, leader (best, nothing significantly worse), retire (significantly "
        "worse), keep (not significantly worse), kept (worse, but a person kept it), too_few.",
    )


class ABChangeSerializer(serializers.Serializer):
    version_id = serializers.IntegerField()
    version = serializers.IntegerField()
    weight_before = serializers.IntegerField()
    weight_after = serializers.IntegerField()
    active_before = serializers.BooleanField()
    active_after = serializers.BooleanField()


class ABDecisionSerializer(serializers.ModelSerializer):
    winner_version = serializers.IntegerField(
        source="winner.version", help_text="The winner's version number."
    )
    losers = serializers.ListField(
        child=serializers.IntegerField(), help_text="Ids of the versions it retires."
    )
    rule = ABRuleSerializer(help_text="The rule and thresholds it was decided by.")
    figures = ABFigureSerializer(many=True, help_text="Every version in the split, counted.")
    changes = ABChangeSerializer(
        many=True, help_text="Planned while suggested; as made once applied."
    )
    decided_by = PersonSerializer(
        allow_null=True, help_text="Who confirmed or dismissed it; null when automatic."
    )

    class Meta:
        model = ABDecision
        fields = [
            "id",
            "template",
            "status",
            "withdrawn_because",
            "winner",
            "winner_version",
            "losers",
            "rule",
            "figures",
            "changes",
            "automatic",
            "decided_by",
            "decided_at",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields
        extra_kwargs = {
            "status": {
                "help_text": "suggested (waiting for a person), applied, dismissed, or "
                "superseded (withdrawn before anyone acted: `withdrawn_because`)."
            },
            "withdrawn_because": {
                "help_text": "figures (they no longer show this winner), versions (one it "
                "compared changed), off (A/B decisions turned off); empty otherwise."
            },
        }


class ABEvaluationSerializer(serializers.Serializer):
    rule = ABRuleSerializer()
    standing = ABFigureSerializer(many=True, help_text="Every version in the split, now.")
    decision = ABDecisionSerializer(
        allow_null=True,
        help_text="The suggestion waiting or the decision applied by this evaluation; null "
        "when nothing is decided (or A/B decisions are off).",
    )


class ABActSerializer(serializers.Serializer):
    decision = row_id(help_text="The id of the suggestion waiting (`ab_suggestion.id`).")


class ABModeSerializer(serializers.Serializer):
    mode = serializers.ChoiceField(
        choices=Template.ABMode.choices,
        help_text="off: figures only; suggest: a person confirms each winner; auto: applied "
        "at once. Turning it off withdraws a suggestion waiting.",
    )
