"""The sending settings form (/outreach/settings/sending/): the tenant's sending hours,
working days, holiday calendar, pacing and contact policy. The rules are
outreach.window_replanning's and outreach.contact_policy's."""

from __future__ import annotations

from typing import Any
from zoneinfo import available_timezones

import holidays
from django import forms
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from cerniq.models import WEEKDAYS, Tenant
from outreach import window_replanning as rules
from outreach.contact_policy import POLICY_FIELDS

# The countries whose calendars an agricultural seller in Romania is likeliest to follow,
# named in the reader's language; a tenant's other calendar is kept and shown by its code.
COUNTRIES = [
    ("RO", _("Romania")),
    ("MD", _("Moldova")),
    ("BG", _("Bulgaria")),
    ("HU", _("Hungary")),
    ("RS", _("Serbia")),
    ("UA", _("Ukraine")),
    ("PL", _("Poland")),
    ("AT", _("Austria")),
    ("DE", _("Germany")),
    ("IT", _("Italy")),
    ("FR", _("France")),
    ("ES", _("Spain")),
    ("NL", _("Netherlands")),
    ("GR", _("Greece")),
    ("GB", _("United Kingdom")),
    ("US", _("United States")),
]
ZONES = sorted(z for z in available_timezones() if z.startswith(("Europe/", "UTC")))


class SendingSettingsForm(forms.Form):
    # Shown together in the form's first block (the rest have blocks of their own).
    window_field_names = ("time_zone", "window_start", "window_end", "holiday_country")

    time_zone = forms.ChoiceField(label=_("Time zone"), choices=[(z, z) for z in ZONES])
    window_start = forms.TimeField(
        label=_("Sending starts at"), widget=forms.TimeInput(attrs={"type": "time"}, format="%H:%M")
    )
    window_end = forms.TimeField(
        label=_("Sending ends at"),
        widget=forms.TimeInput(attrs={"type": "time"}, format="%H:%M"),
        help_text=_("Local time of the workspace. Nothing automated goes out at or after it."),
    )
    working_days = forms.TypedMultipleChoiceField(
        label=_("Working days"),
        choices=WEEKDAYS,
        coerce=int,
        widget=forms.CheckboxSelectMultiple,
        error_messages={"required": _("Choose at least one working day.")},
    )
    holiday_country = forms.ChoiceField(
        label=_("Public holidays of"),
        required=False,
        help_text=_("No automated message goes out on these public holidays."),
    )
    pacing_min_seconds = forms.IntegerField(
        label=_("Pause between two sends of a number (seconds)"),
        min_value=rules.PACING_MIN_LOWEST,
        max_value=rules.PACING_MAX,
    )
    pacing_jitter_seconds = forms.IntegerField(
        label=_("Random extra pause, up to (seconds)"),
        min_value=0,
        max_value=rules.PACING_MAX,
        help_text=_("Each pause gets a random extra up to this, so sends do not look timed."),
    )
    contact_unverified_whatsapp = forms.BooleanField(
        label=_("Contact WhatsApp numbers nobody has checked yet"),
        required=False,
        help_text=_(
            "The first message checks the number: one that is not on WhatsApp is marked and "
            "the lead gets email instead. Numbers are never checked in bulk."
        ),
    )
    contact_unverified_email = forms.BooleanField(
        label=_("Contact email addresses nobody has checked yet"),
        required=False,
        help_text=_("The bounce shield pauses sending when too many of them bounce."),
    )

    def __init__(self, *args: Any, tenant: Tenant, **kwargs: Any) -> None:
        fields = (*rules.FIELDS, *POLICY_FIELDS)
        kwargs.setdefault("initial", {f: getattr(tenant, f) for f in fields})
        super().__init__(*args, **kwargs)
        supported = holidays.list_supported_countries()
        choices: list[tuple[str, str | Promise]] = [
            (code, name) for code, name in COUNTRIES if code in supported
        ]
        current = (tenant.holiday_country or "").upper()
        if current and current not in dict(choices):
            choices.append((current, current))
        country, zone = self.fields["holiday_country"], self.fields["time_zone"]
        assert isinstance(country, forms.ChoiceField) and isinstance(zone, forms.ChoiceField)
        country.choices = [*choices, ("", _("None"))]
        if tenant.time_zone not in ZONES:
            zone.choices = [(z, z) for z in (*ZONES, tenant.time_zone)]

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        if self.errors:
            return data
        self.settings = rules.WindowSettings(**{f: data[f] for f in rules.FIELDS})
        for field, problem in rules.problems(self.settings).items():
            self.add_error(field, problem)
        return data
