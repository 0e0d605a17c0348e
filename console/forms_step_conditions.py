"""The "Conditions" part of a step on the sequences page: up to MAX_CONDITIONS rows, each a
kind, hours (the timed kinds) and stages (stage_not), filled in without JSON.

Works without JavaScript: the rows filled in are shown with one empty row, and the "Add a
condition" button posts the form back to show one more (static/js/sequence_editor.js only
hides the hours and stages a kind does not use). What the rows mean is checked by
outreach.step_conditions.parse, whose complaint lands on the row and part at fault.
"""

from __future__ import annotations

import re
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from outreach import step_conditions
from outreach.models import Stage
from outreach.step_condition_words import KNOWN_STAGES, kind_choices, problem_in_words
from outreach.step_conditions import MAX_CONDITIONS, MAX_HOURS, TIMED, ConditionInvalid

ADD_BUTTON = "add_condition"  # its value: the prefix of the step that wants one more row
_AT = re.compile(r"^conditions\.all\[(\d+)\](?:\.(\w+))?$")


DROP_FIELD = "drop_unreadable"  # a step's checkbox: remove stored conditions that mean nothing


class ConditionRowForm(forms.Form):
    # The kinds each part is for (the page's script hides a part its kind does not use).
    HOURS_FOR = " ".join(TIMED)
    STAGES_FOR = "stage_not"

    kind = forms.ChoiceField(label=_("Condition"), required=False)
    # Text, not a number field: a wrong value is parse's to refuse, and only for a kind that
    # uses hours (a hidden, stale value of another kind is ignored).
    hours = forms.CharField(
        label=_("Hours"),
        required=False,
        max_length=12,
        widget=forms.NumberInput(attrs={"min": 1, "max": MAX_HOURS, "class": "narrow"}),
    )
    stages = forms.MultipleChoiceField(
        label=_("Stages"),
        required=False,
        choices=Stage.choices,
        widget=forms.SelectMultiple(attrs={"size": 4}),
    )

    def __init__(self, *args: Any, index: int, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.index = index
        kind = self.fields["kind"]
        assert isinstance(kind, forms.ChoiceField), "declared a ChoiceField above"
        kind.choices = [("", "—"), *kind_choices()]
        kind.widget.attrs["data-condition-kind"] = ""

    def is_filled(self) -> bool:
        """A kind is chosen (a row without one is an empty row, not a condition)."""
        if self.is_bound:
            return bool(self.data.get(self.add_prefix("kind")))
        return bool(self.initial.get("kind"))

    def raw(self) -> dict[str, Any]:
        """The row as step_conditions.parse reads one condition."""
        data = self.cleaned_data
        found: dict[str, Any] = {"kind": data["kind"]}
        if data["kind"] in TIMED:
            hours = data["hours"].strip()
            found["hours"] = int(hours) if hours.isascii() and hours.isdigit() else hours
        if data["kind"] == "stage_not":
            found["stages"] = data["stages"]
        return found


def initial_rows(conditions: dict) -> list[dict[str, Any]]:
    """A stored value as the rows' initial data (a value that does not parse shows none)."""
    try:
        parsed = step_conditions.parse(conditions, known_stages=KNOWN_STAGES)
    except ConditionInvalid:
        return []
    return [{"kind": c.kind, "hours": c.hours or "", "stages": list(c.stages)} for c in parsed]


def unreadable(conditions: Any) -> str:
    """Why a stored value means nothing (written by hand, or through the API before it
    checked), "" when it parses."""
    try:
        step_conditions.parse(conditions, known_stages=KNOWN_STAGES)
    except ConditionInvalid as wrong:
        return problem_in_words(wrong)
    return ""


class StepConditions:
    """A step form's condition rows: built, shown, checked and turned into the stored value.
    Stored conditions that mean nothing are never dropped silently: they stay until rows
    replace them or the operator ticks "Remove them" (`DROP_FIELD`)."""

    def __init__(self, step: forms.Form, initial: list[dict[str, Any]], stored: Any = None) -> None:
        self.step = step
        self.stored = stored
        self.problem = unreadable(stored) if stored else ""
        data = step.data if step.is_bound else None
        self.rows = [
            ConditionRowForm(
                data,
                prefix=f"{step.prefix}-cond-{index}",
                initial=initial[index] if index < len(initial) else None,
                index=index,
            )
            for index in range(MAX_CONDITIONS)
        ]

    def filled(self) -> list[ConditionRowForm]:
        return [row for row in self.rows if row.is_filled()]

    def shown(self) -> list[ConditionRowForm]:
        """The filled rows and one empty row (two after "Add a condition" on this step)."""
        asked = self.step.is_bound and self.step.data.get(ADD_BUTTON) == self.step.prefix
        empty = [row for row in self.rows if not row.is_filled()][: 2 if asked else 1]
        return sorted([*self.filled(), *empty], key=lambda row: row.index)

    def can_add(self) -> bool:
        return len(self.filled()) < MAX_CONDITIONS

    def clean(self) -> dict[str, Any] | None:
        """The stored value of the filled rows, or None after putting the problems on the
        rows (and a line on the step, which may be scrolled away from them)."""
        rows = self.filled()
        if self.problem and not rows:
            if self.step.data.get(f"{self.step.prefix}-{DROP_FIELD}"):
                return {}
            self.step.add_error(
                None,
                _(
                    "The conditions stored for this step cannot be read (%(problem)s). Set "
                    "them again below, or tick “Remove them” to save the step without them."
                )
                % {"problem": self.problem},
            )
            return None
        if not all(row.is_valid() for row in rows):
            self.step.add_error(None, _("A condition of this step is not right (see below)."))
            return None
        try:
            parsed = step_conditions.parse(
                {"all": [row.raw() for row in rows]}, known_stages=KNOWN_STAGES
            )
        except ConditionInvalid as wrong:
            self._blame(rows, wrong)
            self.step.add_error(None, _("A condition of this step is not right (see below)."))
            return None
        return step_conditions.to_json(parsed)

    def _blame(self, rows: list[ConditionRowForm], wrong: ConditionInvalid) -> None:
        at = _AT.match(wrong.field)
        if at is None:  # the list as a whole (more than MAX_CONDITIONS)
            self.step.add_error(None, problem_in_words(wrong))
            return
        row, part = rows[int(at.group(1))], at.group(2)
        row.add_error(part if part in row.fields else None, problem_in_words(wrong))
