"""A step's conditions in plain words, for the people who set them (the sequences page, the
admin): each kind's label, and a stored condition as a sentence. What a condition means
stays with outreach.step_conditions; this module only says it."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from outreach import step_conditions
from outreach.models import Stage
from outreach.step_conditions import Condition, ConditionInvalid

KIND_LABELS = {
    "no_reply": gettext_lazy("Only if the lead has not replied on any channel"),
    "replied": gettext_lazy("Only if the lead has replied (reply-first)"),
    "whatsapp_not_delivered": gettext_lazy(
        "Only if our last WhatsApp message was not delivered within N hours"
    ),
    "whatsapp_not_read": gettext_lazy(
        "Only if our last WhatsApp message was not read within N hours"
    ),
    "email_bounced": gettext_lazy("Only if the email bounced"),
    "no_phone": gettext_lazy("Only if the lead has no phone"),
    "stage_not": gettext_lazy("Skip if the stage is …"),
}
assert set(KIND_LABELS) == set(step_conditions.KINDS), "a label for every kind"

KNOWN_STAGES = frozenset(Stage.values)


def kind_choices() -> list[tuple[str, Any]]:
    """The kinds as a select's choices, in the order step_conditions lists them."""
    return [(kind, KIND_LABELS[kind]) for kind in step_conditions.KINDS]


def in_words(condition: Condition) -> str:
    """One condition as a sentence: its hours and stages said, not "N" or "…"."""
    if condition.kind == "whatsapp_not_delivered":
        return ngettext(
            "Only if our last WhatsApp message was not delivered within %(hours)d hour",
            "Only if our last WhatsApp message was not delivered within %(hours)d hours",
            condition.hours,
        ) % {"hours": condition.hours}
    if condition.kind == "whatsapp_not_read":
        return ngettext(
            "Only if our last WhatsApp message was not read within %(hours)d hour",
            "Only if our last WhatsApp message was not read within %(hours)d hours",
            condition.hours,
        ) % {"hours": condition.hours}
    if condition.kind == "stage_not":
        names = dict(Stage.choices)
        stages = ", ".join(str(names.get(stage, stage)) for stage in condition.stages)
        return ngettext(
            "Skip if the stage is %(stages)s",
            "Skip if the stage is one of %(stages)s",
            len(condition.stages),
        ) % {"stages": stages}
    return str(KIND_LABELS[condition.kind])


def describe(raw: Any) -> list[str]:
    """A stored `conditions` value as sentences (none: an empty list). A value that does not
    parse (written by hand in the admin before it checked) says so rather than failing."""
    try:
        conditions = step_conditions.parse(raw, known_stages=KNOWN_STAGES)
    except ConditionInvalid as wrong:
        return [_("Conditions not understood (%(problem)s)") % {"problem": str(wrong)}]
    return [in_words(condition) for condition in conditions]


_PROBLEMS = {
    "kind": gettext_lazy("Choose what this condition checks."),
    "hours": gettext_lazy("Give the hours as a whole number from 1 to %(max)d."),
    "stages": gettext_lazy("Choose one or more stages."),
    "conditions": gettext_lazy("At most %(max)d conditions."),
}


def problem_in_words(wrong: ConditionInvalid) -> str:
    """What is wrong with a submitted condition, said to the person who filled it in (the
    part at fault is `wrong.field`)."""
    part = wrong.field.rsplit(".", 1)[-1]
    if part == "hours":
        return _PROBLEMS["hours"] % {"max": step_conditions.MAX_HOURS}
    if part == "conditions":
        return _PROBLEMS["conditions"] % {"max": step_conditions.MAX_CONDITIONS}
    return str(_PROBLEMS.get(part, wrong.problem))
