"""A sequence step's conditions in the admin: said in words in the lists, and a value typed
in by hand checked as outreach.step_conditions reads it (stored as it writes it)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.core.exceptions import ValidationError
from django.forms import ModelForm

from outreach.models import SequenceStep
from outreach.step_condition_words import KNOWN_STAGES, describe
from outreach.step_conditions import ConditionInvalid, parse, to_json


@admin.display(description="conditions")
def conditions_in_words(step: SequenceStep) -> str:
    return "; ".join(describe(step.conditions)) or "—"


class ConditionsInWords:
    """The conditions in words as a read-only field (`readonly_fields` takes its name)."""

    @admin.display(description="conditions")
    def conditions_text(self, step: SequenceStep) -> str:
        return conditions_in_words(step)


class SequenceStepForm(ModelForm):
    class Meta:
        model = SequenceStep
        fields = [
            "tenant",
            "sequence",
            "sequence_version",
            "position",
            "channel",
            "delay_value",
            "delay_unit",
            "template",
            "conditions",
        ]
        help_texts = {
            "conditions": 'e.g. {"all": [{"kind": "replied"}, {"kind": "whatsapp_not_read", '
            '"hours": 24}]}; kinds: no_reply, replied, whatsapp_not_delivered (hours), '
            "whatsapp_not_read (hours), email_bounced, no_phone, stage_not (stages). Empty: "
            "the step always goes.",
        }

    def clean_conditions(self) -> dict[str, Any]:
        try:
            return to_json(parse(self.cleaned_data.get("conditions"), known_stages=KNOWN_STAGES))
        except ConditionInvalid as wrong:
            raise ValidationError(str(wrong)) from None
