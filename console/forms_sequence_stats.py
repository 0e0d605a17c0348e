"""The date range of a sequence's results (the sequence page): both dates optional, all
time when both are empty (outreach.analytics.sequences)."""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING, Any

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from outreach.analytics import RangeInvalid
from outreach.analytics.sequences import check_range

if TYPE_CHECKING:
    from django.utils.functional import _StrOrPromise as StrOrPromise


def _date_field(label: StrOrPromise) -> forms.DateField:
    return forms.DateField(
        label=label,
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
    )


class SequenceStatsRangeForm(forms.Form):
    start = _date_field(_("From"))
    end = _date_field(_("To"))

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        if self.errors:
            return data
        try:
            check_range(data.get("start"), data.get("end"))
        except RangeInvalid as invalid:
            raise ValidationError({invalid.field: str(invalid)}, code=invalid.code) from None
        return data

    def range(self) -> tuple[date | None, date | None]:
        """The chosen days (None: open); call after is_valid()."""
        return self.cleaned_data.get("start"), self.cleaned_data.get("end")
