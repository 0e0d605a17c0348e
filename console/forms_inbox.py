"""The inbox's forms: a team note on a conversation."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from hitl.inbox_state import NOTE_MAX


class NoteForm(forms.Form):
    body = forms.CharField(
        label=_("Team note"),
        max_length=NOTE_MAX,
        strip=True,
        widget=forms.Textarea(
            attrs={"rows": 2, "placeholder": _("Only your team sees this; never sent.")}
        ),
        error_messages={"required": _("Write the note first.")},
    )
