"""The templates page's brochure upload (outreach.brochures checks the file itself)."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from outreach.brochures.reading import MAX_UPLOAD_BYTES


class BrochureUploadForm(forms.Form):
    file = forms.FileField(
        label=_("Brochure or price list (PDF)"),
        help_text=_("A PDF with text (not a scan), at most %(mb)d MB.")
        % {"mb": MAX_UPLOAD_BYTES // (1024 * 1024)},
        widget=forms.ClearableFileInput(attrs={"accept": ".pdf,application/pdf"}),
        error_messages={
            "required": _("Choose the PDF of a brochure or price list."),
            "empty": _("The file is empty."),
        },
    )
